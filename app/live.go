package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"mnote/acp"
	"mnote/acp/runtimes"
	"mnote/app/chat"
	"mnote/app/shared"
	"mnote/store"
	"mnote/thread"
	"mnote/workspace"
)

// Live session statuses (SessionSummary.status) besides the index's.
const (
	StatusNew       = "new"
	StatusRunning   = "running"
	StatusReady     = "ready"
	StatusExited    = "exited"
	StatusFailed    = "failed"
	StatusNeedsAuth = "needs_auth"
)

// liveSession is a session open in this process: its transcript held for
// appending, its thread, its event goroutine and (once bound) its agent
// process. Agents are started per session for now.
type liveSession struct {
	s         *Services
	id        string
	workspace string
	pump      *pump
	sess      *chat.Session
	agent     atomic.Pointer[acp.Agent]
	closed    chan struct{} // closed once close finished

	// opMu serializes binding, the agent watcher's records and closing.
	opMu sync.Mutex

	mu             sync.Mutex
	runtime        string // runtime name of the current or last binding
	agentSessionID string // of the current or last binding, to continue it
	title          string
	status         string // when no turn runs: new, ready, exited, failed, needs_auth
	busy           string // "", "turn" or "switch"
	cancelTurn     context.CancelFunc
	turnCtx        context.Context // the running turn's, for the notes tools
	turnDone       chan struct{}
	closing        bool
	plainWS        *workspace.Workspace // the folder, for confinement only (agentFS)
	cpTold         string               // the last "no checkpoint" notice given
	exitTold       *acp.Agent           // an agent whose exit a failed turn told
	mcpToken       string               // the notes tools' token (mcp.go)

	// rec is the transcript (a shared session's log is recorded on it);
	// sharedTurn the shared run the agent's updates feed, if any.
	rec        *store.Writer
	sharedTurn atomic.Pointer[shared.Turn]
}

// newLive makes a live session around an open transcript w (its Indexer
// x shares th). It is not registered yet.
func (s *Services) newLive(id, workspace string, th *thread.Thread, w *store.Writer, x *store.Indexer, turns, bindings int) *liveSession {
	l := &liveSession{s: s, id: id, workspace: workspace, closed: make(chan struct{}), status: StatusNew, rec: w}
	s.mu.Lock()
	seq := s.seqs[id]
	s.mu.Unlock()
	l.pump = newPump(id, s.em, th, seq, l.stderrTail)
	l.pump.heldBack = l.heldBack
	l.sess = chat.New(chat.Config{
		ID: id, Workspace: workspace, Recorder: w, Indexer: x, Observer: chat.ObserverFunc(l.observe), Broker: l,
		Thread: th, Turns: turns, Bindings: bindings, Logger: s.log,
	})
	l.pump.sess.Store(l.sess)
	return l
}

// RequestPermission implements acp.PermissionBroker.
func (l *liveSession) RequestPermission(ctx context.Context, req *acp.PermissionRequest) (acp.PermissionDecision, error) {
	return l.s.perms.ask(ctx, l, req)
}

// ruleKey is what remembered permission rules are keyed by.
func (l *liveSession) ruleKey() (agent, workspace string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runtime, l.workspace
}

func (l *liveSession) stderrTail() string {
	if a := l.agent.Load(); a != nil {
		return strings.TrimSpace(a.StderrTail(20))
	}
	return ""
}

// heldBack names the session's agent and the variables that look like
// keys which mnote held back from it, for a needs-auth notice.
func (l *liveSession) heldBack() (string, []string) {
	l.mu.Lock()
	name := l.runtime
	l.mu.Unlock()
	if name == "" {
		return "", nil
	}
	rt, e := l.s.runtime(name)
	if e != nil {
		return "", nil
	}
	return rt.Name, l.s.det.HeldBack(rt)
}

// statusNow is the session's status for SessionSummary.
func (l *liveSession) statusNow() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.busy == "turn" {
		return StatusRunning
	}
	return l.status
}

