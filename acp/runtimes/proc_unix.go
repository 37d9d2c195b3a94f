//go:build unix

package runtimes

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// SetProcessGroup starts cmd in a new session: it gets no controlling
// terminal (an interactive shell cannot grab or stop on the terminal mnote
// was started from) and leads its own process group, which is killed as a
// whole when the command's context ends.
func SetProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}

// isExecutable reports whether path is a regular file (after symlinks) with
// an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// executableNames lists the file names to try for a command path.
func executableNames(path string) []string { return []string{path} }

// envKeyEqual compares environment variable names (case-sensitive on Unix).
func envKeyEqual(a, b string) bool { return a == b }
