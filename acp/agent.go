package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"mnote/internal/jsonscan"
	"mnote/thread"
)

// Options tune an agent connection. Zero values take the defaults.
type Options struct {
	InitTimeout       time.Duration // initialize; default 90 s
	NewSessionTimeout time.Duration // session/new, load, resume; default 90 s
	WriteTimeout      time.Duration // one write to the agent's stdin; default 30 s
	StopGrace         time.Duration // each step of a graceful stop; default 2 s
	CancelGrace       time.Duration // how long a cancelled turn may take; default 10 s
	MaxLine           int           // longest accepted line; default DefaultMaxLine
	ClientName        string        // clientInfo.name; default "mnote"
	ClientVersion     string
	Logger            *slog.Logger
}

func (o *Options) defaults() {
	if o.InitTimeout <= 0 {
		o.InitTimeout = 90 * time.Second
	}
	if o.NewSessionTimeout <= 0 {
		o.NewSessionTimeout = 90 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.StopGrace <= 0 {
		o.StopGrace = 2 * time.Second
	}
	if o.CancelGrace <= 0 {
		o.CancelGrace = 10 * time.Second
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.ClientName == "" {
		o.ClientName = "mnote"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// ErrAuthRequired is returned when the agent needs the user to log in.
var ErrAuthRequired = errors.New("the agent needs authentication")

// ErrTimeout is wrapped by errors of calls that ran out of time.
var ErrTimeout = errors.New("timed out")

// Agent is one running agent process and its ACP connection. It can hold
// several sessions.
type Agent struct {
	opts Options
	proc *Process
	conn *conn
	log  *slog.Logger
	env  []string // the agent's environment (ProcSpec.Env), for its terminals

	// Init is the agent's answer to initialize; InitLines are the raw
	// initialize request and response, for transcripts.
	Init      InitializeResult
	InitLines [2][]byte

	routeMu  sync.Mutex // orders update delivery against session registration
	mu       sync.Mutex
	sessions map[string]*Session
	orphans  map[string][][]byte // updates for sessions not registered yet
	nOrphans int
	initTap  *captureTap
	reqs     inflight // agent→client requests waiting for the user (cancel.go)
}

// Start spawns the agent and runs initialize. On failure the process is
// stopped and the error carries its stderr tail.
func Start(ctx context.Context, spec ProcSpec, opts Options) (*Agent, error) {
	opts.defaults()
	proc, err := StartProcess(spec, opts.Logger)
	if err != nil {
		return nil, err
	}
	a := &Agent{
		opts:     opts,
		proc:     proc,
		env:      spec.Env,
		log:      opts.Logger.With("agent", spec.Path, "pid", proc.Pid()),
		sessions: make(map[string]*Session),
		orphans:  make(map[string][][]byte),
		initTap:  &captureTap{},
	}
	a.conn = newConn(proc.stdin, a, opts.WriteTimeout, a.log)
	a.conn.onWriteStall = func(err error) {
		a.log.Warn("killing agent", "reason", err)
		proc.Kill()
	}
	go a.conn.readLoop(proc.stdout, opts.MaxLine, a.exitError)
	go a.watchExit()

	if err := a.initialize(ctx); err != nil {
		a.proc.Kill()
		if ee := a.proc.ExitError(); ee != nil && !errors.Is(err, ErrTimeout) {
			return nil, fmt.Errorf("initialize: %w", ee)
		}
		if tail := a.proc.StderrTail(20); tail != "" {
			return nil, fmt.Errorf("%w; the agent's stderr ends with:\n%s", err, tail)
		}
		return nil, err
	}
	return a, nil
}

func (a *Agent) initialize(ctx context.Context) error {
	req := acpsdk.InitializeRequest{
		ProtocolVersion: ProtocolVersion,
		ClientCapabilities: acpsdk.ClientCapabilities{
			Fs:       acpsdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
			Terminal: true,
			// mnote runs an agent's terminal login methods itself.
			Auth: acpsdk.AuthCapabilities{Terminal: true},
			// Forms only: mnote opens no URL an agent names.
			Elicitation: &acpsdk.ElicitationCapabilities{Form: &acpsdk.ElicitationFormCapabilities{}},
		},
		ClientInfo: &acpsdk.Implementation{Name: a.opts.ClientName, Version: a.opts.ClientVersion},
	}
	params, err := initializeParams(req)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	raw, err := a.callTimeout(ctx, "initialize", params, a.initTap, a.opts.InitTimeout)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &a.Init); err != nil {
		return fmt.Errorf("initialize: the agent's answer does not decode: %w", err)
	}
	a.Init.Raw = raw
	a.InitLines = [2][]byte{a.initTap.lines[0], a.initTap.lines[1]}
	return nil
}

// callTimeout is call with a deadline that reports ErrTimeout.
func (a *Agent) callTimeout(ctx context.Context, method string, params any, tap LineTap, d time.Duration) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, d, fmt.Errorf("no answer within %s: %w", d, ErrTimeout))
	defer cancel()
	raw, err := a.conn.call(ctx, method, params, tap)
	if err != nil {
		var re *RPCError
		if errors.As(err, &re) && re.IsAuth() {
			return nil, fmt.Errorf("%s: %w: %s", method, ErrAuthRequired, re.Message)
		}
		return nil, err
	}
	return raw, nil
}

// exitError is what the reader reports when the agent's output ends: the
// process's exit, if it comes soon.
func (a *Agent) exitError() error {
	select {
	case <-a.proc.Done():
		return a.proc.ExitError()
	case <-time.After(500 * time.Millisecond):
		return nil
	}
}

// watchExit ends the connection shortly after the process exits, even if a
// grandchild keeps the output pipe open.
func (a *Agent) watchExit() {
	<-a.proc.Done()
	select {
	case <-a.conn.Done():
	case <-time.After(300 * time.Millisecond):
		a.conn.close(a.proc.ExitError())
		a.proc.stdout.Close()
	}
	sessions := a.sessionList()
	for _, s := range sessions {
		s.cancelPermissions()
		s.ts.closeAll()
	}
}

// sessionList returns the agent's sessions.
func (a *Agent) sessionList() []*Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	sessions := make([]*Session, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	return sessions
}

// Pid is the agent's process id.
func (a *Agent) Pid() int { return a.proc.Pid() }

// Done is closed when the agent process has exited.
func (a *Agent) Done() <-chan struct{} { return a.proc.Done() }

// ExitError describes the agent's exit, nil while it runs.
func (a *Agent) ExitError() *ExitError { return a.proc.ExitError() }

// StderrTail returns the last n lines of the agent's stderr.
func (a *Agent) StderrTail(n int) string { return a.proc.StderrTail(n) }

// Updates counts the session/update notifications received so far.
func (a *Agent) Updates() int64 { return a.conn.Updates() }

// Authenticate runs the given auth method.
func (a *Agent) Authenticate(ctx context.Context, methodID string) error {
	_, err := a.callTimeout(ctx, "authenticate", acpsdk.AuthenticateRequest{MethodId: methodID}, nil, a.opts.NewSessionTimeout)
	return err
}

// Stop cancels running turns, answers pending permission requests
// cancelled, and stops the process gracefully.
func (a *Agent) Stop() {
	sessions := a.sessionList()
	for _, s := range sessions {
		if s.inTurn() {
			s.Cancel()
		}
		s.cancelPermissions()
	}
	a.proc.Stop(a.opts.StopGrace)
	for _, s := range sessions {
		s.ts.closeAll()
	}
	a.conn.close(errors.New("agent stopped"))
}

// Kill kills the agent at once.
func (a *Agent) Kill() { a.proc.Kill() }

func (a *Agent) register(s *Session) {
	a.routeMu.Lock()
	defer a.routeMu.Unlock()
	a.mu.Lock()
	a.sessions[s.id] = s
	orphans := a.orphans[s.id]
	delete(a.orphans, s.id)
	a.nOrphans -= len(orphans)
	a.mu.Unlock()
	for _, line := range orphans {
		var ue updateEnvelope
		if err := jsonscan.Decode(line, &ue); err == nil {
			s.h.Update(&ue.Params.Update, line)
		}
	}
}

func (a *Agent) unregister(id string) {
	a.mu.Lock()
	delete(a.sessions, id)
	a.mu.Unlock()
}

func (a *Agent) session(id string) *Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// update implements connHandler: route to the session, in wire order.
// Updates for a session not registered yet (an agent may send them before
// answering session/new) wait until it is.
func (a *Agent) update(sessionID string, u *thread.Update, line []byte) {
	a.routeMu.Lock()
	defer a.routeMu.Unlock()
	if s := a.session(sessionID); s != nil {
		s.h.Update(u, line)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.nOrphans >= 10000 {
		a.log.Warn("update for an unknown session dropped", "sessionId", sessionID)
		return
	}
	a.orphans[sessionID] = append(a.orphans[sessionID], append([]byte(nil), line...))
	a.nOrphans++
}

// request implements connHandler. It runs on the reader goroutine: it
// records the line in order, then handles the request on its own goroutine;
// a session's permission requests are asked one at a time, in the order
// they arrived (permFIFO).
func (a *Agent) request(req *Request, line []byte) {
	var p sessionIDParams
	_ = jsonscan.Decode(req.Params, &p)
	s := a.session(p.SessionID)
	if s == nil && p.SessionID == "" {
		s = a.onlySession() // non-standard requests may name no session
	}
	if s == nil {
		a.log.Warn("agent request for an unknown session", "method", req.Method, "sessionId", p.SessionID)
		rerr := &RPCError{Code: CodeInvalidParams, Message: "unknown sessionId " + p.SessionID}
		if !knownClientMethod(req.Method) {
			rerr = &RPCError{Code: CodeMethodNotFound, Message: "Method not found: " + req.Method}
		}
		go a.conn.reply(req.ID, nil, rerr, nil)
		return
	}
	s.h.Line(DirIn, req.Method, line)
	if cancellable(req.Method) {
		// Registered before the next line is read: a $/cancel_request
		// for it always finds it. Elicitations wait in the same queue
		// as permissions, so the user sees one question at a time.
		a.reqs.add(s, req)
		s.perms.push(s, req)
		return
	}
	go s.handleRequest(req)
}

func (a *Agent) onlySession() *Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.sessions) != 1 {
		return nil
	}
	for _, s := range a.sessions {
		return s
	}
	return nil
}