// titleNow is the thread's title (the user's, else the agent's own from
// session_info_update, else mnote's guess), else the one the session was
// opened with.
func (l *liveSession) titleNow() string {
	var t string
	l.sess.Thread(func(th *thread.Thread) { t = th.Title() })
	if t != "" {
		return t
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.title
}

// createLive starts a new session with a running agent.
func (s *Services) createLive(ctx context.Context, agentName, cwd string) (*liveSession, *Error) {
	return s.createLiveFrom(ctx, agentName, cwd, "", "")
}

// createLiveFrom starts a new session; with agentSessionID it brings in
// that agent session by session/load (import.go), its history replayed
// into the new thread, titled title until the agent names it.
func (s *Services) createLiveFrom(ctx context.Context, agentName, cwd, agentSessionID, title string) (_ *liveSession, e *Error) {
	rt, e := s.runtime(agentName)
	if e != nil {
		return nil, e
	}
	res, e := s.resolve(rt)
	if e != nil {
		s.noteAgent(rt.Name, e)
		return nil, e
	}
	// Starting… until session/new (or load) answers, with a Cancel.
	ctx, end := s.startSpan(ctx, rt)
	defer func() { e = end(asError(e)) }()
	a, err := s.pool.acquire(ctx, rt, res, cwd)
	if err != nil {
		s.noteAgent(rt.Name, err)
		return nil, s.bindError(rt, nil, err)
	}
	if agentSessionID != "" && !a.Init.AgentCapabilities.LoadSession {
		s.pool.release(a)
		return nil, badRequest("%s cannot load its sessions (no loadSession capability), so none can be imported", rt.Title).why(ReasonAgentCannotLoadSessions, "agent", rt.Title)
	}
	id := strings.ToLower(ulid.Make().String())
	path := s.paths.TranscriptPath(id)
	w, err := store.CreateTranscript(path, store.WriterOptions{})
	if err != nil {
		s.pool.release(a)
		return nil, newError(CodeWriteFailed, "the new session could not be saved: %w", err).why(ReasonTranscriptWriteFailed)
	}
	th := thread.New()
	x := s.ix.NewSharedIndexer(id, th)
	x.SetPath(path)
	l := s.newLive(id, cwd, th, w, x, 0, 0)
	if err := l.sess.Start(title); err != nil {
		s.pool.release(a)
		s.discardNew(l)
		return nil, newError(CodeWriteFailed, "%w", err).why(ReasonTranscriptWriteFailed)
	}
	fsys, err := l.agentFS()
	if err != nil {
		s.pool.release(a)
		s.discardNew(l)
		return nil, workspaceError("new session", err)
	}
	b, err := l.sess.Bind(ctx, a, chat.BindOptions{Runtime: rt.Name, Command: runtimes.CommandLine(res.Path, res.Args), Cwd: cwd, FS: fsys,
		McpServers: l.mcpServers(rt, a), AgentSessionID: agentSessionID, AdditionalDirectories: s.extraDirs(rt)})
	if err != nil {
		e := s.bindError(rt, a, err)
		s.releaseBound(ctx, a, err)
		s.noteAgent(rt.Name, err)
		// Nothing of the user's is in it yet: do not leave it listed.
		s.discardNew(l)
		return nil, e
	}
	if agentSessionID != "" && b.How != "load" {
		// An import that did not load the agent's session would be an
		// empty new one: refuse it.
		s.discardNew(l)
		s.pool.release(a)
		return nil, (&Error{Code: CodeNotFound, Message: fmt.Sprintf("%s could not load its session %q", rt.Title, agentSessionID), Details: b.Note}).why(ReasonAgentSessionNotLoaded, "agent", rt.Title)
	}
	l.bound(a, rt.Name, b)
	s.noteAgent(rt.Name, nil)

	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		s.closeLive(l)
		return nil, shutdownError()
	}
	s.live[id] = l
	s.mu.Unlock()
	return l, nil
}

// discardNew closes a session that failed to start and removes its files.
func (s *Services) discardNew(l *liveSession) {
	l.revokeMCP()
	if err := l.sess.Close(); err != nil {
		s.log.Debug("closing a discarded session", "err", err)
	}
	l.pump.stop()
	if err := os.Remove(s.paths.TranscriptPath(l.id)); err != nil {
		s.log.Warn("removing a discarded session", "err", err)
	}
	if err := s.ix.Remove(context.Background(), l.id); err != nil {
		s.log.Warn("removing a discarded session from the index", "err", err)
	}
	close(l.closed)
}

