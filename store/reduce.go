package store

import (
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"time"

	"mnote/thread"
)

// This file is the one place that turns transcript records into state:
// the thread (for LoadThread) and the index rows (for the Indexer, live
// and in rebuilds).

// SessionInfo is what a transcript says about its session.
type SessionInfo struct {
	ID             string
	Title          string
	Workspace      string
	CreatedMs      int64
	UpdatedMs      int64 // time of the last activity: the last record of a turn, else the creation
	Runtime        string
	Bindings       []Binding
	Turns          int
	LastStopReason string
	// Status is "running" while a turn is open, else the last binding's
	// runtime status (ready, exited, failed, needs_auth), else "new". The
	// index says "interrupted" for a turn left open by a Writer that is
	// gone (mnote killed mid-turn; see Index.Reconcile).
	Status    string
	Updates   int // session/update notifications
	Messages  int // user and assistant messages
	ToolCalls int
	LastSeq   int64
	// ForkedFrom is the session and turn this one was forked from, if any.
	ForkedFrom ForkRef
}

// Binding is one runtime binding of a session: an agent session serving it.
type Binding struct {
	Binding        int
	Runtime        string
	Command        string
	AgentSessionID string
	How            string // new, load, resume, new_fallback
	Note           string
	Status         string // ready, exited, failed, needs_auth; "" until reported
	CreatedMs      int64
	UpdatedMs      int64
}

// Turn is one prompt turn.
type Turn struct {
	Turn         int
	StartedMs    int64
	EndedMs      int64
	StopReason   string
	Error        string
	Usage        json.RawMessage // as recorded in turn_ended, nil if none
	InputTokens  int64
	OutputTokens int64
	// Prompt-cache figures of the turn, when the agent reports them
	// (Reasonix): the last report while the turn was open.
	CacheHitTokens  int64
	CacheMissTokens int64
	CacheHitRatio   float64
}

// Session statuses beyond the runtime ones.
const (
	StatusNew     = "new"
	StatusRunning = "running"
	// StatusInterrupted: a turn was open when its writer went away (mnote
	// was killed or crashed mid-turn); nothing will end it.
	StatusInterrupted = "interrupted"
	StatusDeleted     = "deleted" // indexed from the trash
)

// ftsRow is one message for messages_fts.
type ftsRow struct {
	ordinal int // rowid = session num << 32 | ordinal
	entry   string
	turn    int
	role    string
	text    []byte
	written bool // a partial version is in the index already
	dirty   bool // changed since written
}

// reducer replays records into a thread and, when index is set, tracks
// the index rows.
type reducer struct {
	th    *thread.Thread
	info  SessionInfo
	index bool

	titleSet bool // the user named the session: agents' titles no longer apply
	bindings map[int]*Binding
	turnOpen bool
	requests map[string]string      // id of an outgoing session/new|load|resume → method
	perms    map[string]permRequest // id of an incoming request_permission → its params

	// Index tracking.
	turns      map[int]*Turn
	dirtyTurns map[int]bool
	dirtyBinds map[int]bool
	open       *ftsRow
	last       *ftsRow // the newest row, which a short answer may extend
	// shared: th belongs to a live session, which applies every change
	// itself and tells the reducer what it got (see Indexer.ObserveApplied);
	// the reducer then never mutates th.
	shared    bool
	openEntry string // the thread entry streaming into open
	closed    []*ftsRow
	end       int64 // End of the last record seen
	// ts is the time of the record being applied: a thread the reducer
	// builds stamps its entries with it, as the live thread did.
	ts int64
}

type permRequest struct {
	toolCall, options json.RawMessage
}

func newReducer(id string, index bool) *reducer {
	r := &reducer{
		th:       thread.New(),
		index:    index,
		bindings: make(map[int]*Binding),
		requests: make(map[string]string),
		perms:    make(map[string]permRequest),
	}
	r.th.Clock = func() time.Time { return time.UnixMilli(r.ts) }
	r.info.ID = id
	if index {
		r.turns = make(map[int]*Turn)
		r.dirtyTurns = make(map[int]bool)
		r.dirtyBinds = make(map[int]bool)
	}
	return r
}

// observe applies one record. hint, if not nil, is the decoded update of
// an "in" session/update record.
func (r *reducer) observe(rec Record, hint *thread.Update) {
	var st step
	decodeStep(rec, hint, &st)
	r.apply(&st)
}

