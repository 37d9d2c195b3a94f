//go:build unix && !linux

package procguard

import (
	"errors"
	"syscall"
	"time"
)

// Attr is how to start a guarded process: in a session of its own. This
// platform has no PR_SET_PDEATHSIG and no /proc to find a session by.
func Attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

var errNoProc = errors.New("no /proc on this platform")

func startTime(int) (uint64, error) { return 0, errNoProc }

func bootID() string { return "" }

// sweep kills the leaders' process groups (there is no /proc to find the
// rest of a session by).
func sweep(sessions map[int]uint64, _ time.Time) int {
	for sid := range sessions {
		_ = syscall.Kill(-sid, syscall.SIGKILL)
	}
	return 0
}