func knownClientMethod(m string) bool {
	switch m {
	case "session/request_permission", "fs/read_text_file", "fs/write_text_file", "elicitation/create":
		return true
	}
	return len(m) > 9 && m[:9] == "terminal/"
}

// notification implements connHandler.
func (a *Agent) notification(method string, params json.RawMessage, line []byte) {
	if method == MethodCancelRequest {
		a.cancelRequest(params, line)
		return
	}
	var p sessionIDParams
	_ = jsonscan.Decode(params, &p)
	if s := a.session(p.SessionID); s != nil {
		s.h.Notification(method, params, line)
		return
	}
	a.log.Debug("agent notification not routed", "method", method)
}

// bad implements connHandler: a line that could not be used is reported to
// every session of this agent, so their transcripts keep it.
func (a *Agent) bad(err error, line []byte) {
	a.log.Warn("agent line skipped", "err", err, "bytes", len(line))
	sessions := a.sessionList()
	for _, s := range sessions {
		s.h.Bad(err, line)
	}
}

// captureTap keeps copies of the first two lines it sees.
type captureTap struct {
	mu    sync.Mutex
	lines [2][]byte
	n     int
}

func (c *captureTap) Line(_ Dir, _ string, line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n < 2 {
		c.lines[c.n] = append([]byte(nil), line...)
		c.n++
	}
}