// applied is what the owner of a shared thread got from the call that
// corresponds to a record: the thread's length before it and the change.
type applied struct {
	before int
	ch     thread.Change
}

// observeApplied is observe for a shared thread.
func (r *reducer) observeApplied(rec Record, hint *thread.Update, ap *applied) {
	var st step
	decodeStep(rec, hint, &st)
	st.applied = ap
	r.apply(&st)
}

// apply applies one decoded record.
func (r *reducer) apply(st *step) {
	r.ts = st.ts
	r.info.LastSeq = st.seq
	if st.ts > r.info.UpdatedMs && r.activity(st) {
		r.info.UpdatedMs = st.ts
	}
	if st.end > 0 {
		r.end = st.end
	}
	switch st.dir {
	case DirIn:
		switch st.kind {
		case KindSessionUpdate:
			r.info.Updates++
			if r.shared {
				if st.applied != nil {
					r.track(st.applied.before, st.applied.ch)
				}
				if u := st.update; u != nil && u.SessionUpdate == thread.KindSessionInfoUpdate && u.Title != nil && !r.titleSet {
					r.info.Title = *u.Title
				}
			} else if st.update != nil {
				r.applyUpdate(st.update)
			}
		case thread.MethodReasonixStatus:
			if st.cache == nil {
				return
			}
			if !r.shared {
				r.th.SetCacheUsage(*st.cache)
			}
			// The figures belong to the open turn; a status outside a
			// turn (a session/load) leaves the rows as they are.
			if r.turnOpen {
				if tr := r.turn(r.info.Turns); tr != nil {
					tr.CacheHitTokens, tr.CacheMissTokens, tr.CacheHitRatio = st.cache.Turn.HitTokens, st.cache.Turn.MissTokens, st.cache.Turn.HitRatio
				}
			}
		case KindRequestPermission:
			if st.rpcID != "" {
				r.perms[st.rpcID] = permRequest{toolCall: st.toolCall, options: st.options}
			}
		case KindResponse:
			method, ok := r.requests[st.rpcID]
			if !ok {
				return
			}
			delete(r.requests, st.rpcID)
			if r.shared {
				return
			}
			if method == KindSessionPrompt {
				if len(st.usage) > 0 {
					r.th.RecordTurnUsage(st.usage) //nolint:errcheck // unusable usage changes nothing
				}
				return
			}
			r.th.ApplySessionResult(st.result) //nolint:errcheck // a result we cannot read changes nothing
		}
	case DirOut:
		if st.rpcID != "" {
			r.requests[st.rpcID] = st.kind
		}
	case DirApp:
		if st.app != nil {
			r.applyApp(st)
		}
	}
}

// activity tells whether a record is the session's activity (what its
// time in the history is): the creation and everything of a turn. A rename,
// an agent started or stopped (opening the session, quitting mnote) and
// what a session/load replays are not.
func (r *reducer) activity(st *step) bool {
	if r.turnOpen {
		return true
	}
	if st.dir != DirApp {
		return false
	}
	switch st.kind {
	case KindSession, KindTurnStarted, KindPrompt, KindTurnEnded:
		return true
	}
	return false
}

func (r *reducer) applyUpdate(u *thread.Update) {
	before := r.th.Len()
	ch, err := r.th.Apply(u)
	if err != nil {
		return // unknown kinds and unusable updates are skipped, as in the UI
	}
	r.track(before, ch)
	if u.SessionUpdate == thread.KindSessionInfoUpdate && u.Title != nil && !r.titleSet {
		r.info.Title = *u.Title
	}
}