// bound takes a new binding's agent, stopping the one it replaces.
func (l *liveSession) bound(a *acp.Agent, runtime string, b *chat.Binding) {
	old := l.agent.Swap(a)
	l.mu.Lock()
	l.runtime, l.agentSessionID, l.status = runtime, b.AgentSessionID, StatusReady
	l.mu.Unlock()
	if old != nil {
		l.s.pool.release(old)
	}
	if err := l.sess.RecordRuntimeStatus(StatusReady, nil, ""); err != nil {
		l.s.log.Warn("runtime status not recorded", "session", l.id, "err", err)
	}
	go l.watch(a)
}

// watch notices an agent process that exits on its own.
func (l *liveSession) watch(a *acp.Agent) {
	<-a.Done()
	l.opMu.Lock()
	defer l.opMu.Unlock()
	l.mu.Lock()
	mine := !l.closing && l.agent.Load() == a
	// A turn running, or one that failed with this exit, tells it: one
	// notice per failure.
	inTurn := l.busy == "turn" || l.exitTold == a
	if mine {
		l.status = StatusFailed
	}
	l.mu.Unlock()
	if !mine || !l.agent.CompareAndSwap(a, nil) {
		return
	}
	l.s.pool.release(a)
	ee := a.ExitError()
	var code *int
	tail := ""
	if ee != nil {
		code, tail = &ee.Code, strings.TrimSpace(ee.StderrTail)
	}
	if err := l.sess.RecordRuntimeStatus(StatusFailed, code, tail); err != nil {
		l.s.log.Warn("runtime status not recorded", "session", l.id, "err", err)
	}
	if !inTurn {
		n := NoticePayload{Level: "warn", Reason: ReasonAgentStopped, Message: "The agent stopped.", Details: tail, Action: "restart"}
		if ee != nil {
			n.Reason, n.Message, n.Params = ReasonAgentExited, "The agent stopped: "+errString(ee), addParams(nil, exitParams(ee)...)
		}
		l.pump.event(EvNotice, n)
	}
	l.pump.global(EventSessionsChanged, l.s.changedPayload(l.id))
}

// bind starts the named agent and binds it: continuing agentSessionID
// when given (session/load, resume, or a new agent session), else a new
// agent session.
func (l *liveSession) bind(ctx context.Context, runtime, agentSessionID string) (e *Error) {
	l.opMu.Lock()
	defer l.opMu.Unlock()
	l.mu.Lock()
	closing := l.closing
	l.mu.Unlock()
	if closing {
		return &Error{Code: CodeBusy, Reason: ReasonSessionClosing, Message: "the session is closing"}
	}
	s := l.s
	rt, e := s.runtime(runtime)
	if e != nil {
		return e
	}
	res, e := s.resolve(rt)
	if e != nil {
		s.noteAgent(rt.Name, e)
		return e
	}
	ctx, end := s.startSpan(ctx, rt)
	defer func() { e = end(asError(e)) }()
	a, err := s.pool.acquire(ctx, rt, res, l.workspace)
	if err != nil {
		s.noteAgent(rt.Name, err)
		return s.bindError(rt, nil, err)
	}
	fsys, err := l.agentFS()
	if err != nil {
		s.pool.release(a)
		return workspaceError("start the agent", err)
	}
	b, err := l.sess.Bind(ctx, a, chat.BindOptions{
		Runtime: rt.Name, Command: runtimes.CommandLine(res.Path, res.Args), AgentSessionID: agentSessionID, Cwd: l.workspace,
		FS: fsys, McpServers: l.mcpServers(rt, a), AdditionalDirectories: s.extraDirs(rt),
	})
	if err != nil {
		e := s.bindError(rt, a, err)
		s.releaseBound(ctx, a, err)
		s.noteAgent(rt.Name, err)
		if e.Code == CodeNeedsAuth {
			l.mu.Lock()
			l.status = StatusNeedsAuth
			l.mu.Unlock()
		}
		return e
	}
	l.bound(a, rt.Name, b)
	s.noteAgent(rt.Name, nil)
	return nil
}

// startTurn runs a prompt on a goroutine and returns its turn number.
func (l *liveSession) startTurn(text string, parts *promptParts) (int, *Error) {
	s := l.s
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return 0, &Error{Code: CodeBusy, Reason: ReasonSessionClosing, Message: "the session is closing"}
	}
	if l.busy != "" {
		l.mu.Unlock()
		return 0, &Error{Code: CodeBusy, Reason: ReasonTurnRunning, Message: "a turn is already running in this session; cancel it or wait"}
	}
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		l.mu.Unlock()
		return 0, shutdownError()
	}
	s.turns.Add(1)
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	l.busy, l.cancelTurn, l.turnDone, l.turnCtx = "turn", cancel, done, ctx
	l.mu.Unlock()

	turn := l.sess.Turns() + 1
	l.pump.turn.Store(int64(turn))
	go l.runTurn(ctx, cancel, done, text, parts, turn)
	return turn, nil
}

