//go:build !linux

package acp_test

import "errors"

// pipeFill needs Linux's /proc.
func pipeFill(pid, fd int) (queued, capacity int, err error) {
	return 0, 0, errors.New("pipe fill: needs Linux")
}