func (r *reducer) applyApp(st *step) {
	switch a := st.app.(type) {
	case *SessionRecord:
		if a.ID != "" && a.ID != r.info.ID {
			slog.Warn("store: transcript's session id differs from its file name; using the file name", "file", r.info.ID, "record", a.ID)
		}
		// The first title is mnote's guess from the first prompt: a
		// title the agent gives later replaces it; one the user gives
		// (a "title" record) is kept.
		if a.Title != "" {
			r.info.Title = a.Title
		}
		r.info.Workspace = a.Workspace
		if a.ForkedFrom != nil {
			r.info.ForkedFrom = *a.ForkedFrom
		}
		r.info.CreatedMs = a.CreatedMs
		if r.info.CreatedMs == 0 {
			r.info.CreatedMs = st.ts
		}
	case *TitleRecord:
		if a.Guess {
			// mnote's guess from the first prompt: only while the
			// session has no title; the agent's own title replaces it.
			if !r.titleSet && r.info.Title == "" {
				r.info.Title = a.Title
				if !r.shared {
					r.th.GuessTitle(a.Title)
				}
			}
			return
		}
		r.info.Title, r.titleSet = a.Title, true
		if !r.shared {
			r.th.SetTitle(a.Title)
		}
	case *RuntimeBoundRecord:
		row := &Binding{Binding: a.Binding, Runtime: a.Runtime, Command: a.Command, AgentSessionID: a.AgentSessionID,
			How: a.How, Note: a.Note, CreatedMs: st.ts, UpdatedMs: st.ts}
		if old := r.bindings[a.Binding]; old != nil {
			row.CreatedMs = old.CreatedMs
		}
		r.bindings[a.Binding] = row
		r.info.Runtime = a.Runtime
		r.bindingChanged(a.Binding)
		if !r.shared {
			before := r.th.Len()
			if ch, ok := r.th.AddBinding(a.Runtime, a.How, a.Note); ok {
				r.track(before, ch)
			}
		}
	case *RuntimeStatusRecord:
		if b := r.bindings[a.Binding]; b != nil {
			b.Status, b.UpdatedMs = a.Status, st.ts
			r.bindingChanged(a.Binding)
		}
	case *TurnStartedRecord:
		r.turnOpen = true
		r.info.Turns = max(r.info.Turns, a.Turn)
		if tr := r.turn(a.Turn); tr != nil {
			tr.StartedMs = st.ts
		}
	case *PromptRecord:
		r.info.Turns = max(r.info.Turns, a.Turn)
		if tr := r.turn(a.Turn); tr != nil && tr.StartedMs == 0 {
			tr.StartedMs = st.ts
		}
		if r.shared {
			if st.applied != nil {
				r.track(st.applied.before, st.applied.ch)
			}
			return
		}
		before := r.th.Len()
		r.track(before, r.th.AddUserPrompt(a.Blocks))
	case *PermissionAskedRecord:
		if r.shared {
			if st.applied != nil {
				r.track(st.applied.before, st.applied.ch)
			}
			return
		}
		key := idKey(a.RequestID)
		req, ok := r.perms[key]
		delete(r.perms, key)
		toolCall, options := req.toolCall, req.options
		if !ok || len(toolCall) == 0 {
			toolCall, _ = json.Marshal(map[string]string{"toolCallId": a.ToolCallID, "title": a.Title, "kind": a.Kind})
		}
		if !ok || len(options) == 0 {
			options = a.Options
		}
		before := r.th.Len()
		if ch, err := r.th.PermissionRequested(toolCall, options); err == nil {
			r.track(before, ch)
		}
	case *PermissionDecidedRecord:
		if !r.shared {
			r.th.PermissionResolved(a.ToolCallID, a.Outcome, a.OptionKind)
		}
	case *QuestionRecord:
		if r.shared {
			return
		}
		if st.kind == KindElicitationAsked {
			r.th.AskQuestion(a.Message, a.Schema)
		} else if a.Entry != "" {
			r.th.AnswerQuestion(a.Entry, a.Action, a.Content)
		}
	case *ToolCallDoneRecord:
		if !r.shared && a.ToolCallID != "" && a.Status != "" {
			st := a.Status
			r.th.Apply(&thread.Update{SessionUpdate: thread.KindToolCallUpdate, ToolCallID: a.ToolCallID, Status: &st}) //nolint:errcheck // an unknown call changes nothing
		}
	case *turnEnded:
		stop := a.StopReason
		if stop == "" && a.Error != "" {
			stop = "error"
		}
		if !r.shared {
			r.th.EndTurn(stop)
		}
		r.closeMessage()
		r.turnOpen = false
		r.info.LastStopReason = stop
		if tr := r.turn(a.Turn); tr != nil {
			tr.EndedMs, tr.StopReason, tr.Error = st.ts, stop, a.Error
			tr.Usage, tr.InputTokens, tr.OutputTokens = a.Usage, a.inputTokens, a.outputTokens
		}
	case *TerminalRecord:
		if !r.shared {
			r.applyTerminal(st.kind, a)
		}
	case *ReplayRecord:
		switch a.Phase {
		case "begin":
			if !r.shared {
				r.th.BeginReplay()
			}
		case "end":
			if !r.shared {
				r.th.EndReplay()
			}
			r.closeMessage()
		}
	}
}

