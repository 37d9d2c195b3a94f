package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/acp/runtimes"
	"mnote/app"
	"mnote/store"
	"mnote/thread"
)

func TestMain(m *testing.M) { acptest.Main(m) }

// harness runs Services over a Recorder with all data in a temporary
// folder, calling them through the Bridge as the window does.
type harness struct {
	t     *testing.T
	paths store.Paths
	ws    string
	state string // the test agent's state folder (session/load works)
	rec   *app.Recorder
	svc   *app.Services
	tune  func(*app.Config) // changes the config before each start
}

func pathsUnder(dir string) store.Paths {
	data := filepath.Join(dir, "data")
	return store.Paths{
		ConfigFile: filepath.Join(dir, "config.json"), DataDir: data, DB: filepath.Join(data, "mnote.db"),
		Transcripts: filepath.Join(data, "transcripts"), Trash: filepath.Join(data, "trash"),
		LogDir: filepath.Join(dir, "logs"), StateDir: filepath.Join(dir, "state"),
	}
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWith(t, nil)
}

// newHarnessWith is newHarness with tune applied to the config.
func newHarnessWith(t *testing.T, tune func(*app.Config)) *harness {
	t.Helper()
	h := &harness{t: t, paths: pathsUnder(t.TempDir()), ws: t.TempDir(), state: t.TempDir(), tune: tune}
	h.start()
	// The default test agent, continuing sessions with session/load.
	h.saveAgent("test", "--state", h.state)
	return h
}