func (l *liveSession) runTurn(ctx context.Context, cancel context.CancelFunc, done chan struct{}, text string, parts *promptParts, turn int) {
	defer l.s.turns.Done()
	var ended *TurnPayload // how the turn ended, when chat did not say
	defer func() {
		cancel()
		if ended == nil {
			ended = l.pump.ended.Swap(nil)
		}
		// The session takes a new prompt before the page hears that the
		// turn ended, and nothing of a next turn comes before it.
		l.mu.Lock()
		l.busy, l.cancelTurn, l.turnDone, l.turnCtx = "", nil, nil, nil
		if ended != nil {
			l.pump.event(EvTurn, *ended)
		}
		l.mu.Unlock()
		close(done)
		l.pump.global(EventSessionsChanged, l.s.changedPayload(l.id))
	}()
	l.pump.ended.Store(nil)
	l.pump.global(EventSessionsChanged, l.s.changedPayload(l.id))
	cancelled := &TurnPayload{State: "ended", Turn: turn, StopReason: acp.StopCancelled}

	if a := l.agent.Load(); a == nil || exited(a) {
		l.mu.Lock()
		runtime, asid := l.runtime, l.agentSessionID
		l.mu.Unlock()
		if runtime == "" {
			ended = l.failTurn(turn, &Error{Code: CodeAgentMissing, Reason: ReasonNoAgent, Message: "this session has no agent; pick one with sessions.switchAgent"})
			return
		}
		if e := l.bind(ctx, runtime, asid); e != nil {
			if ctx.Err() != nil || e.Reason == ReasonAgentStartCancelled {
				ended = cancelled
				return
			}
			ended = l.failTurn(turn, e)
			return
		}
	}
	if l.titleNow() == "" {
		t := chat.TitleFromPrompt(text)
		if err := l.sess.GuessTitle(t); err == nil {
			l.mu.Lock()
			l.title = t
			l.mu.Unlock()
		}
	}
	if ctx.Err() != nil {
		ended = cancelled
		return
	}
	// The workspace keeps what this turn changes (a checkpoint), whether
	// the agent writes through mnote or to the disk itself.
	if w := l.s.ws.at(l.workspace); w != nil && w.Checkpoints() != nil && l.checkpointsReady(w) {
		id := turnID(l.id, turn)
		if err := w.Checkpoints().BeginTurn(id); err != nil {
			l.s.log.Warn("turn checkpoint not started; its changes cannot be reverted", "session", l.id, "err", err)
		} else {
			defer func() {
				if _, err := w.Checkpoints().EndTurn(id); err != nil {
					l.s.log.Warn("turn checkpoint not stored", "session", l.id, "err", err)
				}
			}()
		}
	}
	a := l.agent.Load()
	if e := l.prepareImages(parts, a); e != nil { // images.go
		ended = l.failTurn(turn, e)
		return
	}
	blocks := parts.blocks(text, a)
	promptFailed := true
	var st *shared.Turn
	if l.s.shared != nil && l.s.shared.IsShared(l.id) {
		// A shared session's turn runs here under the session's lease.
		t, e := l.beginShared(ctx, text, parts, turn)
		if e != nil {
			if ctx.Err() != nil {
				ended = cancelled
				return
			}
			ended = l.failTurn(turn, e)
			return
		}
		st = t
		blocks = t.Blocks(blocks)
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer stop()
		go t.Watch(ctx, stop)
		defer func() {
			l.sharedTurn.Store(nil)
			if err := t.Finish(promptFailed); err != nil {
				l.s.log.Warn("shared turn not ended in the log", "session", l.id, "err", err)
			}
		}()
	}
	res, err := l.sess.Prompt(ctx, blocks)
	promptFailed = err != nil || res == nil || res.StopReason == acp.StopCancelled
	if st != nil && st.Err() != nil {
		// The control plane failed mid-turn: the turn fails visibly.
		ended = l.failTurn(turn, sharedError(st.Err()))
		return
	}
	if ee := (*acp.ExitError)(nil); errors.As(err, &ee) {
		l.mu.Lock()
		l.exitTold = a
		l.mu.Unlock()
	}
	if res == nil && err != nil {
		// The turn did not start (no agent, a failed transcript).
		e := &Error{Code: CodeInternal, Message: err.Error(), cause: err}
		if errors.Is(err, chat.ErrNoRuntime) {
			e.Code, e.Reason = CodeAgentMissing, ReasonNoAgent
		} else if l.sess.WriteError() != nil {
			e.Code, e.Reason = CodeWriteFailed, ReasonTranscriptWriteFailed
		}
		ended = l.failTurn(turn, e.classify(err).why(cmp.Or(e.Reason, ReasonTurnFailed)))
	}
}

