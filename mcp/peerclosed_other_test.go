//go:build !linux

package mcp_test

import (
	"bufio"
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// waitPeerClosed waits (up to wait) for the host to close its end of c,
// reading what it still sends.
func waitPeerClosed(t *testing.T, c net.Conn, wait time.Duration) bool {
	t.Helper()
	if err := c.SetReadDeadline(time.Now().Add(wait)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	for {
		if _, err := r.ReadSlice('\n'); err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return !errors.Is(err, os.ErrDeadlineExceeded)
		}
	}
}
