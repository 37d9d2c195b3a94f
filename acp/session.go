package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"mnote/internal/jsonscan"
	"mnote/thread"
)

// SessionHandler receives what the agent sends for one session. Update and
// Line are called on the connection's reader goroutine in wire order: a
// handler that blocks slows the agent down, which is the intended
// backpressure. They must not call back into the Agent synchronously.
type SessionHandler interface {
	LineTap
	// Update is a session/update notification, decoded; line is its raw
	// bytes (valid only during the call). Unknown update kinds arrive here
	// too; the handler decides what to keep.
	Update(u *thread.Update, line []byte)
	// Notification is any other notification for this session.
	Notification(method string, params json.RawMessage, line []byte)
	// Bad is a line that was not used (malformed, too long, unexpected).
	Bad(err error, line []byte)
}

// PermissionBroker decides permission requests. RequestPermission blocks
// until the user decides or ctx is done (the turn was cancelled or the
// session closed); then the request is answered cancelled.
type PermissionBroker interface {
	RequestPermission(ctx context.Context, req *PermissionRequest) (PermissionDecision, error)
}

// FileSystem serves the agent's fs/* requests. Errors that are *RPCError go
// to the agent as they are; errors matching fs.ErrNotExist become "not
// found" (-32002), fs.ErrPermission (a refusal) and fs.ErrInvalid "invalid
// params" (-32602), with the error's message; others internal errors.
type FileSystem interface {
	ReadTextFile(ctx context.Context, path string, line, limit *int) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error
}

// SessionConfig is what a session needs from its owner.
type SessionConfig struct {
	Cwd     string
	Handler SessionHandler
	Broker  PermissionBroker
	// FS serves fs/* requests; nil refuses them all (the client still
	// offers file access in initialize, so the agent is told why).
	FS FileSystem
	// McpServers are sent in session/new, session/load and
	// session/resume (ACP McpServer objects); nil sends [].
	McpServers []json.RawMessage
	// Terminals enables terminal/* requests: commands run inside Cwd
	// with the agent's environment (terminal.go); nil refuses them.
	Terminals *TerminalConfig
	// Elicitor answers elicitation/create (elicitation.go); nil
	// declines every request.
	Elicitor ElicitationBroker
	// AdditionalDirectories are sent in session/new, session/load and
	// session/resume when the agent offers
	// sessionCapabilities.additionalDirectories (absolute paths).
	AdditionalDirectories []string
}

// mcpServers is cfg's list for the wire: never null.
func (cfg *SessionConfig) mcpServers() []json.RawMessage {
	if cfg.McpServers == nil {
		return []json.RawMessage{}
	}
	return cfg.McpServers
}

// Session is one ACP session on an agent.
type Session struct {
	a  *Agent
	id string
	h  SessionHandler
	b  PermissionBroker
	fs FileSystem
	ts *terminals // nil: terminals refused
	el ElicitationBroker

	// Setup holds the modes, models and config options the agent sent.
	Setup SessionSetup

	closeOnce  sync.Once
	mu         sync.Mutex
	turn       bool
	cancelled  bool
	cancelCh   chan struct{} // closed by Cancel during a turn
	sent       bool          // the turn's session/prompt is on the wire
	permCtx    context.Context
	permCancel context.CancelFunc
	perms      permFIFO // session/request_permission, in arrival order
}

// ID is the agent's session id.
func (s *Session) ID() string { return s.id }

// Agent is the agent holding the session.
func (s *Session) Agent() *Agent { return s.a }

func (a *Agent) newSessionObj(id string, cfg SessionConfig) (*Session, error) {
	if cfg.Handler == nil {
		return nil, errors.New("acp: session needs a handler")
	}
	fsys := cfg.FS
	if fsys == nil {
		fsys = noFiles{}
	}
	s := &Session{a: a, id: id, h: cfg.Handler, b: cfg.Broker, fs: fsys, el: cfg.Elicitor}
	if cfg.Terminals != nil {
		s.ts = newTerminals(cfg.Terminals, cfg.Cwd, a.env, cfg.FS)
	}
	s.permCtx, s.permCancel = context.WithCancel(context.Background())
	return s, nil
}

