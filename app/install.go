package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"mnote/acp"
	"mnote/acp/runtimes"
	"mnote/store"
)

// First run: installing an agent into mnote's own folder (agents.install,
// agents.cancelInstall, the agent:install event) and the starts in
// progress the page shows and may cancel (agents.cancelStart, the
// agent:start event).

// Install phases (AgentInstallEvent.Phase).
const (
	InstallRunning   = "running"
	InstallDone      = "done"
	InstallFailed    = "failed"
	InstallCancelled = "cancelled"
)

// Start phases (AgentStartEvent.Phase).
const (
	StartStarting  = "starting"
	StartStarted   = "started"
	StartFailed    = "failed"
	StartCancelled = "cancelled"
)

// AgentInstallEvent is the data of agent:install: a line of npm's output
// while it runs, then how it ended. A failed one's Error is English;
// ErrorReason and ErrorParams name the case (reasons.go).
type AgentInstallEvent struct {
	Name        string            `json:"name"`
	Phase       string            `json:"phase"`
	Line        string            `json:"line,omitempty"`
	Error       string            `json:"error,omitempty"`
	ErrorReason string            `json:"errorReason,omitempty"`
	ErrorParams map[string]string `json:"errorParams,omitempty"`
	// Log is the file that keeps the whole output.
	Log string `json:"log"`
	// Step, Done and Total tell an ACP Registry install's progress
	// (registry.go): Step "download" with bytes (Total -1 unknown),
	// "unpack", "npm".
	Step  string `json:"step,omitempty"`
	Done  int64  `json:"done,omitempty"`
	Total int64  `json:"total,omitempty"`
}

// InstallStarted is agents.install's answer: the install runs on, its
// progress comes as agent:install events.
type InstallStarted struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	Log     string `json:"log"`
}

// AgentStartEvent is the data of agent:start: an agent process starting
// (initialize), then how that ended. StartedAt is Unix milliseconds;
// TimeoutMs how long mnote waits for it. A failed start carries the
// error (English; ErrorReason and ErrorParams name the case, as an
// Error's) and the agent's last stderr lines.
type AgentStartEvent struct {
	Name        string            `json:"name"`
	Title       string            `json:"title"`
	Phase       string            `json:"phase"`
	StartedAt   int64             `json:"startedAt"`
	TimeoutMs   int64             `json:"timeoutMs"`
	Error       string            `json:"error,omitempty"`
	ErrorReason string            `json:"errorReason,omitempty"`
	ErrorParams map[string]string `json:"errorParams,omitempty"`
	StderrTail  string            `json:"stderrTail,omitempty"`
}

// agentOps are the installs and the starts in progress, by agent name.
type agentOps struct {
	mu       sync.Mutex
	installs map[string]context.CancelFunc
	starts   map[string]map[*context.CancelCauseFunc]struct{}
}

// errStartCancelled is the cause of a start the user cancelled.
var errStartCancelled = errors.New("the start was cancelled")

// maxInstallLine caps one line of npm's output in an event.
const maxInstallLine = 500

// AgentsDir is where mnote installs agents, one folder per agent (the
// detector's SetAgentsDir; `mnote` commands use the same).
func AgentsDir(p store.Paths) string { return filepath.Join(p.DataDir, "agents") }

// clipLine cuts a line to at most n bytes, on a rune boundary.
func clipLine(line string, n int) string {
	if len(line) <= n {
		return line
	}
	return strings.ToValidUTF8(line[:n], "") + "…"
}

type installArgs struct {
	Name string `json:"name"`
}