// applyTerminal rebuilds a terminal of the thread from its records.
func (r *reducer) applyTerminal(kind string, a *TerminalRecord) {
	switch kind {
	case KindTerminalStarted:
		r.th.TerminalStarted(thread.Terminal{TerminalID: a.TerminalID, Command: a.Command, Args: a.Args, Cwd: a.Cwd})
	case KindTerminalOutput:
		r.th.TerminalOutput(a.TerminalID, a.Data)
	case KindTerminalExited:
		r.th.TerminalExited(a.TerminalID, a.ExitCode, a.Signal)
	case KindTerminalReleased:
		r.th.TerminalReleased(a.TerminalID)
	}
}

// turn returns the index row of a turn, nil when not indexing.
func (r *reducer) turn(n int) *Turn {
	if !r.index || n <= 0 {
		return nil
	}
	t := r.turns[n]
	if t == nil {
		t = &Turn{Turn: n}
		r.turns[n] = t
	}
	r.dirtyTurns[n] = true
	return t
}

func (r *reducer) bindingChanged(n int) {
	if r.index {
		r.dirtyBinds[n] = true
	}
}

// mergeRowBytes bounds the assistant text merged into one index row.
const mergeRowBytes = 2048

// track follows what a thread call changed: a new entry closes the
// message that was streaming; a new user or assistant message opens one;
// an append to the open message adds its text.
func (r *reducer) track(before int, ch thread.Change) {
	if r.th.Len() > before {
		r.closeMessage()
		switch ch.Kind {
		case thread.EntryUserMessage, thread.EntryAssistantMessage:
			r.info.Messages++
			if !r.index {
				return
			}
			turn, text, _ := r.th.EntryHead(ch.EntryID, MaxIndexedMessage)
			role := "assistant"
			if ch.Kind == thread.EntryUserMessage {
				role = "user"
			}
			// Short answers split by thoughts and tool calls share one
			// row (up to mergeRowBytes): a search hit lands on the first
			// of them, and the index writes a tenth of the rows.
			if l := r.last; l != nil && role == "assistant" && l.role == role && l.turn == turn && len(l.text) < mergeRowBytes {
				l.text = append(append(l.text, '\n'), text...)
				l.entry += " " + ch.EntryID
				l.dirty = true
				r.open, r.openEntry = l, ch.EntryID
				return
			}
			buf := []byte(text)
			if role == "assistant" {
				// Room for the short answers it may take (mergeRowBytes):
				// appending chunk by chunk would copy it several times.
				buf = append(make([]byte, 0, max(len(text), mergeRowBytes+256)), text...)
			}
			r.open = &ftsRow{ordinal: r.info.Messages - 1, entry: ch.EntryID, turn: turn, role: role, text: buf, dirty: true}
			r.last, r.openEntry = r.open, ch.EntryID
		case thread.EntryToolCall:
			r.info.ToolCalls++
		}
		return
	}
	if r.open != nil && ch.EntryID == r.openEntry && ch.Op == thread.OpAppend && len(r.open.text) < MaxIndexedMessage {
		r.open.text = append(r.open.text, ch.Delta[:min(len(ch.Delta), MaxIndexedMessage-len(r.open.text))]...)
		r.open.dirty = true
	}
}

// closeMessage moves the streaming message, if any, to the rows to write.
func (r *reducer) closeMessage() {
	if r.open == nil {
		return
	}
	if r.open.dirty && (len(r.open.text) > 0 || r.open.written) {
		if n := len(r.closed); n == 0 || r.closed[n-1] != r.open {
			r.closed = append(r.closed, r.open)
		}
	}
	r.open = nil
}

// status computes SessionInfo.Status.
func (r *reducer) status() string {
	if r.turnOpen {
		return StatusRunning
	}
	last := 0
	for n := range r.bindings {
		last = max(last, n)
	}
	if b := r.bindings[last]; b != nil && b.Status != "" {
		return b.Status
	}
	return StatusNew
}

// sessionInfo returns a copy of the info with bindings and status filled.
func (r *reducer) sessionInfo() SessionInfo {
	info := r.info
	info.Status = r.status()
	info.Bindings = make([]Binding, 0, len(r.bindings))
	for _, n := range slices.Sorted(maps.Keys(r.bindings)) {
		info.Bindings = append(info.Bindings, *r.bindings[n])
	}
	return info
}
