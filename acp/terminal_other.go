//go:build !linux

package acp

import (
	"errors"
	"syscall"
)

// groupAlive reports whether the process group pgid still has members
// (zombies included: there is no /proc to tell them apart).
func groupAlive(pgid int) bool {
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}