// start opens (or reopens, like an app restart) the services.
func (h *harness) start() {
	h.t.Helper()
	h.rec = &app.Recorder{}
	cfg := app.Config{
		Paths: h.paths, Workspace: h.ws, Emitter: h.rec,
		Detector:    runtimes.NewDetector(runtimes.DetectOptions{Inherited: true}),
		CancelGrace: 3 * time.Second, InitTimeout: 20 * time.Second,
	}
	if h.tune != nil {
		h.tune(&cfg)
	}
	svc, err := app.New(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.svc = svc
	h.t.Cleanup(svc.Shutdown)
}

func (h *harness) saveAgent(name string, args ...string) {
	h.t.Helper()
	if args == nil {
		args = []string{}
	}
	h.mustCall("agents.saveCustom", map[string]any{"name": name, "command": acptest.TestAgent(h.t), "args": args}, nil)
}

// call runs a method through Bridge.Call; the error is decoded from the
// JSON message the window would see.
func (h *harness) call(method string, args any, out any) *app.Error {
	h.t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	res, err := h.svc.Bridge().Call(method, string(b))
	if err != nil {
		var e app.Error
		if jerr := json.Unmarshal([]byte(err.Error()), &e); jerr != nil {
			h.t.Fatalf("%s: error is not JSON: %v", method, err)
		}
		return &e
	}
	if out != nil {
		if err := json.Unmarshal([]byte(res), out); err != nil {
			h.t.Fatalf("%s: result %s: %v", method, res, err)
		}
	}
	return nil
}

func (h *harness) mustCall(method string, args any, out any) {
	h.t.Helper()
	if e := h.call(method, args, out); e != nil {
		h.t.Fatalf("%s: %s: %s (%s)", method, e.Code, e.Message, e.Details)
	}
}

func (h *harness) create(agent string) app.SessionSummary {
	h.t.Helper()
	var sum app.SessionSummary
	h.mustCall("sessions.create", map[string]any{"agent": agent}, &sum)
	return sum
}

func (h *harness) prompt(id, text string) int {
	h.t.Helper()
	var r app.TurnStarted
	h.mustCall("sessions.prompt", map[string]any{"id": id, "text": text}, &r)
	return r.Turn
}

func (h *harness) open(id string) app.Snapshot {
	h.t.Helper()
	var snap app.Snapshot
	h.mustCall("sessions.open", map[string]any{"id": id}, &snap)
	return snap
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// threadEvent is a decoded thread:event.
type threadEvent struct {
	SessionID string          `json:"sessionId"`
	Seq       uint64          `json:"seq"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

func decodeThreadEvent(ev app.RecordedEvent) (threadEvent, bool) {
	if ev.Name != app.EventThread {
		return threadEvent{}, false
	}
	var te threadEvent
	if err := json.Unmarshal(ev.Data, &te); err != nil {
		return threadEvent{}, false
	}
	return te, true
}

// waitEvent waits for a thread:event of the session that match accepts,
// from event index from on.
func (h *harness) waitEvent(id string, from int, typ string, match func(json.RawMessage) bool) (int, threadEvent) {
	h.t.Helper()
	var got threadEvent
	i, _, err := h.rec.Wait(ctxFor(h.t), from, func(ev app.RecordedEvent) bool {
		te, ok := decodeThreadEvent(ev)
		if !ok || te.SessionID != id || te.Type != typ || (match != nil && !match(te.Payload)) {
			return false
		}
		got = te
		return true
	})
	if err != nil {
		h.t.Fatalf("session %s: no %s event: %v\nevents:\n%s", id, typ, err, h.dump(id))
	}
	return i, got
}

// waitTurnEnded waits for the turn to end and returns how.
func (h *harness) waitTurnEnded(id string, from, turn int) app.TurnPayload {
	h.t.Helper()
	var tp app.TurnPayload
	h.waitEvent(id, from, app.EvTurn, func(p json.RawMessage) bool {
		return json.Unmarshal(p, &tp) == nil && tp.State == "ended" && tp.Turn == turn
	})
	return tp
}

func (h *harness) threadEvents(id string) []threadEvent {
	var out []threadEvent
	for _, ev := range h.rec.Events() {
		if te, ok := decodeThreadEvent(ev); ok && te.SessionID == id {
			out = append(out, te)
		}
	}
	return out
}

func (h *harness) dump(id string) string {
	var b strings.Builder
	for _, te := range h.threadEvents(id) {
		p := string(te.Payload)
		if len(p) > 300 {
			p = p[:300] + "…"
		}
		b.WriteString(te.Type + " " + p + "\n")
	}
	return b.String()
}

// built is a session's thread as the page builds it from events.
type built struct {
	order   []string
	entries map[string]*thread.Entry
	meta    map[string]json.RawMessage
	lastSeq uint64
}

func build(t *testing.T, evs []threadEvent) *built {
	t.Helper()
	b := &built{entries: map[string]*thread.Entry{}, meta: map[string]json.RawMessage{}}
	for _, ev := range evs {
		if ev.Seq != b.lastSeq+1 {
			t.Fatalf("seq %d after %d (%s)", ev.Seq, b.lastSeq, ev.Type)
		}
		b.lastSeq = ev.Seq
		switch ev.Type {
		case app.EvEntry:
			var e thread.Entry
			if err := json.Unmarshal(ev.Payload, &e); err != nil {
				t.Fatal(err)
			}
			if _, ok := b.entries[e.ID]; !ok {
				// A new entry ends the streaming of the one before.
				for _, o := range b.entries {
					o.Streaming = false
				}
				b.order = append(b.order, e.ID)
			}
			b.entries[e.ID] = &e
		case app.EvAppend:
			var a app.AppendPayload
			if err := json.Unmarshal(ev.Payload, &a); err != nil {
				t.Fatal(err)
			}
			e, ok := b.entries[a.EntryID]
			if !ok {
				t.Fatalf("append to unknown entry %s", a.EntryID)
			}
			e.Text += a.Delta
		case app.EvMeta:
			var m map[string]json.RawMessage
			if err := json.Unmarshal(ev.Payload, &m); err != nil {
				t.Fatal(err)
			}
			for k, v := range m {
				b.meta[k] = v
			}
		}
	}
	return b
}

func (b *built) list() []thread.Entry {
	out := make([]thread.Entry, 0, len(b.order))
	for _, id := range b.order {
		out = append(out, *b.entries[id])
	}
	return out
}

// texts returns the texts of the entries of a kind.
func texts(entries []thread.Entry, kind string) []string {
	var out []string
	for _, e := range entries {
		if e.Kind == kind {
			out = append(out, e.Text)
		}
	}
	return out
}

func hasText(entries []thread.Entry, kind, text string) bool {
	return slices.Contains(texts(entries, kind), text)
}

func codeOf(e *app.Error) string {
	if e == nil {
		return "ok"
	}
	return e.Code
}

var errTimeout = errors.New("timeout")

// eventually polls cond for up to d.
func eventually(d time.Duration, cond func() bool) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errTimeout
}

// testWait bounds the polls of a test.
const testWait = 10 * time.Second