// NewSession runs session/new in cwd.
func (a *Agent) NewSession(ctx context.Context, cfg SessionConfig) (*Session, error) {
	s, err := a.newSessionObj("", cfg)
	if err != nil {
		return nil, err
	}
	raw, err := a.callTimeout(ctx, "session/new", sessionParams{Cwd: cfg.Cwd, McpServers: cfg.mcpServers(), AdditionalDirectories: a.extraDirs(&cfg)}, cfg.Handler, a.opts.NewSessionTimeout)
	if err != nil {
		return nil, a.describe(err)
	}
	if err := json.Unmarshal(raw, &s.Setup); err != nil || s.Setup.SessionID == "" {
		return nil, fmt.Errorf("session/new: the agent's answer has no session id: %s", truncate(raw, 200))
	}
	s.id = s.Setup.SessionID
	a.register(s)
	return s, nil
}

// LoadSession runs session/load for an existing agent session. The agent
// replays the history as updates before it answers; they reach the handler
// like any other update.
func (a *Agent) LoadSession(ctx context.Context, id string, cfg SessionConfig) (*Session, error) {
	if !a.Init.AgentCapabilities.LoadSession {
		return nil, errors.New("the agent cannot load sessions")
	}
	return a.reopen(ctx, "session/load", id, cfg)
}

// ResumeSession runs session/resume (no replay).
func (a *Agent) ResumeSession(ctx context.Context, id string, cfg SessionConfig) (*Session, error) {
	if !a.Init.AgentCapabilities.CanResume() {
		return nil, errors.New("the agent cannot resume sessions")
	}
	return a.reopen(ctx, "session/resume", id, cfg)
}

func (a *Agent) reopen(ctx context.Context, method, id string, cfg SessionConfig) (*Session, error) {
	s, err := a.newSessionObj(id, cfg)
	if err != nil {
		return nil, err
	}
	a.register(s)
	raw, err := a.callTimeout(ctx, method, sessionParams{SessionID: id, Cwd: cfg.Cwd, McpServers: cfg.mcpServers(), AdditionalDirectories: a.extraDirs(&cfg)}, cfg.Handler, a.opts.NewSessionTimeout)
	if err != nil {
		a.unregister(id)
		return nil, a.describe(err)
	}
	_ = json.Unmarshal(raw, &s.Setup)
	s.Setup.SessionID = id
	return s, nil
}

// describe adds the agent's exit and stderr to an error from a call.
// exitRaceWait is how long a failed, cancelled prompt waits to learn
// whether the agent died.
const exitRaceWait = 300 * time.Millisecond

// exitsWithin reports whether the agent's process ends within d.
func (a *Agent) exitsWithin(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-a.proc.Done():
		return true
	case <-t.C:
		return false
	}
}

func (a *Agent) describe(err error) error {
	var ee *ExitError
	if errors.As(err, &ee) || errors.Is(err, ErrAuthRequired) {
		return err
	}
	select {
	case <-a.proc.Done():
		return fmt.Errorf("%w (%w)", err, a.proc.ExitError())
	default:
	}
	if errors.Is(err, ErrTimeout) {
		if tail := a.proc.StderrTail(20); tail != "" {
			return fmt.Errorf("%w; the agent's stderr ends with:\n%s", err, tail)
		}
	}
	return err
}

// Close forgets the session, answers its pending permission requests
// cancelled, releases its terminals (no command of theirs keeps running)
// and, when the agent advertises session/close, tells the agent to free
// it (lifecycle.go). The agent keeps running. Only the first call does
// anything.
func (s *Session) Close() {
	s.closeOnce.Do(func() {
		s.cancelPermissions()
		s.release()
		s.a.unregister(s.id)
		s.ts.closeAll()
	})
}

// KillTerminal kills the command of one of the session's terminals (the
// user's Stop); the terminal stays until the agent releases it.
func (s *Session) KillTerminal(id string) error {
	var t *terminal
	if s.ts != nil {
		t = s.ts.get(id)
	}
	if t == nil {
		return fmt.Errorf("there is no terminal %q in this session", id)
	}
	t.kill()
	return nil
}

func (s *Session) inTurn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn
}

