//go:build linux

package mcp_test

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitPeerClosed waits (up to wait) for the host to close its end of c
// without reading from c: a read would take the answers the host is stuck
// writing, and so end the stall the test is about.
func waitPeerClosed(t *testing.T, c net.Conn, wait time.Duration) bool {
	t.Helper()
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(wait)
	for {
		var n int
		var perr error
		fds := []unix.PollFd{{Events: unix.POLLRDHUP}}
		if err := raw.Control(func(fd uintptr) {
			fds[0].Fd = int32(fd)
			n, perr = unix.Poll(fds, 100)
		}); err != nil {
			t.Fatal(err)
		}
		if perr != nil && perr != unix.EINTR {
			t.Fatal(perr)
		}
		if n > 0 && fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}
