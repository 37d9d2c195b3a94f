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
