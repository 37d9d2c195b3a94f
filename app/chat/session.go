package chat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"mnote/acp"
	"mnote/store"
	"mnote/thread"
)

// Recorder is the session's transcript: an append-only log of records
// (a *store.Writer).
type Recorder interface {
	AppendRecord(dir, kind string, data []byte) (store.Record, error)
	Sync() error
	Close() error
}

// Indexer is told about every record written, to keep the index current
// (a *store.Indexer sharing the session's thread: for the records that
// change the thread, it is told what the change was).
type Indexer interface {
	Observe(rec store.Record, hint *thread.Update)
	ObserveApplied(rec store.Record, hint *thread.Update, before int, ch thread.Change, ok bool)
	Flush() error
}

// Observer sees the session as it changes. It is called with the session
// locked, in order; it must not call back into the Session.
type Observer interface {
	// Event is called with the session locked; ev is valid only during
	// the call (the session reuses it for the next update).
	Event(ev *Event)
}

// ObserverFunc is a function as an Observer.
type ObserverFunc func(*Event)

// Event calls f.
func (f ObserverFunc) Event(ev *Event) { f(ev) }

// Event types.
const (
	EvUpdate            = "update"
	EvPermission        = "permission"
	EvPermissionDecided = "permission_decided"
	EvTurnStarted       = "turn_started"
	EvTurnEnded         = "turn_ended"
	EvBound             = "bound"
	EvError             = "error"
	EvBad               = "bad"
)

// Event is one change of a session.
type Event struct {
	Type       string
	Update     *thread.Update
	Change     thread.Change
	Changes    []thread.Change
	Permission *acp.PermissionRequest
	Decision   acp.PermissionDecision
	Turn       *TurnResult
	Binding    *Binding
	Err        error
	// Usage is the session's usage after a change of it that came with no
	// update (a vendor notification such as Reasonix's cache figures).
	Usage *thread.Usage
	// Terminal is the terminal after an EvTerminal change that is not
	// output (started, exited, released); output comes as Change.Delta.
	Terminal *thread.Terminal
}

// TurnResult is how a turn ended.
type TurnResult struct {
	Turn       int             `json:"turn"`
	StopReason string          `json:"stopReason"`
	Usage      json.RawMessage `json:"usage,omitempty"`
	Updates    int64           `json:"updates"`
	Error      string          `json:"error,omitempty"`
	Killed     bool            `json:"killed,omitempty"`
}

// Binding is one runtime attached to the session.
type Binding struct {
	Index          int    `json:"binding"`
	Runtime        string `json:"runtime"`
	Command        string `json:"command"`
	AgentSessionID string `json:"agentSessionId"`
	How            string `json:"how"` // new, load, resume, new_fallback
	Note           string `json:"note,omitempty"`
	// NoteReason says which note it is (NoteCannotResume,
	// NoteCannotContinue) and NoteCause the agent's own words, for the
	// page to word it; neither is recorded.
	NoteReason string `json:"-"`
	NoteCause  string `json:"-"`
}

// Binding.NoteReason values.
const (
	// NoteCannotResume: the agent cannot load or resume sessions.
	NoteCannotResume = "cannot_resume"
	// NoteCannotContinue: the agent refused to continue its session.
	NoteCannotContinue = "cannot_continue"
)

// Config creates a Session.
type Config struct {
	ID        string
	Workspace string
	Recorder  Recorder
	Indexer   Indexer // may be nil
	Observer  Observer
	Broker    acp.PermissionBroker // the user's decisions; nil cancels every request
	Thread    *thread.Thread       // a thread rebuilt from the transcript, or nil
	Turns     int                  // turns already in the transcript
	Bindings  int                  // bindings already in the transcript
	Logger    *slog.Logger
}

// Session is one product session.
type Session struct {
	ID        string
	workspace string
	log       *slog.Logger
	rec       Recorder
	ix        Indexer
	obs       Observer
	broker    acp.PermissionBroker

	mu        sync.Mutex
	th        *thread.Thread
	as        *acp.Session
	binding   *Binding
	nBindings int
	turn      int
	updates   int64
	tsMs      int64                 // time of the last record written (the thread's clock)
	ev        Event                 // reused by Update
	replay    int                   // 0 none, 1 replay kept, 2 replay dropped
	termOut   map[string]*termCount // output recorded per terminal (terminal.go)
	allowed   allowedWrites         // what the user allowed in this turn (readonly.go)
	writeErr  error
}