// observe passes the agent's updates to the shared run, if any, and to
// the page.
func (l *liveSession) observe(ev *chat.Event) {
	if t := l.sharedTurn.Load(); t != nil {
		t.Event(ev)
	}
	l.pump.Event(ev)
}

// beginShared takes a shared session's lease for this turn: the page is
// told the queue position, the agent gets the conversation's context.
// What members see beyond the projection's minimum is the prompt's
// choice (parts.share).
func (l *liveSession) beginShared(ctx context.Context, text string, parts *promptParts, turn int) (*shared.Turn, *Error) {
	_, root := l.ruleKey()
	a := shared.TurnArgs{Text: text, Turn: turn, Root: root}
	if b := l.sess.Binding(); b != nil {
		a.Held = b.How == store.HowLoad || b.How == store.HowResume
	}
	if parts != nil {
		for _, f := range parts.files {
			a.Mentions = append(a.Mentions, f.rel)
		}
		a.Share = parts.share
	}
	t, err := l.s.shared.BeginTurn(ctx, l.id, a)
	if err != nil {
		return nil, sharedError(err)
	}
	l.sharedTurn.Store(t)
	return t, nil
}

// checkpointsReady waits a little for the workspace's first scan (a big
// folder takes a while after it is opened); a turn does not wait longer:
// it runs without a checkpoint, and the page is told its changes cannot be
// reverted.
func (l *liveSession) checkpointsReady(w *workspace.Workspace) bool {
	ready := make(chan error, 1)
	go func() { ready <- w.Checkpoints().Ready() }()
	t := time.NewTimer(checkpointWait)
	defer t.Stop()
	n := NoticePayload{Level: "info", Reason: ReasonCheckpointsScanning,
		Message: "mnote is still scanning this folder, so the changes of this turn will not be kept for revert."}
	select {
	case err := <-ready:
		if err == nil {
			return true
		}
		l.s.log.Warn("checkpoints unavailable", "dir", w.Dir(), "err", err)
		n.Reason, n.Message, n.Details = ReasonCheckpointsUnavailable, "The changes of this turn are not kept for revert: "+err.Error(), err.Error()
		if errors.Is(err, workspace.ErrTooBig) {
			n.Reason = ReasonCheckpointsTooBig
		}
	case <-t.C:
	}
	l.mu.Lock()
	told := l.cpTold == n.Message
	l.cpTold = n.Message
	l.mu.Unlock()
	if !told { // once, not on every turn
		l.pump.event(EvNotice, n)
	}
	return false
}

// checkpointWait is how long a turn waits for the workspace's first scan.
var checkpointWait = 3 * time.Second

// failTurn tells the page why a turn could not run and returns its end.
// The notice is the one banner of the failure: the turn's end says
// stopReason "error" without repeating it.
func (l *liveSession) failTurn(turn int, e *Error) *TurnPayload {
	n := NoticePayload{Level: "error", Code: e.Code, Reason: e.Reason, Params: e.Params, Message: e.Message, Details: e.Details}
	switch e.Code {
	case CodeNeedsAuth:
		n.Action = "login"
	case CodeAgentFailed:
		n.Action = "restart"
	}
	l.pump.event(EvNotice, n)
	return &TurnPayload{State: "ended", Turn: turn, StopReason: "error"}
}

func exited(a *acp.Agent) bool {
	select {
	case <-a.Done():
		return true
	default:
		return false
	}
}

// turnContext is the running turn's context, or nil.
func (l *liveSession) turnContext() context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.turnCtx
}