// Prompt runs one turn and returns how it ended. Cancelling ctx cancels the
// turn (like Cancel) and still waits for the agent's answer, up to the
// cancel grace period, after which the agent is killed.
func (s *Session) Prompt(ctx context.Context, blocks []thread.ContentBlock) (*PromptResult, error) {
	s.mu.Lock()
	if s.turn {
		s.mu.Unlock()
		return nil, errors.New("a turn is already running in this session")
	}
	s.turn, s.cancelled, s.sent = true, false, false
	cancelCh := make(chan struct{})
	s.cancelCh = cancelCh
	if s.permCtx.Err() != nil {
		s.permCtx, s.permCancel = context.WithCancel(context.Background())
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.turn = false
		s.mu.Unlock()
	}()

	type result struct {
		raw json.RawMessage
		err error
	}
	// The request is on the wire before any session/cancel for it: a
	// Cancel that comes first only marks the turn, and the cancel is sent
	// here right after the prompt.
	pc, err := s.a.conn.start("session/prompt", promptParams{SessionID: s.id, Prompt: blocks}, s.h)
	if err != nil {
		return nil, s.a.describe(err)
	}
	s.mu.Lock()
	s.sent = true
	cancelNow := s.cancelled
	s.mu.Unlock()
	if cancelNow {
		s.sendCancel()
	}
	done := make(chan result, 1)
	go func() {
		raw, err := s.a.conn.wait(context.Background(), pc)
		done <- result{raw, err}
	}()

	var grace <-chan time.Time
	ctxDone := ctx.Done()
	var r result
wait:
	for {
		select {
		case r = <-done:
			break wait
		case <-ctxDone:
			ctxDone = nil
			s.Cancel()
		case <-cancelCh:
			cancelCh = nil
			t := time.NewTimer(s.a.opts.CancelGrace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			s.a.log.Warn("agent ignored session/cancel; killing it", "grace", s.a.opts.CancelGrace)
			s.a.proc.Kill()
			<-done
			return &PromptResult{StopReason: StopCancelled, Killed: true}, nil
		}
	}
	if r.err != nil {
		if s.isCancelled() {
			// A cancel that raced the agent's death (the connection closed
			// before its exit was reaped) is a failure, not a cancel: wait a
			// moment for the exit before calling it cancelled.
			var ee *ExitError
			if !errors.As(s.a.describe(r.err), &ee) && !s.a.exitsWithin(exitRaceWait) {
				return &PromptResult{StopReason: StopCancelled}, nil
			}
		}
		var re *RPCError
		if errors.As(r.err, &re) && re.IsAuth() {
			// The agent lost (or never had) its login mid-session.
			return nil, fmt.Errorf("session/prompt: %w: %s", ErrAuthRequired, re.Message)
		}
		return nil, s.a.describe(r.err)
	}
	var pr PromptResult
	if err := json.Unmarshal(r.raw, &pr); err != nil {
		return nil, fmt.Errorf("session/prompt: the agent's answer does not decode: %w", err)
	}
	if s.isCancelled() {
		pr.StopReason = StopCancelled
	}
	return &pr, nil
}

func (s *Session) isCancelled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

// Cancel cancels the running turn: it sends session/cancel and answers
// every pending permission request cancelled. Prompt keeps waiting for the
// agent's answer (killing the agent after the cancel grace period).
func (s *Session) Cancel() {
	s.mu.Lock()
	if !s.turn || s.cancelled {
		s.mu.Unlock()
		return
	}
	s.cancelled = true
	close(s.cancelCh)
	sent := s.sent
	s.mu.Unlock()
	s.cancelPermissions()
	if sent {
		s.sendCancel()
	}
}

func (s *Session) sendCancel() {
	if err := s.a.conn.notify("session/cancel", acpsdk.CancelNotification{SessionId: acpsdk.SessionId(s.id)}, s.h); err != nil {
		s.a.log.Warn("session/cancel not sent", "err", err)
	}
}

func (s *Session) cancelPermissions() {
	s.mu.Lock()
	cancel := s.permCancel
	s.mu.Unlock()
	cancel()
}

// SetMode runs session/set_mode.
func (s *Session) SetMode(ctx context.Context, modeID string) error {
	_, err := s.a.callTimeout(ctx, "session/set_mode", acpsdk.SetSessionModeRequest{SessionId: acpsdk.SessionId(s.id), ModeId: acpsdk.SessionModeId(modeID)}, s.h, s.a.opts.NewSessionTimeout)
	return err
}

// SetModel runs the legacy session/set_model, which the SDK no longer
// has (v0.13.5 dropped it with the "models" field) but agents that still
// send "models" answer. Agents that offer a config option of category
// "model" take SetConfigOption instead.
func (s *Session) SetModel(ctx context.Context, modelID string) error {
	params := map[string]string{"sessionId": s.id, "modelId": modelID}
	_, err := s.a.callTimeout(ctx, "session/set_model", params, s.h, s.a.opts.NewSessionTimeout)
	return err
}

// SetConfigOption runs session/set_config_option with a value id (a
// string) or, for a boolean option, a bool (sent with type "boolean", as
// clientCapabilities.session.configOptions.boolean promises).
func (s *Session) SetConfigOption(ctx context.Context, configID string, value any) (json.RawMessage, error) {
	params := map[string]any{"sessionId": s.id, "configId": configID, "value": value}
	switch value.(type) {
	case bool:
		params["type"] = "boolean"
	case string:
	default:
		return nil, fmt.Errorf("a config option's value is a string or a boolean, not %T", value)
	}
	return s.a.callTimeout(ctx, "session/set_config_option", params, s.h, s.a.opts.NewSessionTimeout)
}

// handleRequest answers one agent→client request (on its own goroutine).
func (s *Session) handleRequest(req *Request) {
	result, rerr := s.serve(req)
	if err := s.a.conn.reply(req.ID, result, rerr, s.h); err != nil {
		s.a.log.Warn("reply to agent failed", "method", req.Method, "err", err)
	}
	if cancellable(req.Method) {
		s.a.reqs.done(req)
	}
}

func (s *Session) serve(req *Request) (any, *RPCError) {
	switch req.Method {
	case "session/request_permission":
		ctx, stop := s.requestContext(req)
		defer stop()
		return s.permission(ctx, req.Params)
	case "elicitation/create":
		ctx, stop := s.requestContext(req)
		defer stop()
		return s.elicitation(ctx, req.Params)
	case "fs/read_text_file":
		var p acpsdk.ReadTextFileRequest
		if err := jsonscan.Decode(req.Params, &p); err != nil {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid fs/read_text_file params: " + err.Error()}
		}
		text, err := s.fs.ReadTextFile(s.permCtxNow(), p.Path, p.Line, p.Limit)
		if err != nil {
			return nil, toRPCError(err)
		}
		return acpsdk.ReadTextFileResponse{Content: text}, nil
	case "fs/write_text_file":
		var p acpsdk.WriteTextFileRequest
		if err := jsonscan.Decode(req.Params, &p); err != nil {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid fs/write_text_file params: " + err.Error()}
		}
		if err := s.fs.WriteTextFile(s.permCtxNow(), p.Path, p.Content); err != nil {
			return nil, toRPCError(err)
		}
		return struct{}{}, nil
	case "terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release":
		if s.ts == nil {
			return nil, errNoTerminals
		}
		return s.ts.serve(req.Method, req.Params)
	default:
		return nil, &RPCError{Code: CodeMethodNotFound, Message: "Method not found: " + req.Method}
	}
}

func (s *Session) permCtxNow() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.permCtx
}

