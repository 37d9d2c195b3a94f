package shared_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/acp/runtimes"
	"mnote/app"
	"mnote/app/shared"
	"mnote/cloudsync/cloudsynctest"
	"mnote/store"
)

func TestMain(m *testing.M) { acptest.Main(m) }

// home is one person's mnote: its data, its notes folder, its services.
type home struct {
	t     *testing.T
	ws    string // the notes folder
	paths store.Paths
	rec   *app.Recorder
	svc   *app.Services
}

func newHome(t *testing.T, cpURL, token string) *home {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	h := &home{t: t, ws: t.TempDir(), rec: &app.Recorder{}, paths: store.Paths{
		ConfigFile: filepath.Join(dir, "config.json"), DataDir: data, DB: filepath.Join(data, "mnote.db"),
		Transcripts: filepath.Join(data, "transcripts"), Trash: filepath.Join(data, "trash"),
		LogDir: filepath.Join(dir, "logs"), StateDir: filepath.Join(dir, "state"),
	}}
	svc, err := app.New(app.Config{
		Paths: h.paths, Workspace: h.ws, Emitter: h.rec,
		Detector:    runtimes.NewDetector(runtimes.DetectOptions{Inherited: true}),
		CancelGrace: 3 * time.Second, InitTimeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.svc = svc
	t.Cleanup(svc.Shutdown)
	h.must("agents.saveCustom", map[string]any{"name": "test", "command": acptest.TestAgent(t), "args": []string{}}, nil)
	h.must("sync.configure", map[string]any{"url": cpURL, "token": token, "allowTitles": false}, nil)
	h.must("sync.enable", map[string]any{"on": true}, nil)
	return h
}

func (h *home) call(method string, args, out any) *app.Error {
	h.t.Helper()
	b, _ := json.Marshal(args)
	res, err := h.svc.Bridge().Call(method, string(b))
	if err != nil {
		var e app.Error
		if jerr := json.Unmarshal([]byte(err.Error()), &e); jerr != nil {
			h.t.Fatalf("%s: %v", method, err)
		}
		return &e
	}
	if out != nil {
		if err := json.Unmarshal([]byte(res), out); err != nil {
			h.t.Fatalf("%s: %s: %v", method, res, err)
		}
	}
	return nil
}

func (h *home) must(method string, args, out any) {
	h.t.Helper()
	if e := h.call(method, args, out); e != nil {
		h.t.Fatalf("%s: %s %s: %s", method, e.Code, e.Reason, e.Message)
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// prompt sends a prompt and waits for its turn to end; it returns how.
func (h *home) prompt(id, text string) map[string]any {
	h.t.Helper()
	return h.promptWith(map[string]any{"id": id, "text": text})
}

// promptWith sends sessions.prompt with args and waits for the turn to end.
func (h *home) promptWith(args map[string]any) map[string]any {
	h.t.Helper()
	id, text := args["id"], args["text"]
	from := h.rec.Len()
	var started struct{ Turn int }
	h.must("sessions.prompt", args, &started)
	var payload map[string]any
	_, _, err := h.rec.Wait(ctxFor(h.t), from, func(ev app.RecordedEvent) bool {
		var te struct {
			SessionID string         `json:"sessionId"`
			Type      string         `json:"type"`
			Payload   map[string]any `json:"payload"`
		}
		if ev.Name != app.EventThread || json.Unmarshal(ev.Data, &te) != nil || te.SessionID != id || te.Type != "turn" {
			return false
		}
		if te.Payload["state"] == "ended" {
			payload = te.Payload
			return true
		}
		return false
	})
	if err != nil {
		h.t.Fatalf("the turn of %q did not end: %v", text, err)
	}
	return payload
}

// sharedEvent waits for a shared:event from index from that matches.
func (h *home) sharedEvent(from int, match func(shared.Event) bool) shared.Event {
	h.t.Helper()
	var got shared.Event
	_, _, err := h.rec.Wait(ctxFor(h.t), from, func(ev app.RecordedEvent) bool {
		var se shared.Event
		if ev.Name != shared.EventName || json.Unmarshal(ev.Data, &se) != nil {
			return false
		}
		if match(se) {
			got = se
			return true
		}
		return false
	})
	if err != nil {
		h.t.Fatalf("no such shared event: %v", err)
	}
	return got
}

type state struct {
	Shared  bool
	Role    string
	Owner   string
	Members []struct{ Account, Role string }
	Entries []shared.Entry
	Revoked bool
	Offline bool
	Error   string
}

// The owner shares a session in the window and adds an editor; the
// editor's prompt through the app's methods runs on the editor's own
// agent with the earlier turns as context, and the owner's window gets
// it live with its actor, recorded in its transcript. A viewer's prompt
// and a member's change of members are refused with their codes; a
// control plane that fails the lease fails the turn before the agent.
func TestSharedSessionInTheWindow(t *testing.T) {
	cp := cloudsynctest.New(t)
	ada := newHome(t, cp.URL, cp.AddUser("ada"))
	bob := newHome(t, cp.URL, cp.AddUser("bob"))
	for _, h := range []*home{ada, bob} {
		var d struct {
			Account string
			Paired  bool
			Devices []struct{ This bool }
		}
		h.must("shared.devices", struct{}{}, &d)
		if !d.Paired || len(d.Devices) != 1 || !d.Devices[0].This {
			t.Fatalf("devices: %+v", d)
		}
	}

	var sum app.SessionSummary
	ada.must("sessions.create", map[string]any{"agent": "test"}, &sum)
	id := sum.ID
	if p := ada.prompt(id, "a private start"); p["stopReason"] != "end_turn" {
		t.Fatalf("ada's first turn: %v", p)
	}
	var st state
	ada.must("shared.state", map[string]any{"id": id}, &st)
	if st.Shared {
		t.Fatalf("a private session is shared: %+v", st)
	}
	ada.must("shared.share", map[string]any{"id": id}, nil)
	if e := ada.call("shared.add", map[string]any{"id": id, "account": "bob", "role": "boss"}, nil); e == nil || e.Reason != app.ReasonSharedBadRole {
		t.Fatalf("a bad role: %+v", e)
	}
	var ms shared.Members
	ada.must("shared.add", map[string]any{"id": id, "account": "bob", "role": "editor"}, &ms)
	if ms.Owner != "ada" || len(ms.Members) != 2 {
		t.Fatalf("members: %+v", ms)
	}
	if p := ada.prompt(id, "look into the cache in "+filepath.Join(ada.ws, "缓存设计.md")); p["stopReason"] != "end_turn" {
		t.Fatalf("ada's shared turn: %v", p)
	}
	ada.must("shared.state", map[string]any{"id": id}, &st)
	if !st.Shared || st.Role != "owner" || len(st.Entries) == 0 || st.Entries[0].Actor != "ada" {
		for _, r := range cp.Requests() {
			t.Logf("%+v", r)
		}
		t.Fatalf("ada's state: %+v", st)
	}

	// bob's window: the session appears, with his role and the log.
	bob.must("shared.state", map[string]any{"id": id}, &st)
	if !st.Shared || st.Role != "editor" || st.Owner != "ada" || len(st.Entries) == 0 {
		t.Fatalf("bob's state: %+v", st)
	}
	// What left ada's machine is redacted as a share is: her folder's
	// path is not in it.
	if b, _ := json.Marshal(st.Entries); !bytes.Contains(b, []byte("缓存设计.md")) || bytes.Contains(b, []byte(ada.ws)) {
		t.Errorf("bob's entries (want the note's name, not ada's folder %s): %s", ada.ws, b)
	}
	var list []app.SessionSummary
	bob.must("sessions.list", map[string]any{}, &list)
	if len(list) != 1 || list[0].ID != id {
		t.Fatalf("bob's sessions: %+v", list)
	}
	if e := bob.call("shared.add", map[string]any{"id": id, "account": "eve", "role": "viewer"}, nil); e == nil || e.Code != app.CodeForbidden || e.Reason != app.ReasonSharedNotOwner {
		t.Fatalf("an editor adds a member: %+v", e)
	}

	// bob's turn runs on his agent; ada's window gets it with its actor.
	adaFrom := ada.rec.Len()
	bob.must("sessions.switchAgent", map[string]any{"id": id, "agent": "test"}, nil)
	if p := bob.prompt(id, "what did ada find?"); p["stopReason"] != "end_turn" {
		t.Fatalf("bob's turn: %v", p)
	}
	bobLog, err := os.ReadFile(bob.paths.TranscriptPath(id))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"echo: what did ada find?", "User ada (turn 1):", "look into the cache"} {
		if !bytes.Contains(bobLog, []byte(want)) {
			t.Errorf("bob's agent was not given %q:\n%s", want, bobLog)
		}
	}
	ev := ada.sharedEvent(adaFrom, func(e shared.Event) bool {
		return e.SessionID == id && e.Type == shared.EvEntry && e.Entry.Actor == "bob" && e.Entry.Kind == "prompt"
	})
	if ev.Entry.Entry.Text != "what did ada find?" {
		t.Fatalf("ada got bob's prompt as %+v", ev.Entry)
	}
	ada.sharedEvent(adaFrom, func(e shared.Event) bool {
		return e.SessionID == id && e.Type == shared.EvEntry && e.Entry.Actor == "bob" && e.Entry.Kind == "answer" && strings.Contains(e.Entry.Entry.Text, "echo")
	})
	// bob's copy of the session is ada's: his sync does not send its record.
	var sst struct{ Pending, Parked int }
	bob.must("sync.now", struct{}{}, &sst)
	if sst.Parked != 0 {
		t.Fatalf("bob's sync parked ada's session: %+v", sst)
	}
	recs, err := store.ReadSharedEntries(ada.paths.TranscriptPath(id))
	if err != nil {
		t.Fatal(err)
	}
	actors := map[string]bool{}
	for _, r := range recs {
		actors[r.Actor] = true
	}
	if !actors["ada"] || !actors["bob"] {
		t.Fatalf("ada's transcript records the actors %v", actors)
	}

	// A viewer's prompt is refused before it reaches the agent.
	ada.must("shared.setRole", map[string]any{"id": id, "account": "bob", "role": "viewer"}, nil)
	e := bob.call("sessions.prompt", map[string]any{"id": id, "text": "may I?"}, nil)
	if e == nil || e.Code != app.CodeForbidden || e.Reason != app.ReasonSharedRoleRefused {
		t.Fatalf("a viewer's prompt: %+v", e)
	}

	// A viewer cannot comment either; a commenter can, and ada's window
	// gets the comment with its actor.
	if e := bob.call("shared.comment", map[string]any{"id": id, "text": "a viewer's word"}, nil); e == nil || e.Code != app.CodeForbidden {
		t.Fatalf("a viewer's comment: %+v", e)
	}
	ada.must("shared.setRole", map[string]any{"id": id, "account": "bob", "role": "commenter"}, nil)
	if e := bob.call("sessions.prompt", map[string]any{"id": id, "text": "may I now?"}, nil); e == nil || e.Reason != app.ReasonSharedRoleRefused {
		t.Fatalf("a commenter's prompt: %+v", e)
	}
	adaFrom = ada.rec.Len()
	bob.must("shared.comment", map[string]any{"id": id, "text": "nice find"}, nil)
	ev = ada.sharedEvent(adaFrom, func(e shared.Event) bool {
		return e.SessionID == id && e.Type == shared.EvEntry && e.Entry.Kind == "comment"
	})
	if ev.Entry.Actor != "bob" || ev.Entry.Entry.Text != "nice find" {
		t.Fatalf("ada got the comment as %+v", ev.Entry)
	}

	// Without the lease the turn fails visibly; nothing reaches the agent
	// (invariant 9).
	ada.must("shared.setRole", map[string]any{"id": id, "account": "bob", "role": "editor"}, nil)
	cp.Inject(cloudsynctest.Fault{Method: "POST", PathPrefix: "/v1/sessions/" + id + "/lease", Status: 503})
	if p := bob.prompt(id, "while it was down"); p["stopReason"] != "error" {
		t.Fatalf("a turn without the lease: %v", p)
	}
	cp.ClearFaults()
	if b, _ := os.ReadFile(bob.paths.TranscriptPath(id)); bytes.Contains(b, []byte("while it was down")) {
		t.Fatal("a turn ran unshared")
	}

	// Revoked: bob's stream ends, his state says so.
	bobFrom := bob.rec.Len()
	ada.must("shared.remove", map[string]any{"id": id, "account": "bob"}, nil)
	bob.sharedEvent(bobFrom, func(e shared.Event) bool { return e.SessionID == id && e.Type == shared.EvRevoked })
	st = state{}
	bob.must("shared.state", map[string]any{"id": id}, &st)
	if !st.Revoked {
		t.Fatalf("bob's state after revoke: %+v", st)
	}

	// A member added after the key changed (bob's removal) and before
	// their first device: the earlier entries show as ones this device
	// cannot open (recorded as such, not dropped); the owner's next turn,
	// which gives the key, reaches cai's window opened.
	caiToken := cp.AddUser("cai")
	ada.must("shared.add", map[string]any{"id": id, "account": "cai", "role": "viewer"}, nil)
	cai := newHome(t, cp.URL, caiToken)
	st = state{}
	cai.must("shared.state", map[string]any{"id": id}, &st)
	if !st.Shared || st.Role != "viewer" || len(st.Entries) == 0 {
		t.Fatalf("cai's state: %+v", st)
	}
	for _, e := range st.Entries {
		// no_key, or author for bob's, a removed member cai never verified.
		if e.Unreadable == "" {
			t.Fatalf("cai opened an entry sealed before he had a key: %+v", e)
		}
	}
	caiFrom := cai.rec.Len()
	if p := ada.prompt(id, "for cai too"); p["stopReason"] != "end_turn" {
		t.Fatalf("ada's turn for cai: %v", p)
	}
	ev = cai.sharedEvent(caiFrom, func(e shared.Event) bool {
		return e.SessionID == id && e.Type == shared.EvEntry && e.Entry.Kind == "prompt"
	})
	if ev.Entry.Unreadable != "" || ev.Entry.Actor != "ada" || ev.Entry.Entry.Text != "for cai too" {
		t.Fatalf("cai got ada's new turn as %+v", ev.Entry)
	}
}

// A second machine of one account joins from the window: the code the
// first shows, the same 12 digits on both (each confirmed with
// shared.pairConfirm), then both list two devices; a pairing whose digits
// one side says differ ends on both.
func TestPairAndJoinInTheWindow(t *testing.T) {
	cp := cloudsynctest.New(t)
	token := cp.AddUser("ada")
	laptop := newHome(t, cp.URL, token)
	desk := newHome(t, cp.URL, token)
	var d shared.Devices
	laptop.must("shared.devices", struct{}{}, &d)
	if !d.Paired || len(d.Devices) != 1 {
		t.Fatalf("the first device: %+v", d)
	}
	desk.must("shared.devices", struct{}{}, &d)
	if d.Paired || d.Fingerprint == "" {
		t.Fatalf("a machine not paired yet: %+v", d)
	}
	if e := desk.call("shared.pairConfirm", map[string]any{"same": true}, nil); e == nil || e.Reason != app.ReasonSharedNoPairing {
		t.Fatalf("a confirmation without a pairing: %+v", e)
	}

	pair := func(same bool) (shared.PairStep, shared.PairStep) {
		lFrom, dFrom := laptop.rec.Len(), desk.rec.Len()
		var code shared.PairStep
		laptop.must("shared.pair", struct{}{}, &code)
		if code.State != "code" || code.Code == "" {
			t.Fatalf("pair: %+v", code)
		}
		desk.must("shared.join", map[string]any{"code": code.Code}, nil)
		isConfirm := func(e shared.Event) bool { return e.Type == shared.EvPair && e.Pair.State == "confirm" }
		lc := laptop.sharedEvent(lFrom, isConfirm)
		dc := desk.sharedEvent(dFrom, isConfirm)
		if lc.Pair.SAS == "" || lc.Pair.SAS != dc.Pair.SAS {
			t.Fatalf("the 12 digits: %q and %q", lc.Pair.SAS, dc.Pair.SAS)
		}
		desk.must("shared.pairConfirm", map[string]any{"same": same}, nil)
		if same {
			laptop.must("shared.pairConfirm", map[string]any{"same": true}, nil)
		} else {
			// The desk's "no" may end the laptop's pairing first.
			laptop.call("shared.pairConfirm", map[string]any{"same": true}, nil)
		}
		isEnd := func(e shared.Event) bool {
			return e.Type == shared.EvPair && (e.Pair.State == "done" || e.Pair.State == "failed")
		}
		return *laptop.sharedEvent(lFrom, isEnd).Pair, *desk.sharedEvent(dFrom, isEnd).Pair
	}

	l, dk := pair(false)
	if l.State != "failed" || dk.State != "failed" || dk.Reason != app.ReasonSharedSASRejected {
		t.Fatalf("digits said to differ: laptop %+v, desk %+v", l, dk)
	}
	desk.must("shared.devices", struct{}{}, &d)
	if d.Paired {
		t.Fatalf("a rejected pairing paired: %+v", d)
	}

	l, dk = pair(true)
	if l.State != "done" || dk.State != "done" || dk.Role != "join" {
		t.Fatalf("pairing: laptop %+v, desk %+v", l, dk)
	}
	for _, h := range []*home{laptop, desk} {
		h.must("shared.devices", struct{}{}, &d)
		if !d.Paired || len(d.Devices) != 2 {
			t.Fatalf("after pairing: %+v", d)
		}
	}
}
