//go:build unix

package procguard

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

// The watchdog is this binary executed again with argv[0] watchdogName and
// envWatchdog naming the record to sweep; this package's init runs it
// before the program's own start (any program that links the package, the
// tests' binaries included, can be its own watchdog).
const (
	watchdogName = "mnote-procguard"
	envWatchdog  = "MNOTE_PROCGUARD_RECORD"
)

func init() {
	if len(os.Args) != 1 || os.Args[0] != watchdogName {
		return
	}
	if record := os.Getenv(envWatchdog); record != "" {
		os.Exit(runWatchdog(record))
	}
}

// runWatchdog waits for the end of its stdin, the pipe whose only writer
// is the mnote that started it (the end comes when that mnote exits, or is
// killed), then sweeps the record.
func runWatchdog(record string) int {
	// Named for ps and top (its file is /proc/self/exe, "exe"); Linux
	// only, and only a name.
	_ = os.WriteFile("/proc/self/comm", []byte(watchdogName), 0)
	// In a session of its own already; what would still stop it.
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGPIPE, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	var b [64]byte
	for {
		if _, err := os.Stdin.Read(b[:]); err != nil {
			break
		}
	}
	sweepRecord(record, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	return 0
}

// watchdog is a running watchdog and the write end of its pipe (closed
// only by this process's exit, or when the watchdog died).
type watchdog struct {
	cmd  *exec.Cmd
	pipe *os.File
}

// maxRestarts is how many times a minute a watchdog that died is started
// again.
const maxRestarts = 5

// restarts are the times the watchdog was started again.
var restarts []time.Time

// startWatchdog starts the watchdog of the record file.
func startWatchdog(record string) (*watchdog, error) {
	self := "/proc/self/exe" // this binary, even if its file was replaced
	if runtime.GOOS != "linux" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("the watchdog's pipe: %w", err)
	}
	cmd := &exec.Cmd{
		Path: self, Args: []string{watchdogName}, Env: []string{envWatchdog + "=" + record},
		Dir: "/", Stdin: r, // stdout and stderr: /dev/null
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("start the watchdog (%s): %w", self, err)
	}
	r.Close()
	wd := &watchdog{cmd: cmd, pipe: w}
	go wd.wait(record)
	return wd, nil
}

// wait reaps the watchdog; one that died while this process runs is
// started again (a few times a minute at most).
func (wd *watchdog) wait(record string) {
	err := wd.cmd.Wait()
	guard.mu.Lock()
	defer guard.mu.Unlock()
	wd.pipe.Close()
	if guard.wd != wd {
		return
	}
	guard.wd = nil
	now := time.Now()
	for len(restarts) > 0 && now.Sub(restarts[0]) > time.Minute {
		restarts = restarts[1:]
	}
	if len(restarts) >= maxRestarts {
		guard.log.Warn("the watchdog of mnote's processes keeps ending; it is not started again: if mnote is killed, its processes are ended at its next start", "err", err)
		return
	}
	restarts = append(restarts, now)
	guard.log.Warn("the watchdog of mnote's processes ended; starting it again", "pid", wd.cmd.Process.Pid, "err", err)
	if guard.wd, err = startWatchdog(record); err != nil {
		guard.log.Warn("the watchdog of mnote's processes did not start again", "err", err)
	}
}