var cancelledOutcome = json.RawMessage(`{"outcome":{"outcome":"cancelled"}}`)

func (s *Session) permission(ctx context.Context, params json.RawMessage) (any, *RPCError) {
	var req PermissionRequest
	if err := jsonscan.Decode(params, &req); err != nil {
		return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid session/request_permission params: " + err.Error()}
	}
	var tc struct {
		ToolCallID string `json:"toolCallId"`
		Title      string `json:"title"`
		Kind       string `json:"kind"`
	}
	_ = jsonscan.Decode(req.ToolCall, &tc)
	req.ToolCallID, req.Title, req.Kind = tc.ToolCallID, tc.Title, tc.Kind

	s.mu.Lock()
	cancelled := s.cancelled
	s.mu.Unlock()
	if cancelled || ctx.Err() != nil || s.b == nil {
		return cancelledOutcome, nil
	}
	d, err := s.b.RequestPermission(ctx, &req)
	if err != nil || d.OptionID == "" || ctx.Err() != nil {
		return cancelledOutcome, nil
	}
	return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": d.OptionID}}, nil
}

func toRPCError(err error) *RPCError {
	var re *RPCError
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, fs.ErrNotExist):
		return &RPCError{Code: CodeNotFound, Message: err.Error()}
	case errors.Is(err, fs.ErrPermission), errors.Is(err, fs.ErrInvalid):
		return &RPCError{Code: CodeInvalidParams, Message: err.Error()}
	}
	return &RPCError{Code: CodeInternal, Message: err.Error()}
}

// noFiles is the FileSystem of a session given none: every request is
// refused.
type noFiles struct{}

var errNoFiles = &RPCError{Code: CodeInvalidParams, Message: "refused: this session gives the agent no file access"}

func (noFiles) ReadTextFile(context.Context, string, *int, *int) (string, error) {
	return "", errNoFiles
}

func (noFiles) WriteTextFile(context.Context, string, string) error { return errNoFiles }

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
