package acp_test

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeFill tells how many bytes wait unread in the pipe that is fd of
// process pid, and its capacity (Linux: through /proc/PID/fd).
func pipeFill(pid, fd int) (queued, capacity int, err error) {
	// Opened for reading, never read: the agent's writes and our reader's
	// end of file are unchanged.
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if queued, err = unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ); err != nil { // FIONREAD
		return 0, 0, fmt.Errorf("FIONREAD: %w", err)
	}
	if capacity, err = unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0); err != nil {
		return 0, 0, fmt.Errorf("F_GETPIPE_SZ: %w", err)
	}
	return queued, capacity, nil
}