// cancel cancels the running turn, if any.
func (l *liveSession) cancel() {
	l.mu.Lock()
	cancel := l.cancelTurn
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// closeLive closes a live session: the running turn is cancelled (its
// pending permission requests answered cancelled) and given the cancel
// grace to end, the agent is stopped, the transcript closed.
func (s *Services) closeLive(l *liveSession) {
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		<-l.closed
		return
	}
	l.closing = true
	cancel, done := l.cancelTurn, l.turnDone
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if done != nil {
		grace := s.cfg.CancelGrace
		if grace <= 0 {
			grace = 10 * time.Second
		}
		t := time.NewTimer(grace + 5*time.Second)
		select {
		case <-done:
		case <-t.C:
			s.log.Warn("the turn did not end after cancel; stopping the agent", "session", l.id)
		}
		t.Stop()
	}
	l.opMu.Lock()
	if a := l.agent.Swap(nil); a != nil {
		// Detach first (pending permissions answered cancelled), then give
		// the process back: it stops when no other session uses it.
		if err := l.sess.Detach(); err != nil {
			s.log.Warn("detaching the agent", "session", l.id, "err", err)
		}
		s.pool.release(a)
		if err := l.sess.RecordRuntimeStatus(StatusExited, nil, ""); err != nil {
			s.log.Warn("runtime status not recorded", "session", l.id, "err", err)
		}
	}
	l.revokeMCP()
	closeErr := l.sess.Close()
	if closeErr != nil {
		s.log.Warn("closing the session", "session", l.id, "err", closeErr)
	} else {
		var snap thread.Snapshot
		l.sess.Thread(func(th *thread.Thread) { snap = th.Snapshot() })
		s.cacheThread(l.id, snap)
	}
	if w := s.ws.at(l.workspace); w != nil {
		w.ForgetReader(l.id) // what its agent read is no base for anyone's write
	}
	l.mu.Lock()
	if l.plainWS != nil {
		l.plainWS.Close()
		l.plainWS = nil
	}
	l.mu.Unlock()
	l.opMu.Unlock()
	l.pump.stop()
	s.mu.Lock()
	if s.live[l.id] == l {
		delete(s.live, l.id)
	}
	s.seqs[l.id] = l.pump.Seq()
	s.mu.Unlock()
	close(l.closed)
}

// liveOf returns the live session with this id, or nil.
func (s *Services) liveOf(id string) *liveSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[id]
}

// openLive returns the live session, opening a recorded one to continue
// it (its transcript for appending, its thread rebuilt in the pass that
// brings its index up to date; no agent is started).
func (s *Services) openLive(ctx context.Context, id string) (*liveSession, *Error) {
	opened := make(chan struct{})
	for {
		s.mu.Lock()
		if l := s.live[id]; l != nil {
			s.mu.Unlock()
			return l, nil
		}
		if s.shutdown {
			s.mu.Unlock()
			return nil, shutdownError()
		}
		wait, busy := s.opening[id]
		if !busy {
			s.opening[id] = opened
			s.mu.Unlock()
			break
		}
		s.mu.Unlock()
		select {
		case <-wait: // opened (or failed) by another call: look again
		case <-ctx.Done():
			return nil, errorFrom("open session "+id, ctx.Err())
		}
	}
	defer func() {
		s.mu.Lock()
		delete(s.opening, id)
		s.mu.Unlock()
		close(opened)
	}()

	path := s.paths.TranscriptPath(id)
	if _, err := os.Stat(path); err != nil {
		return nil, notFound(id, err)
	}
	w, err := store.OpenTranscript(path, store.WriterOptions{})
	if err != nil {
		return nil, errorFrom("open session "+id, err)
	}
	x, err := s.ix.ResumeIndexer(ctx, path)
	if err != nil {
		w.Close()
		return nil, errorFrom("read session "+id, err)
	}
	x.Share()
	info := x.Info()
	l := s.newLive(id, info.Workspace, x.Thread(), w, x, info.Turns, len(info.Bindings))
	l.title = info.Title
	l.status = info.Status
	if l.status == StatusRunning || l.status == StatusReady {
		l.status = StatusExited // its agent is not running now
	}
	if n := len(info.Bindings); n > 0 {
		b := info.Bindings[n-1]
		l.runtime, l.agentSessionID = b.Runtime, b.AgentSessionID
	}
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		s.closeLive(l)
		return nil, shutdownError()
	}
	s.live[id] = l
	s.mu.Unlock()
	return l, nil
}

func notFound(id string, err error) *Error {
	return &Error{Code: CodeNotFound, Reason: ReasonSessionNotFound, Message: fmt.Sprintf("there is no session %q", id), cause: err}
}