// New makes a session around an open transcript.
func New(cfg Config) *Session {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	th := cfg.Thread
	if th == nil {
		th = thread.New()
	}
	s := &Session{
		ID: cfg.ID, workspace: cfg.Workspace, log: cfg.Logger.With("session", cfg.ID),
		rec: cfg.Recorder, ix: cfg.Indexer, obs: cfg.Observer, broker: cfg.Broker,
		th: th, turn: cfg.Turns, nBindings: cfg.Bindings,
	}
	// Entries are stamped with the time of the record that made them, as
	// a replay of the transcript stamps them (store's reducer).
	th.Clock = func() time.Time {
		if s.tsMs == 0 {
			return time.Now()
		}
		return time.UnixMilli(s.tsMs)
	}
	return s
}

// Thread runs fn with the session's thread, locked.
func (s *Session) Thread(fn func(*thread.Thread)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.th)
}

// Updates counts the session/update notifications received in this process.
func (s *Session) Updates() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updates
}

// Binding returns the current runtime binding, or nil.
func (s *Session) Binding() *Binding {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.binding == nil {
		return nil
	}
	b := *s.binding
	return &b
}

// record writes one record; the first failure is kept and stops the turn.
// Called with s.mu held.
func (s *Session) record(dir, kind string, data []byte, hint *thread.Update) {
	if rec, ok := s.append(dir, kind, data); ok && s.ix != nil {
		s.ix.Observe(rec, hint)
	}
}

// append writes one record; false when the transcript has failed.
func (s *Session) append(dir, kind string, data []byte) (store.Record, bool) {
	if s.writeErr != nil {
		return store.Record{}, false
	}
	rec, err := s.rec.AppendRecord(dir, kind, data)
	if err != nil {
		s.failWrite(err)
		return rec, false
	}
	s.tsMs = rec.TsMs
	return rec, true
}

// applied tells the index what a thread call changed for rec.
func (s *Session) applied(rec store.Record, written bool, hint *thread.Update, before int, ch thread.Change, ok bool) {
	if written && s.ix != nil {
		s.ix.ObserveApplied(rec, hint, before, ch, ok)
	}
}

func (s *Session) recordApp(kind string, v any) {
	if b, ok := s.encode(kind, v); ok {
		s.record("app", kind, b, nil)
	}
}

func (s *Session) encode(kind string, v any) ([]byte, bool) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.Error("app record not encoded", "kind", kind, "err", err)
		return nil, false
	}
	return b, true
}

func (s *Session) failWrite(err error) {
	s.writeErr = fmt.Errorf("the transcript could not be written, so the turn was stopped: %w", err)
	s.log.Error("transcript write failed", "err", err)
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvError, Err: s.writeErr})
	}
	if as := s.as; as != nil {
		go as.Cancel()
	}
}

// sync flushes the transcript to disk; called with s.mu held.
func (s *Session) sync() {
	if s.writeErr != nil {
		return
	}
	if err := s.rec.Sync(); err != nil {
		s.failWrite(err)
	}
	if s.ix != nil {
		if err := s.ix.Flush(); err != nil {
			s.log.Warn("index not updated; it will be rebuilt from the transcript", "err", err)
		}
	}
}

// WriteError is the transcript failure that stopped the session, if any.
func (s *Session) WriteError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeErr
}

// Start records the first record of a new session.
func (s *Session) Start(title string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordApp("session", map[string]any{"id": s.ID, "title": title, "workspace": s.workspace, "createdMs": time.Now().UnixMilli()})
	s.sync()
	return s.writeErr
}

