//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock(2) without waiting. It reports false
// when another open file description holds it.
func tryLock(f *os.File) (bool, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if !errors.Is(lerr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return false, err
	}
	if errors.Is(lerr, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return lerr == nil, lerr
}

// writerGone reports whether no Writer, in any process, holds the
// transcript at path: its lock is free. Finding out takes the lock for an
// instant, so a Writer opening the file at that very moment would get
// ErrSessionBusy; it is only asked about sessions whose last turn never
// ended.
func writerGone(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	held, err := tryLock(f)
	if err != nil || !held {
		return false
	}
	_ = unlock(f) // closing releases it too
	return true
}

// unlock releases the flock (closing the file would too).
func unlock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var uerr error
	if err := rc.Control(func(fd uintptr) {
		uerr = syscall.Flock(int(fd), syscall.LOCK_UN)
	}); err != nil {
		return err
	}
	return uerr
}