// agentsInstall starts installing a known agent's pinned npm package into
// mnote's agents folder. Only presets' packages are installed: the page
// names an agent, never a package or a command.
func (s *Services) agentsInstall(_ context.Context, a installArgs) (any, *Error) {
	rt, e := s.runtime(a.Name)
	if e != nil {
		return nil, e
	}
	logPath := filepath.Join(s.paths.LogDir, "install-"+strings.TrimPrefix(runtimes.LogFileName(rt.Name), "agent-"))
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return nil, shutdownError()
	}
	s.turns.Add(1)
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(s.life)
	cmd, err := s.det.InstallCommand(ctx, rt)
	if err != nil {
		cancel()
		s.turns.Done()
		if errors.Is(err, runtimes.ErrNoInstaller) {
			return nil, (&Error{Code: CodeBadRequest, Message: err.Error(), Details: rt.InstallHint, cause: err}).why(ReasonNoInstaller, "agent", rt.Title)
		}
		return nil, newError(CodeWriteFailed, "%w", err).why(ReasonInstallFailed, "agent", rt.Title)
	}
	s.ops.mu.Lock()
	if _, busy := s.ops.installs[rt.Name]; busy {
		s.ops.mu.Unlock()
		cancel()
		s.turns.Done()
		return nil, (&Error{Code: CodeBusy, Message: fmt.Sprintf("%s is already being installed", rt.Title)}).why(ReasonInstallRunning, "agent", rt.Title)
	}
	if s.ops.installs == nil {
		s.ops.installs = map[string]context.CancelFunc{}
	}
	s.ops.installs[rt.Name] = cancel
	s.ops.mu.Unlock()
	command := runtimes.CommandLine(cmd.Path, cmd.Args[1:])
	go func() {
		defer s.turns.Done()
		defer func() {
			s.ops.mu.Lock()
			delete(s.ops.installs, rt.Name)
			s.ops.mu.Unlock()
			cancel()
		}()
		s.runInstall(ctx, rt, cmd, command, logPath)
	}()
	return InstallStarted{Name: rt.Name, Command: command, Log: logPath}, nil
}

// runInstall runs npm, keeping its output in the log file and sending each
// line as an event, then says how it ended.
func (s *Services) runInstall(ctx context.Context, rt runtimes.Runtime, cmd *exec.Cmd, command, logPath string) {
	ev := func(phase, line string) {
		s.emit(EventAgentInstall, AgentInstallEvent{Name: rt.Name, Phase: phase, Line: line, Log: logPath})
	}
	// fail tells the failure, its reason and params (the agent's title,
	// then kv).
	fail := func(err error, reason string, kv ...string) {
		s.log.Warn("agent install failed", "agent", rt.Name, "err", err)
		s.emit(EventAgentInstall, AgentInstallEvent{Name: rt.Name, Phase: InstallFailed, Error: err.Error(),
			ErrorReason: reason, ErrorParams: addParams(nil, append([]string{"agent", rt.Title}, kv...)...), Log: logPath})
	}
	if err := os.MkdirAll(s.paths.LogDir, 0o700); err != nil {
		fail(fmt.Errorf("the log folder: %w", err), ReasonInstallFailed)
		return
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		fail(fmt.Errorf("the install log: %w", err), ReasonInstallFailed)
		return
	}
	defer logf.Close()
	fmt.Fprintf(logf, "# %s %s\n", time.Now().UTC().Format(time.RFC3339), command)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			if line = strings.TrimSpace(line); line != "" {
				ev(InstallRunning, clipLine(line, maxInstallLine))
			}
		}
		io.Copy(io.Discard, pr) //nolint:errcheck // drain a line too long
	}()
	ev(InstallRunning, command)
	err = cmd.Start()
	started := err == nil
	if started {
		err = cmd.Wait()
	}
	pw.Close()
	<-lines
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(logf, "# cancelled")
		ev(InstallCancelled, "")
		return
	case !started:
		fmt.Fprintf(logf, "# not started: %v\n", err)
		fail(fmt.Errorf("npm install %s: %w", rt.NPMPackage, err), ReasonInstallFailed)
		return
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		fmt.Fprintf(logf, "# failed: %v\n", err)
		fail(fmt.Errorf("npm install %s: %w", rt.NPMPackage, err), ReasonInstallNpmFailed, "code", strconv.Itoa(exit.ExitCode()))
		return
	case err != nil:
		fmt.Fprintf(logf, "# failed: %v\n", err)
		fail(fmt.Errorf("npm install %s: %w", rt.NPMPackage, err), ReasonInstallNpmFailed)
		return
	}
	if _, err := s.det.Resolve(rt); err != nil {
		fmt.Fprintf(logf, "# installed, but not found: %v\n", err)
		fail(fmt.Errorf("npm installed %s, but %w", rt.NPMPackage, err), ReasonInstallNotFound)
		return
	}
	fmt.Fprintln(logf, "# done")
	s.noteAgent(rt.Name, nil)
	ev(InstallDone, "")
}