// Line implements acp.SessionHandler. The secrets of the mcpServers sent
// with a session are not recorded (redactMCPSecrets).
func (s *Session) Line(dir acp.Dir, kind string, line []byte) {
	if string(dir) == store.DirOut {
		switch kind {
		case store.KindSessionNew, store.KindSessionLoad, store.KindSessionResume, store.KindSessionFork:
			line = redactMCPSecrets(line)
		case store.KindSessionPrompt:
			line = thread.RedactPromptLine(line) // images are kept beside the transcript
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(string(dir), kind, line, nil)
}

// Update implements acp.SessionHandler.
func (s *Session) Update(u *thread.Update, line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updates++
	if s.replay == 2 {
		return // history the thread already has (session/load)
	}
	// On disk (in the buffer) first, then shown.
	rec, written := s.append("in", "session/update", line)
	before := s.th.Len()
	ch, err := s.th.Apply(u)
	s.applied(rec, written, u, before, ch, err == nil)
	if err != nil {
		s.log.Debug("update skipped", "kind", u.SessionUpdate, "err", err)
		return
	}
	if s.obs != nil {
		// One Event reused for every update (it would be the largest
		// allocation of a streaming turn).
		s.ev = Event{Type: EvUpdate, Update: u, Change: ch}
		s.obs.Event(&s.ev)
		s.ev = Event{}
	}
}

// Notification implements acp.SessionHandler. Every notification is kept
// in the transcript; those that carry session state the thread knows
// (Reasonix's status with its prompt-cache figures) also change the thread,
// and the observer gets the new usage.
func (s *Session) Notification(method string, params json.RawMessage, line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record("in", method, line, nil)
	ch, err := s.th.ApplyNotification(method, params)
	if err != nil {
		if !errors.Is(err, thread.ErrUnknownKind) {
			s.log.Debug("notification not applied", "method", method, "err", err)
		}
		return
	}
	if ch.Op != "" && s.obs != nil {
		u := s.th.Usage()
		s.obs.Event(&Event{Type: EvUpdate, Change: ch, Usage: &u})
	}
}

// Bad implements acp.SessionHandler: the line is kept raw.
func (s *Session) Bad(err error, line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if line != nil {
		if json.Valid(line) {
			s.record("in", acp.KindMalformed, line, nil)
		} else {
			s.record("in", acp.KindMalformed, store.MalformedData(line), nil)
		}
	}
	s.recordApp("error", map[string]any{"turn": s.turn, "message": err.Error()})
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvBad, Err: err})
	}
}

// RequestPermission implements acp.PermissionBroker around the owner's
// broker: the request and the decision are recorded and shown.
func (s *Session) RequestPermission(ctx context.Context, req *acp.PermissionRequest) (acp.PermissionDecision, error) {
	opts, _ := json.Marshal(req.Options)
	s.mu.Lock()
	turn := s.turn
	data, _ := s.encode("permission_asked", map[string]any{"turn": turn, "toolCallId": req.ToolCallID, "title": req.Title, "kind": req.Kind, "options": req.Options})
	rec, written := s.append("app", "permission_asked", data)
	before := s.th.Len()
	ch, err := s.th.PermissionRequested(req.ToolCall, opts)
	s.applied(rec, written, nil, before, ch, err == nil)
	if err != nil {
		s.log.Warn("permission request not shown in the thread", "err", err)
	}
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvPermission, Permission: req, Change: ch})
	}
	s.mu.Unlock()

	var d acp.PermissionDecision
	by := "user"
	if s.broker != nil {
		d, err = s.broker.RequestPermission(ctx, req)
		if err != nil || ctx.Err() != nil {
			d = acp.PermissionDecision{}
		}
	}
	if d.By != "" {
		by = d.By
	}
	if d.OptionID == "" {
		by = "cancel"
	}
	outcome, kind := "cancelled", ""
	if d.OptionID != "" {
		outcome = "selected"
		for _, o := range req.Options {
			if o.OptionID == d.OptionID {
				kind = o.Kind
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasPrefix(kind, "allow") && turn == s.turn {
		s.noteAllowed(req)
	}
	ch = s.th.PermissionResolved(req.ToolCallID, outcome, kind)
	s.recordApp("permission_decided", map[string]any{"turn": turn, "toolCallId": req.ToolCallID, "outcome": outcome, "optionId": d.OptionID, "optionKind": kind, "by": by})
	s.sync()
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvPermissionDecided, Permission: req, Decision: d, Change: ch})
	}
	return d, nil
}

// FileWritten records a write an agent made through fs/write_text_file.
func (s *Session) FileWritten(path string, before, after []byte, existed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The new content is in the agent's fs/write_text_file line just
	// before; the old one is kept here (up to maxBeforeText), so the
	// transcript alone tells what the write replaced.
	rec := map[string]any{"turn": s.turn, "path": path, "afterSha256": sha(after), "bytes": len(after)}
	if existed {
		rec["beforeSha256"] = sha(before)
		if len(before) <= maxBeforeText {
			rec["before"] = string(before)
		}
	}
	s.recordApp("file_written", rec)
}

// maxBeforeText bounds the old content a file_written record keeps.
const maxBeforeText = 1 << 20

// FSRefused records an fs/* request the workspace refused (a path outside
// it, a device, a hard link...).
func (s *Session) FSRefused(path, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordApp("fs_refused", map[string]any{"turn": s.turn, "path": path, "reason": reason})
}

// ChangesReviewed records the person's review of a turn's changes (hunks
// kept, rejected or restored; a revert undone), on disk at once: it
// happens outside a turn.
func (s *Session) ChangesReviewed(rec map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordApp("changes_reviewed", rec)
	s.sync()
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// ErrNoRuntime is returned by Prompt before a runtime is bound.
var ErrNoRuntime = errors.New("no agent is attached to this session")
