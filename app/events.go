package app

import (
	"cmp"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mnote/acp"
	"mnote/app/chat"
	"mnote/thread"
)

// Types of thread:event (API.md, "Events").
const (
	EvEntry              = "entry"
	EvAppend             = "append"
	EvMeta               = "meta"
	EvPermission         = "permission"
	EvPermissionResolved = "permission_resolved"
	EvTurn               = "turn"
	EvNotice             = "notice"
	EvTerminal           = "terminal"
	EvTerminalOutput     = "terminal_output"
)

// ThreadEvent is the data of a thread:event.
type ThreadEvent struct {
	SessionID string `json:"sessionId"`
	Seq       uint64 `json:"seq"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

// AppendPayload is the payload of an "append" event.
type AppendPayload struct {
	EntryID string `json:"entryId"`
	Delta   string `json:"delta"`
}

// TerminalPayload is the payload of a "terminal" event: the state of one
// of the agent's terminals, without its output (that comes in
// "terminal_output" events; the snapshot's terminals have all of it).
type TerminalPayload struct {
	TerminalID string   `json:"terminalId"`
	Turn       int      `json:"turn"`
	Command    string   `json:"command"`
	Args       []string `json:"args,omitempty"`
	Cwd        string   `json:"cwd,omitempty"`
	Truncated  bool     `json:"truncated,omitempty"`
	Exited     bool     `json:"exited,omitempty"`
	ExitCode   *int     `json:"exitCode,omitempty"`
	Signal     string   `json:"signal,omitempty"`
	Released   bool     `json:"released,omitempty"`
}

// TerminalOutputPayload is the payload of a "terminal_output" event:
// output a terminal's command wrote (escape sequences included).
type TerminalOutputPayload struct {
	TerminalID string `json:"terminalId"`
	Data       string `json:"data"`
}

// TurnPayload is the payload of a "turn" event.
type TurnPayload struct {
	State      string `json:"state"` // running, ended
	Turn       int    `json:"turn"`
	StopReason string `json:"stopReason,omitempty"`
	Error      string `json:"error,omitempty"`
}

// NoticePayload is the payload of a "notice" event. Like Error, Reason
// (reasons.go) and Params let the page word it; Message is the English
// fallback (and what logs show). Code is the error code of a notice that
// tells a failure (a turn that failed or could not start).
type NoticePayload struct {
	Level   string            `json:"level"` // info, warn, error
	Code    string            `json:"code,omitempty"`
	Reason  string            `json:"reason,omitempty"`
	Message string            `json:"message"`
	Details string            `json:"details,omitempty"`
	Params  map[string]string `json:"params,omitempty"`
	Action  string            `json:"action,omitempty"` // restart, login
}

// ResolvedPayload is the payload of a "permission_resolved" event.
type ResolvedPayload struct {
	RequestID string `json:"requestId"`
	OptionID  string `json:"optionId"`
}

// How the event goroutine batches: text deltas of one entry are held at
// most deltaFlushEvery and sent as one "append". While the emitter lags,
// at most maxQueuedDeltaBytes of deltas (or maxQueuedItems items) wait;
// beyond that deltas are dropped and the seq skips one, so the page
// refetches. Structural events are never dropped.
const (
	deltaFlushEvery     = 25 * time.Millisecond
	maxQueuedDeltaBytes = 4 << 20
	maxQueuedItems      = 16384
)

type itemKind uint8

const (
	itEvent  itemKind = iota // a thread:event, payload ready
	itDelta                  // text appended to an entry
	itMeta                   // session state changed; payload read when sent
	itGap                    // events were dropped: skip a seq
	itGlobal                 // another event (sessions:changed), in order
	itMarker                 // a snapshot's position in the stream
)

type item struct {
	kind    itemKind
	typ     string // itEvent: the event type; itDelta: EvAppend or EvTerminalOutput
	payload any
	entryID string
	delta   []byte
	metas   []string // itMeta: thread.Meta* kinds
	name    string   // itGlobal
	marker  chan streamPos
}

// streamPos is what the stream had sent at a snapshot's position.
type streamPos struct {
	seq       uint64
	pending   []PermissionRequest
	questions []ElicitationRequest
	running   bool
}

// pump is the event goroutine of one live session (DESIGN §6). It is the
// session's chat.Observer: Event runs on the agent's reader with the
// session locked, turns the change into items (reading changed entries
// from the thread, which the lock makes safe) and queues them without
// ever blocking. The goroutine sends them in order with a per-session seq.
type pump struct {
	id   string
	em   Emitter
	th   *thread.Thread
	sess atomic.Pointer[chat.Session] // for reading session state when sending
	turn atomic.Int64                 // the turn being run, for "turn" payloads
	// ended is how chat said the turn ended, for the turn's goroutine.
	ended atomic.Pointer[TurnPayload]
	// agentTail returns the running agent's stderr tail, for notices.
	agentTail func() string
	// heldBack names the agent and what mnote held back from its
	// environment, for a needs-auth notice (heldBackHint); may be nil.
	heldBack func() (agent string, held []string)

	mu         sync.Mutex
	q          []item
	deltaBytes int
	stopping   bool
	stopped    bool
	wake       chan struct{}
	done       chan struct{}
	badNoticed bool   // a malformed-line notice was sent this turn
	errNoticed string // the transcript failure a notice told

	// Owned by the goroutine (seq is also read by Seq).
	seq      atomic.Uint64
	pendTyp  string // EvAppend or EvTerminalOutput
	pendID   string
	pendBuf  []byte
	pending  []PermissionRequest
	asking   []ElicitationRequest // elicitations waiting (elicitation.go)
	running  bool
	timer    *time.Timer
	timerSet bool
}

func newPump(id string, em Emitter, th *thread.Thread, seq uint64, agentTail func() string) *pump {
	p := &pump{id: id, em: em, th: th, agentTail: agentTail, wake: make(chan struct{}, 1), done: make(chan struct{})}
	p.seq.Store(seq)
	p.timer = time.NewTimer(time.Hour)
	p.timer.Stop()
	go p.run()
	return p
}

// Seq is the seq of the last event sent.
func (p *pump) Seq() uint64 { return p.seq.Load() }

// Event implements chat.Observer.
func (p *pump) Event(ev *chat.Event) {
	switch ev.Type {
	case chat.EvUpdate, chat.EvPermission, chat.EvPermissionDecided:
		p.change(ev.Change)
	case chat.EvTerminal:
		p.terminal(ev.Change)
	case chat.EvTurnStarted:
		p.badNoticed = false
		p.change(ev.Change)
		p.push(item{kind: itEvent, typ: EvTurn, payload: TurnPayload{State: "running", Turn: int(p.turn.Load())}})
	case chat.EvTurnEnded:
		for _, ch := range ev.Changes {
			p.change(ch)
		}
		tp := TurnPayload{State: "ended", Turn: int(p.turn.Load())}
		if tr := ev.Turn; tr != nil {
			tp.Turn, tp.StopReason = tr.Turn, tr.StopReason
		}
		if ev.Err != nil {
			// One banner per failure: the notice tells it (or told it
			// already, for a write failure), so the turn's end does not
			// repeat it in error.
			if ev.Err.Error() != p.errNoticed {
				p.push(item{kind: itEvent, typ: EvNotice, payload: p.failureNotice(ev.Err)})
			}
			if tp.StopReason == "" {
				tp.StopReason = "error"
			}
		} else if ev.Turn != nil && ev.Turn.Killed {
			p.push(item{kind: itEvent, typ: EvNotice, payload: NoticePayload{Level: "warn", Action: "restart", Reason: ReasonAgentKilled,
				Message: "The agent did not stop when asked, so mnote stopped it; the next prompt starts it again."}})
		}
		// The turn's end is sent by the turn's goroutine once the
		// session takes a new prompt (see liveSession.runTurn).
		p.ended.Store(&tp)
	case chat.EvBound:
		if b := ev.Binding; b != nil {
			if b.Note != "" {
				p.push(item{kind: itEvent, typ: EvNotice, payload: bindingNotice(b)})
			}
			if n := p.th.Len(); b.How == "load" && n > 0 {
				// The end of a replay closes the streaming entry (always
				// the last one) without a change: send it again.
				if e, ok := p.th.Entry("e" + strconv.Itoa(n)); ok {
					p.push(item{kind: itEvent, typ: EvEntry, payload: e})
				}
			}
		}
	case chat.EvError:
		if ev.Err != nil {
			p.errNoticed = ev.Err.Error()
			n := NoticePayload{Level: "error", Code: CodeWriteFailed, Reason: ReasonTranscriptWriteFailed, Message: p.errNoticed}
			if cause := errors.Unwrap(ev.Err); cause != nil {
				n.Details = cause.Error()
			}
			p.push(item{kind: itEvent, typ: EvNotice, payload: n})
		}
	case chat.EvBad:
		if !p.badNoticed && ev.Err != nil {
			p.badNoticed = true
			p.push(item{kind: itEvent, typ: EvNotice, payload: NoticePayload{Level: "warn", Reason: ReasonAgentBadOutput,
				Message: "The agent sent something mnote could not use; it is kept in the transcript.", Details: ev.Err.Error()}})
		}
	}
}

// failureNotice describes a turn that failed.
func (p *pump) failureNotice(err error) NoticePayload {
	e := errorFrom("", err)
	n := NoticePayload{Level: "error", Code: e.Code, Reason: cmp.Or(e.Reason, ReasonTurnFailed), Params: e.Params, Message: err.Error()}
	if n.Reason == ReasonTurnFailed && len(n.Params) == 0 {
		// What the agent said is the only explanation there is: it is shown
		// (as text) inside the page's own words.
		n.Params = map[string]string{"error": err.Error()}
	}
	if n.Code == CodeInternal {
		n.Code = CodeAgentFailed
	}
	var ee *acp.ExitError
	if errors.As(err, &ee) {
		n.Message = "The agent stopped: " + errString(ee)
		n.Details = strings.TrimSpace(ee.StderrTail)
		n.Action = "restart"
	} else if errors.Is(err, acp.ErrAuthRequired) {
		n.Action = "login"
		if p.heldBack != nil {
			kv, sentence := heldBackHint(p.heldBack())
			if sentence != "" {
				n.Params = addParams(n.Params, kv...)
				n.Message += " " + sentence
			}
		}
	} else if p.agentTail != nil {
		n.Details = p.agentTail()
	}
	return n
}

// bindingNotice tells that a session continues in a new agent session.
func bindingNotice(b *chat.Binding) NoticePayload {
	n := NoticePayload{Level: "info", Reason: ReasonSessionNotContinued, Message: b.Note}
	if b.NoteReason == chat.NoteCannotContinue {
		n.Reason, n.Params = ReasonAgentCannotContinue, addParams(nil, "message", b.NoteCause)
	}
	return n
}

// errString is an ExitError's first sentence, without the stderr tail.
func errString(ee *acp.ExitError) string {
	c := *ee
	c.StderrTail = ""
	return c.Error()
}

// change queues what one thread change means for the page.
func (p *pump) change(ch thread.Change) {
	switch ch.Op {
	case thread.OpAppend:
		p.pushDelta(EvAppend, ch.EntryID, ch.Delta)
	case thread.OpUpsert:
		e, ok := p.th.Entry(ch.EntryID)
		if !ok {
			return
		}
		p.push(item{kind: itEvent, typ: EvEntry, payload: e})
		if e.Kind == thread.EntryPlan {
			p.push(item{kind: itEvent, typ: EvMeta, payload: map[string]any{"plan": e.Plan}})
		}
	case thread.OpMeta:
		p.push(item{kind: itMeta, metas: []string{ch.Kind}})
	}
}

// terminal queues a terminal change: its output is batched like text
// deltas; any other change sends the terminal's state.
func (p *pump) terminal(ch thread.Change) {
	if ch.Delta != "" {
		p.pushDelta(EvTerminalOutput, ch.EntryID, ch.Delta)
		return
	}
	tm, ok := p.th.Terminal(ch.EntryID)
	if !ok {
		return
	}
	p.push(item{kind: itEvent, typ: EvTerminal, payload: TerminalPayload{TerminalID: tm.TerminalID, Turn: tm.Turn,
		Command: tm.Command, Args: tm.Args, Cwd: tm.Cwd, Truncated: tm.Truncated, Exited: tm.Exited,
		ExitCode: tm.ExitCode, Signal: tm.Signal, Released: tm.Released}})
}

// push queues a structural item; it never blocks and never drops.
func (p *pump) push(it item) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		if it.marker != nil {
			it.marker <- streamPos{seq: p.seq.Load()}
		}
		return
	}
	if it.kind == itMeta && len(p.q) > 0 && p.q[len(p.q)-1].kind == itMeta {
		last := &p.q[len(p.q)-1]
		if !slices.Contains(last.metas, it.metas[0]) {
			last.metas = append(last.metas, it.metas[0])
		}
		return
	}
	p.q = append(p.q, it)
	p.signal()
}

// pushDelta queues text appended to an entry (typ EvAppend) or output
// of a terminal (EvTerminalOutput), merging it into a queued delta of the
// same one; when too much waits it is dropped for a gap.
func (p *pump) pushDelta(typ, entryID, delta string) {
	if delta == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	n := len(p.q)
	if p.deltaBytes+len(delta) > maxQueuedDeltaBytes || n >= maxQueuedItems {
		if n == 0 || p.q[n-1].kind != itGap {
			p.q = append(p.q, item{kind: itGap})
		}
		p.signal()
		return
	}
	p.deltaBytes += len(delta)
	if n > 0 && p.q[n-1].kind == itDelta && p.q[n-1].entryID == entryID && p.q[n-1].typ == typ {
		p.q[n-1].delta = append(p.q[n-1].delta, delta...)
		return
	}
	p.q = append(p.q, item{kind: itDelta, typ: typ, entryID: entryID, delta: []byte(delta)})
	p.signal()
}

// signal wakes the goroutine; called with p.mu held.
func (p *pump) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// global queues another event, sent in order with the session's.
func (p *pump) global(name string, data any) {
	p.push(item{kind: itGlobal, name: name, payload: data})
}

// event queues a thread:event whose payload is ready.
func (p *pump) event(typ string, payload any) {
	p.push(item{kind: itEvent, typ: typ, payload: payload})
}

// marker queues a snapshot position; the reply comes once everything
// queued before it was sent. Call it with the session locked (inside
// chat.Session.Thread) so that it sits exactly where the snapshot was
// taken.
func (p *pump) marker() chan streamPos {
	ch := make(chan streamPos, 1)
	p.push(item{kind: itMarker, marker: ch})
	return ch
}

// stop sends what is queued and ends the goroutine.
func (p *pump) stop() {
	p.mu.Lock()
	p.stopping = true
	p.signal()
	p.mu.Unlock()
	<-p.done
}

func (p *pump) run() {
	defer close(p.done)
	for {
		select {
		case <-p.wake:
		case <-p.timer.C:
			p.timerSet = false
			p.flushDelta()
		}
		for {
			p.mu.Lock()
			batch := p.q
			p.q, p.deltaBytes = nil, 0
			stopping := p.stopping
			if stopping && len(batch) == 0 {
				p.stopped = true
			}
			p.mu.Unlock()
			if len(batch) == 0 {
				if stopping {
					p.flushDelta()
					p.timer.Stop()
					return
				}
				break
			}
			p.process(batch)
		}
		if len(p.pendBuf) > 0 && !p.timerSet {
			p.timer.Reset(deltaFlushEvery)
			p.timerSet = true
		}
	}
}

func (p *pump) process(batch []item) {
	for i := range batch {
		it := &batch[i]
		if it.kind == itDelta {
			if p.pendID != it.entryID || p.pendTyp != it.typ {
				p.flushDelta()
				p.pendID, p.pendTyp = it.entryID, it.typ
			}
			p.pendBuf = append(p.pendBuf, it.delta...)
			continue
		}
		p.flushDelta()
		switch it.kind {
		case itEvent:
			p.track(it)
			p.send(it.typ, it.payload)
		case itMeta:
			p.send(EvMeta, p.metaPayload(it.metas))
		case itGap:
			p.seq.Add(1)
		case itGlobal:
			p.em.Emit(it.name, it.payload)
		case itMarker:
			it.marker <- streamPos{seq: p.seq.Load(), pending: slices.Clone(p.pending), questions: slices.Clone(p.asking), running: p.running}
		}
	}
}

// track keeps what a snapshot needs besides the thread: the pending
// permission requests and whether a turn runs, as sent so far.
func (p *pump) track(it *item) {
	switch it.typ {
	case EvPermission:
		if r, ok := it.payload.(PermissionRequest); ok {
			p.pending = append(p.pending, r)
		}
	case EvPermissionResolved:
		if r, ok := it.payload.(ResolvedPayload); ok {
			p.pending = slices.DeleteFunc(p.pending, func(q PermissionRequest) bool { return q.RequestID == r.RequestID })
		}
	case EvElicitation:
		if r, ok := it.payload.(ElicitationRequest); ok {
			p.asking = append(p.asking, r)
		}
	case EvElicitationResolved:
		if r, ok := it.payload.(ElicitationResolvedPayload); ok {
			p.asking = slices.DeleteFunc(p.asking, func(q ElicitationRequest) bool { return q.RequestID == r.RequestID })
		}
	case EvTurn:
		if t, ok := it.payload.(TurnPayload); ok {
			p.running = t.State == "running"
		}
	}
}

func (p *pump) flushDelta() {
	if len(p.pendBuf) == 0 {
		return
	}
	if p.pendTyp == EvTerminalOutput {
		p.send(EvTerminalOutput, TerminalOutputPayload{TerminalID: p.pendID, Data: string(p.pendBuf)})
	} else {
		p.send(EvAppend, AppendPayload{EntryID: p.pendID, Delta: string(p.pendBuf)})
	}
	p.pendBuf = p.pendBuf[:0]
	if cap(p.pendBuf) > 64<<10 {
		p.pendBuf = nil
	}
}

func (p *pump) send(typ string, payload any) {
	seq := p.seq.Add(1)
	p.em.Emit(EventThread, ThreadEvent{SessionID: p.id, Seq: seq, Type: typ, Payload: payload})
}

// metaPayload reads the session state the meta kinds name. It takes the
// session lock (the queue never blocks its holder, so this cannot
// deadlock); the values may be newer than the event's place in the
// stream, which is harmless as each replaces a whole value.
func (p *pump) metaPayload(kinds []string) map[string]any {
	out := map[string]any{}
	s := p.sess.Load()
	if s == nil {
		return out
	}
	var snap thread.Snapshot
	s.Thread(func(th *thread.Thread) { snap = th.Meta() })
	for _, k := range kinds {
		switch k {
		case thread.MetaUsage:
			out["usage"] = snap.Usage
		case thread.MetaMode:
			out["currentModeId"] = snap.CurrentModeID
			out["modes"] = snap.Modes
		case thread.MetaConfigOptions:
			// The model may be a config option: its values are the models.
			out["configOptions"] = snap.ConfigOptions
			out["currentModelId"] = snap.CurrentModelID
			out["models"] = snap.Models
		case thread.MetaCommands:
			out["commands"] = snap.Commands
		case thread.MetaSessionInfo:
			out["title"] = snap.Title
		case thread.MetaSession:
			out["currentModeId"] = snap.CurrentModeID
			out["modes"] = snap.Modes
			out["configOptions"] = snap.ConfigOptions
			out["currentModelId"] = snap.CurrentModelID
			out["models"] = snap.Models
		}
	}
	return out
}
