//go:build !unix

package store

import "os"

// tryLock is a no-op where flock(2) does not exist: there, two mnote
// processes on one session are not detected.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }

// writerGone cannot tell without flock(2): a session stays "running".
func writerGone(string) bool { return false }