func (s *Services) agentsCancelInstall(_ context.Context, a installArgs) (any, *Error) {
	s.ops.mu.Lock()
	cancel, ok := s.ops.installs[a.Name]
	s.ops.mu.Unlock()
	if !ok {
		return nil, (&Error{Code: CodeNotFound, Message: fmt.Sprintf("no install of %q is running", a.Name)}).why(ReasonInstallNotRunning, "agent", a.Name)
	}
	cancel()
	return map[string]bool{"cancelled": true}, nil
}

// beginStart tells the page an agent is starting and makes the start
// cancellable (agents.cancelStart); end says how it went.
func (s *Services) beginStart(ctx context.Context, rt runtimes.Runtime, timeout time.Duration) (context.Context, func(*acp.Agent, error) error) {
	if inStartSpan(ctx) {
		// Part of a session's start (live.go startSpan): that one tells.
		return ctx, func(_ *acp.Agent, err error) error { return err }
	}
	ctx, cancel := context.WithCancelCause(ctx)
	key := &cancel
	s.ops.mu.Lock()
	if s.ops.starts == nil {
		s.ops.starts = map[string]map[*context.CancelCauseFunc]struct{}{}
	}
	if s.ops.starts[rt.Name] == nil {
		s.ops.starts[rt.Name] = map[*context.CancelCauseFunc]struct{}{}
	}
	s.ops.starts[rt.Name][key] = struct{}{}
	s.ops.mu.Unlock()
	ev := AgentStartEvent{Name: rt.Name, Title: rt.Title, Phase: StartStarting,
		StartedAt: time.Now().UnixMilli(), TimeoutMs: timeout.Milliseconds()}
	s.emit(EventAgentStart, ev)
	return ctx, func(_ *acp.Agent, err error) error {
		s.ops.mu.Lock()
		delete(s.ops.starts[rt.Name], key)
		if len(s.ops.starts[rt.Name]) == 0 {
			delete(s.ops.starts, rt.Name)
		}
		s.ops.mu.Unlock()
		cancelled := errors.Is(context.Cause(ctx), errStartCancelled)
		cancel(nil)
		switch {
		case err == nil:
			ev.Phase = StartStarted
		case cancelled:
			ev.Phase = StartCancelled
			err = (&Error{Code: CodeAgentFailed, Message: fmt.Sprintf("%s: %s", rt.Title, errStartCancelled), cause: err}).why(ReasonAgentStartCancelled, "agent", rt.Title)
		default:
			e := errorFrom("", err)
			ev.Phase, ev.Error, ev.StderrTail = StartFailed, e.Message, e.Details
			ev.ErrorReason, ev.ErrorParams = errorWhy(e, ReasonAgentStartFailed, rt.Title)
		}
		s.emit(EventAgentStart, ev)
		return err
	}
}

func (s *Services) agentsCancelStart(_ context.Context, a nameArgs) (any, *Error) {
	s.ops.mu.Lock()
	n := 0
	for c := range s.ops.starts[a.Name] {
		(*c)(errStartCancelled)
		n++
	}
	s.ops.mu.Unlock()
	return map[string]int{"cancelled": n}, nil
}
