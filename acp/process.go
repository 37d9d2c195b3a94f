package acp

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"mnote/acp/procguard"
)

// ProcSpec is how to start one agent process.
type ProcSpec struct {
	Path string   // absolute path of the executable
	Args []string // arguments, without argv[0]
	Env  []string // full environment; nil means the current one
	Dir  string   // working directory
	// LogFile, when set, receives the agent's stderr (appended, mode
	// 0600), rotated: when it reaches LogMaxBytes it becomes LogFile.1,
	// the older ones shift up to LogFile.(LogFiles-1) and the oldest is
	// dropped. Writing it never slows the agent (see logPendingMax).
	LogFile string
	// LogMaxBytes caps each log file; default DefaultLogMaxBytes (4 MiB).
	LogMaxBytes int64
	// LogFiles is how many files are kept, LogFile included; default
	// DefaultLogFiles (3).
	LogFiles int
	// StderrTail is the number of bytes of stderr kept for error messages.
	StderrTail int
}

// Process is a running agent: its own session (procguard: nothing of it
// outlives mnote), stdin as a pipe with write deadlines, stdout for the
// connection and stderr captured.
type Process struct {
	cmd    *exec.Cmd
	guard  *procguard.Session
	stdin  *os.File
	stdout *os.File
	stderr *ring

	done chan struct{}
	// stderrDone is closed when stderr has reached EOF and the log file
	// is written and closed.
	stderrDone chan struct{}
	exitErr    error
	exitCode   int

	stdinOnce sync.Once
	log       *slog.Logger
}

// ExitError reports an agent process that ended, with its exit code and the
// last lines it wrote to stderr.
type ExitError struct {
	Code       int    // exit code, or -1 when killed by a signal
	Signal     string // the signal that killed it, if any
	StderrTail string
}

func (e *ExitError) Error() string {
	var b strings.Builder
	if e.Signal != "" {
		fmt.Fprintf(&b, "agent was killed by %s", e.Signal)
	} else {
		fmt.Fprintf(&b, "agent exited with code %d", e.Code)
	}
	if t := strings.TrimSpace(e.StderrTail); t != "" {
		b.WriteString("; its last output on stderr:\n")
		b.WriteString(t)
	}
	return b.String()
}

// StartProcess starts the agent described by spec.
func StartProcess(spec ProcSpec, log *slog.Logger) (*Process, error) {
	if log == nil {
		log = slog.Default()
	}
	if spec.StderrTail <= 0 {
		spec.StderrTail = 16 << 10
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("agent stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("agent stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("agent stderr pipe: %w", err)
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	// A session of its own: no controlling terminal (a tool asking for a
	// password on /dev/tty cannot take over the terminal mnote runs in),
	// and the whole of it is found and ended with the agent, or by
	// procguard's watchdog if mnote is killed.
	cmd.SysProcAttr = procguard.Attr()
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("start agent %s: %w", spec.Path, err)
	}
	closeAll(inR, outW, errW)

	p := &Process{
		cmd:    cmd,
		guard:  procguard.Track(cmd.Process.Pid),
		stdin:  inW,
		stdout: outR,
		stderr: newRing(spec.StderrTail),
		done:   make(chan struct{}),
		log:    log.With("pid", cmd.Process.Pid),
	}
	p.stderrDone = make(chan struct{})
	var logFile *stderrLog
	if spec.LogFile != "" {
		l, err := openStderrLog(spec.LogFile, spec.LogMaxBytes, spec.LogFiles, p.log)
		if err != nil {
			p.log.Warn("agent stderr log not written", "file", spec.LogFile, "err", err)
		} else {
			fmt.Fprintf(l, "--- %s pid %d: %s %s\n", time.Now().Format(time.RFC3339), cmd.Process.Pid, spec.Path, strings.Join(spec.Args, " "))
			logFile = l
		}
	}
	go func() {
		defer close(p.stderrDone)
		p.copyStderr(errR, logFile)
	}()
	go func() {
		err := cmd.Wait()
		// Give the stderr reader a moment to take the last lines (a
		// grandchild may keep the pipe open, so do not wait for EOF).
		select {
		case <-p.stderrDone:
		case <-time.After(200 * time.Millisecond):
		}
		p.exitErr, p.exitCode = err, cmd.ProcessState.ExitCode()
		p.log.Debug("agent exited", "code", p.exitCode, "err", err)
		close(p.done)
		// Whatever is left of the session goes with its leader.
		if !p.guard.End(2 * time.Second) {
			p.log.Warn("processes of the agent's session are still running after it exited")
		}
	}()
	return p, nil
}

// copyStderr drains the agent's stderr into the in-memory tail and the
// log (which only queues), so the agent never waits on mnote's disk.
func (p *Process) copyStderr(r *os.File, logFile *stderrLog) {
	defer r.Close()
	if logFile != nil {
		defer logFile.close()
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			p.stderr.Write(buf[:n])
			if logFile != nil {
				logFile.Write(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}

// Pid is the process id (and process group and session id) of the agent.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed as soon as the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitError describes how the process ended; nil while it runs.
func (p *Process) ExitError() *ExitError {
	if !p.Exited() {
		return nil
	}
	e := &ExitError{Code: p.exitCode, StderrTail: p.StderrTail(20)}
	var ee *exec.ExitError
	if errors.As(p.exitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal().String()
		}
	}
	return e
}

// StderrTail returns at most the last n lines the agent wrote to stderr.
func (p *Process) StderrTail(n int) string { return p.stderr.Tail(n) }

// CloseStdin closes the agent's stdin (an agent should exit on EOF).
func (p *Process) CloseStdin() { p.stdinOnce.Do(func() { p.stdin.Close() }) }

// Signal sends sig to the agent's whole process group.
func (p *Process) Signal(sig syscall.Signal) {
	if p.Exited() {
		return
	}
	if err := syscall.Kill(-p.Pid(), sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		p.log.Warn("signal agent", "signal", sig, "err", err)
	}
}

// Kill kills the agent's whole session (and what its processes started
// outside it) at once and waits for the exit.
func (p *Process) Kill() {
	p.guard.Kill()
	<-p.done
}

// Stop stops the agent gracefully: close stdin, wait up to grace, SIGTERM the
// group, wait up to grace again, then SIGKILL. It returns once the process
// is reaped.
func (p *Process) Stop(grace time.Duration) {
	if grace <= 0 {
		grace = 2 * time.Second
	}
	p.CloseStdin()
	if p.wait(grace) {
		return
	}
	p.log.Debug("agent still running after stdin closed; SIGTERM")
	p.Signal(syscall.SIGTERM)
	if p.wait(grace) {
		return
	}
	p.log.Warn("agent ignored SIGTERM; SIGKILL")
	p.Kill()
}

func (p *Process) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
