package thread

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// pair drives a thread that keeps everything and one that forgets
// (SetForgetDone) in lockstep, and checks after every call that both
// returned the same and agree on Len, Meta and the entries still kept.
type pair struct {
	t           *testing.T
	whole, forg *Thread
	steps       int
}

func newPair(t *testing.T) *pair {
	p := &pair{t: t, whole: newTestThread(), forg: newTestThread()}
	p.forg.SetForgetDone()
	return p
}

// same calls f on both threads and checks that both returned the same.
func same[T any](p *pair, what string, f func(*Thread) T) T {
	p.t.Helper()
	w, g := f(p.whole), f(p.forg)
	if !reflect.DeepEqual(w, g) {
		p.t.Errorf("%s: whole thread returned %+v, forgetting thread %+v", what, w, g)
	}
	p.check(what)
	return w
}

// do is same for a call that may fail; an error fails the test.
func (p *pair) do(what string, f func(*Thread) (Change, error)) Change {
	p.t.Helper()
	type result struct {
		Ch  Change
		Err string
	}
	r := same(p, what, func(th *Thread) result { ch, err := f(th); return result{ch, fmt.Sprint(err)} })
	if r.Err != "<nil>" {
		p.t.Fatalf("%s: %s", what, r.Err)
	}
	return r.Ch
}

func (p *pair) apply(s string) Change {
	p.t.Helper()
	return p.do(s, func(th *Thread) (Change, error) { return th.Apply(upd(p.t, s)) })
}

func (p *pair) prompt(text string) Change {
	p.t.Helper()
	return same(p, "prompt "+text, func(th *Thread) Change { return th.AddUserPrompt([]ContentBlock{{Type: "text", Text: text}}) })
}

func (p *pair) end(reason string) []Change {
	p.t.Helper()
	return same(p, "EndTurn "+reason, func(th *Thread) []Change { return th.EndTurn(reason) })
}

// resolve answers a permission request in both threads. The one allowed
// difference: a call already final and forgotten gives the forgetting
// thread an empty change (gone reports it).
func (p *pair) resolve(id, outcome, kind string) (gone bool) {
	p.t.Helper()
	old, known := p.whole.ToolCall(id)
	_, kept := p.forg.ToolCall(id)
	gone = known && isFinal(old.Status) && !kept
	w, g := p.whole.PermissionResolved(id, outcome, kind), p.forg.PermissionResolved(id, outcome, kind)
	if gone && (g != Change{} || w.Op != OpUpsert) || !gone && w != g {
		p.t.Errorf("PermissionResolved(%s) (forgotten %v): whole %+v, forgetting %+v", id, gone, w, g)
	}
	p.check("PermissionResolved " + id)
	return gone
}

// check compares the threads after a call: Len, Meta, and every entry the
// forgetting thread still holds against the whole thread's.
func (p *pair) check(what string) {
	p.t.Helper()
	p.steps++
	if w, g := p.whole.Len(), p.forg.Len(); w != g {
		p.t.Errorf("%s: Len %d (whole) != %d (forgetting)", what, w, g)
	}
	if w, g := p.whole.Meta(), p.forg.Meta(); !reflect.DeepEqual(w, g) {
		p.t.Errorf("%s: Meta\n whole %+v\nforget %+v", what, w, g)
	}
	if !slices.IsSorted(p.forg.kept) {
		p.t.Errorf("%s: kept not in order: %v", what, p.forg.kept)
	}
	for _, g := range p.forg.Entries() {
		w, ok := p.whole.Entry(g.ID)
		if !ok || w.Kind != g.Kind || w.Turn != g.Turn || w.Streaming != g.Streaming || !reflect.DeepEqual(w.Plan, g.Plan) {
			p.t.Errorf("%s: forgetting thread holds %+v, whole thread %+v", what, g, w)
			continue
		}
		head := g.Kind == EntryAssistantMessage || g.Kind == EntryThought
		if head && !strings.HasPrefix(w.Text, g.Text) || !head && g.Text != w.Text {
			p.t.Errorf("%s: %s text %q, whole thread %q", what, g.ID, g.Text, w.Text)
		}
		if g.ToolCall != nil && (g.ToolCall.ID != w.ToolCall.ID || g.ToolCall.ToolCallID != w.ToolCall.ToolCallID || g.ToolCall.Status != w.ToolCall.Status) {
			p.t.Errorf("%s: %s call %+v, whole thread %+v", what, g.ID, *g.ToolCall, *w.ToolCall)
		}
	}
}

// Wire updates for the scripts.
func call(kind, id, status, extra string) string {
	s := `{"sessionUpdate":"` + kind + `","toolCallId":"` + id + `"`
	if status != "" {
		s += `,"status":"` + status + `"`
	}
	return s + extra + "}"
}

func planOf(statuses ...string) string {
	var items []string
	for i, s := range statuses {
		items = append(items, fmt.Sprintf(`{"content":"step %d","priority":"medium","status":%q}`, i+1, s))
	}
	return `{"sessionUpdate":"plan","entries":[` + strings.Join(items, ",") + `]}`
}

// chatter is n agent message chunks, split into messages by a thought every
// fifth chunk.
func chatter(n int) []string {
	var out []string
	for i := range n {
		if i%5 == 4 {
			out = append(out, msg(KindAgentThoughtChunk, fmt.Sprintf("hmm %d", i)))
		}
		out = append(out, msgID(KindAgentMessageChunk, fmt.Sprintf("m%d", i/5), fmt.Sprintf("word %d ", i)))
	}
	return out
}

// A script step is a wire update ({...}) or op:args — prompt:text,
// end:reason, ask:toolCall (a permission request), answer:id:outcome:kind
// and gone:id:outcome:kind (the answer comes when the call is final and
// forgotten).
func TestForgetSameIDsAndChanges(t *testing.T) {
	var script []string
	add := func(s ...string) { script = append(script, s...) }
	// Turn 1: an echoed prompt, chatter, a plan replaced twice, a read, an
	// edit with permission, and a late update to the read.
	add("prompt:tidy the notes", msg(KindUserMessageChunk, "tidy the notes"),
		msg(KindAgentThoughtChunk, "first "), msg(KindAgentThoughtChunk, "thoughts"), planOf("pending", "pending"))
	add(chatter(23)...)
	add(call(KindToolCall, "c1", "pending", `,"title":"Read a.md","kind":"read"`),
		call(KindToolCallUpdate, "c1", "in_progress", ""),
		call(KindToolCallUpdate, "c1", "completed", `,"content":[{"type":"content","content":{"type":"text","text":"# A"}}]`),
		planOf("completed", "pending"),
		msg(KindAgentThoughtChunk, "now edit"),
		call(KindToolCall, "c2", "pending", `,"title":"Edit a.md","kind":"edit"`),
		"ask:"+call("", "c2", "pending", `,"title":"Edit a.md"`),
		"answer:c2:selected:allow_once",
		call(KindToolCallUpdate, "c2", "completed", `,"rawOutput":{"ok":true}`),
		planOf("completed", "completed"),
		`{"sessionUpdate":"usage_update","used":10,"size":100}`)
	add(chatter(12)...)
	add(call(KindToolCallUpdate, "c1", "completed", `,"rawOutput":{"late":true}`), // late: c1 forgotten
		msg(KindAgentMessageChunk, "bye"), "end:end_turn")
	// Turn 2: a call id of turn 1 again, a call completed before its
	// permission is answered, calls left running, a cancelled turn.
	add("prompt:again", planOf("pending"),
		call(KindToolCall, "c1", "in_progress", `,"title":"Read b.md","kind":"read"`),
		call(KindToolCallUpdate, "c1", "failed", ""),
		call(KindToolCall, "c3", "pending", `,"title":"rm junk","kind":"execute"`),
		"ask:"+call("", "c3", "", ""),
		call(KindToolCallUpdate, "c3", "completed", ""),
		msg(KindAgentThoughtChunk, "it ran anyway"), msg(KindAgentMessageChunk, "odd"),
		"gone:c3:selected:reject_once",
		call(KindToolCall, "c4", "in_progress", `,"title":"long"`),
		"ask:"+call("", "c5", "", `,"title":"unannounced"`))
	add(chatter(8)...)
	add("end:cancelled")
	// Turn 3, begun by an agent's user_message_chunk (no AddUserPrompt).
	add(msg(KindUserMessageChunk, "third"), call(KindToolCall, "c1", "completed", ""),
		"ask:"+call("", "c6", "", ""), "answer:c6:cancelled:", msg(KindAgentMessageChunk, "done"), "end:end_turn")

	p := newPair(t)
	gone := 0
	for i, s := range script {
		op, arg, _ := strings.Cut(s, ":")
		switch a := strings.Split(arg, ":"); {
		case s[0] == '{':
			p.apply(s)
		case op == "prompt":
			p.prompt(arg)
		case op == "end":
			p.end(arg)
		case op == "ask":
			p.do(s, func(th *Thread) (Change, error) {
				return th.PermissionRequested(json.RawMessage(arg), json.RawMessage(`[{"optionId":"y","name":"Yes","kind":"allow_once"}]`))
			})
		case (op == "answer" || op == "gone") && len(a) == 3:
			if g := p.resolve(a[0], a[1], a[2]); g != (op == "gone") {
				t.Errorf("step %d (%s): answer to a forgotten call %v, want %v", i, s, g, !g)
			} else if g {
				gone++
			}
		default:
			t.Fatalf("step %d: bad step %q", i, s)
		}
	}
	if gone != 1 || p.steps != len(script) {
		t.Errorf("%d forgotten answers, %d steps checked of %d", gone, p.steps, len(script))
	}
	if n := len(p.forg.Entries()); p.whole.Len() < 40 || n > 4 {
		t.Errorf("whole thread %d entries, forgetting thread holds %d", p.whole.Len(), n)
	}
	// Turn 2's cancel reached the calls left running.
	for _, id := range []string{"c4", "c5"} {
		if tc, ok := p.whole.ToolCall(id); !ok || tc.Status != StatusCancelled {
			t.Errorf("%s = %+v", id, tc)
		}
	}
}

// replayPair replays one recorded trace into both threads, wired as
// player.line wires it, comparing every call.
func replayPair(p *pair, path string) {
	t := p.t
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	clientReqs := make(map[string]string)
	agentReqs := make(map[string]permReq)
	for n, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		at := fmt.Sprintf("%s:%d", filepath.Base(path), n+1)
		dec := func(raw []byte, v any) {
			if err := json.Unmarshal(raw, v); err != nil {
				t.Fatalf("%s: %v", at, err)
			}
		}
		var l traceLine
		dec(line, &l)
		m, id := &l.Msg, string(l.Msg.ID)
		switch {
		case l.Dir == "agent->client" && m.Method == "session/update":
			var params struct{ Update json.RawMessage }
			dec(m.Params, &params)
			p.do(at, func(th *Thread) (Change, error) {
				var u Update
				dec(params.Update, &u)
				return th.Apply(&u)
			})
		case l.Dir == "agent->client" && m.Method == "session/request_permission":
			var params struct{ ToolCall, Options json.RawMessage }
			var tc struct{ ToolCallID string }
			var req permReq
			dec(m.Params, &params)
			dec(params.ToolCall, &tc)
			dec(params.Options, &req.options)
			p.do(at, func(th *Thread) (Change, error) { return th.PermissionRequested(params.ToolCall, params.Options) })
			req.toolCallID = tc.ToolCallID
			agentReqs[id] = req
		case l.Dir == "agent->client" && m.Method == "":
			switch clientReqs[id] {
			case "session/prompt":
				var r struct {
					StopReason string
					Usage      json.RawMessage
				}
				if m.Error != nil {
					r.StopReason = "error"
				} else {
					dec(m.Result, &r)
				}
				p.do(at, func(th *Thread) (Change, error) { return th.RecordTurnUsage(r.Usage) })
				p.end(r.StopReason)
			case "session/load":
				same(p, at, func(th *Thread) [2]int { a, d := th.EndReplay(); return [2]int{a, d} })
				fallthrough
			case "session/new":
				p.do(at, func(th *Thread) (Change, error) { return th.ApplySessionResult(m.Result) })
			}
			delete(clientReqs, id)
		case l.Dir == "client->agent" && m.Method == "":
			req, ok := agentReqs[id]
			if !ok {
				continue
			}
			delete(agentReqs, id)
			var r struct {
				Outcome struct{ Outcome, OptionID string }
			}
			dec(m.Result, &r)
			kind := ""
			for _, o := range req.options {
				if o.OptionID == r.Outcome.OptionID {
					kind = o.Kind
				}
			}
			p.resolve(req.toolCallID, r.Outcome.Outcome, kind)
		case l.Dir == "client->agent":
			clientReqs[id] = m.Method
			switch m.Method {
			case "session/prompt":
				var params struct{ Prompt []ContentBlock }
				dec(m.Params, &params)
				same(p, at, func(th *Thread) Change { return th.AddUserPrompt(params.Prompt) })
			case "session/load":
				same(p, at, func(th *Thread) bool { th.BeginReplay(); return true })
			}
		}
	}
}

func TestForgetTracesSameChanges(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.ndjson"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces: %v", err)
	}
	var runs [][]string
	for _, f := range files {
		runs = append(runs, []string{strings.TrimSuffix(filepath.Base(f), ".ndjson")})
	}
	// As TestTraceLoadAfterNew: a load replayed into the session's thread.
	runs = append(runs, []string{"qwen-new", "qwen-load"}, []string{"opencode-new", "opencode-load"})
	for _, names := range runs {
		t.Run(strings.Join(names, "+"), func(t *testing.T) {
			p := newPair(t)
			for _, name := range names {
				replayPair(p, filepath.Join("testdata", name+".ndjson"))
			}
			if p.steps < 10 || p.whole.Len() < 7 {
				t.Errorf("replay compared %d calls, %d entries", p.steps, p.whole.Len())
			}
		})
	}
}

// held are the ids of the entries a thread holds (not forgotten).
func held(th *Thread) (ids []string) {
	for i, e := range th.entries {
		if e != nil {
			ids = append(ids, entryID(i))
		}
	}
	return ids
}

// keptIDs are the ids of the kept indexes; entryIDs those of entries.
func keptIDs(th *Thread) (ids []string) {
	for _, i := range th.kept {
		ids = append(ids, entryID(i))
	}
	return ids
}

func entryIDs(es []Entry) (ids []string) {
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	return ids
}

func TestForgetBoundedMemory(t *testing.T) {
	th := newTestThread()
	th.SetForgetDone()
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "go"}})
	apply(t, th, planOf("pending"))
	stuck := apply(t, th, call(KindToolCall, "stuck", "in_progress", `,"title":"never ends"`))[0].EntryID
	maxKept, calls := 0, 0
	for turn := 1; th.Len() < 10000; {
		if th.Len() >= 1000*turn {
			turn++
			th.EndTurn("end_turn")
			th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "more"}})
			apply(t, th, planOf("pending"))
		}
		calls++
		id := fmt.Sprintf("c%d", calls)
		for _, s := range []string{
			msg(KindAgentMessageChunk, "a"), msg(KindAgentMessageChunk, "b"), msg(KindAgentThoughtChunk, "t"),
			call(KindToolCall, id, "pending", ""), call(KindToolCallUpdate, id, "in_progress", ""), call(KindToolCallUpdate, id, "completed", ""),
		} {
			apply(t, th, s)
			maxKept = max(maxKept, len(th.kept))
		}
	}
	if maxKept > 4 {
		t.Errorf("kept up to %d entries, want at most 4", maxKept)
	}
	if got, want := entryIDs(th.Entries()), keptIDs(th); len(want) > 4 || !slices.Equal(got, want) || !slices.Equal(held(th), want) || !slices.Contains(got, stuck) {
		t.Errorf("Entries() = %v, kept %v, held %v, want at most 4 with the running call %s", got, want, held(th), stuck)
	}
	// Ids of done turns' calls went with their entries.
	if len(th.byTool) > 1000/3+2 {
		t.Errorf("byTool holds %d ids", len(th.byTool))
	}
	if tc, ok := th.ToolCall("stuck"); !ok || tc.Status != StatusInProgress {
		t.Errorf("running call = %+v, %v", tc, ok)
	}
	if chs := th.EndTurn("cancelled"); !slices.Contains(chs, Change{Op: OpUpsert, EntryID: stuck, Kind: EntryToolCall}) {
		t.Errorf("EndTurn(cancelled) = %+v, want a change of %s", chs, stuck)
	}
	if tc, ok := th.ToolCall("stuck"); !ok || tc.Status != StatusCancelled {
		t.Errorf("after cancel: %+v, %v", tc, ok)
	}
}

func TestForgetLateUpdateRevivesCall(t *testing.T) {
	p := newPair(t)
	p.prompt("read it")
	id := p.apply(call(KindToolCall, "c1", "in_progress", `,"title":"Read","kind":"read"`)).EntryID
	p.apply(call(KindToolCallUpdate, "c1", "completed", ""))
	p.apply(msg(KindAgentMessageChunk, "a"))
	p.apply(msg(KindAgentThoughtChunk, "b"))
	if _, ok := p.forg.ToolCall("c1"); ok {
		t.Fatal("c1 not forgotten after two more entries")
	}
	if _, ok := p.forg.Entry(id); ok {
		t.Fatalf("Entry(%s) of a forgotten call found", id)
	}
	n := p.forg.Len()
	ch := p.apply(call(KindToolCallUpdate, "c1", "completed", `,"rawOutput":{"exit":0},"content":[{"type":"content","content":{"type":"text","text":"late"}}]`))
	if ch != (Change{Op: OpUpsert, EntryID: id, Kind: EntryToolCall}) || p.forg.Len() != n {
		t.Errorf("late update: %+v, Len %d -> %d", ch, n, p.forg.Len())
	}
	tc, ok := p.forg.ToolCall("c1")
	if !ok || tc.ID != id || tc.ToolCallID != "c1" || tc.Status != StatusCompleted || tc.EndedMs == 0 ||
		string(tc.RawOutput) != `{"exit":0}` || !reflect.DeepEqual(tc.Content, []ToolCallContent{textContent("late")}) {
		t.Errorf("revived call = %s, %v", mustJSON(tc), ok)
	}
	if got := entryIDs(p.forg.Entries()); !slices.Equal(got, []string{id, "e4"}) {
		t.Errorf("Entries() = %v", got)
	}
	// Done again: forgotten at the next entry.
	p.apply(msg(KindAgentMessageChunk, "c"))
	if _, ok := p.forg.ToolCall("c1"); ok {
		t.Error("revived final call kept after the next entry began")
	}
}

// A late update without a status revives the call in the final status it
// had, as the whole thread's call stays completed (and a rejected call is
// not made failed by the agent's follow-up).
func TestForgetLateUpdateWithoutStatus(t *testing.T) {
	p := newPair(t)
	p.prompt("x")
	p.apply(call(KindToolCall, "c1", "completed", ""))
	p.apply(msg(KindAgentMessageChunk, "a"))
	p.apply(call(KindToolCallUpdate, "c1", "", `,"rawOutput":{"late":true}`))
	if tc, ok := p.forg.ToolCall("c1"); !ok || tc.Status != StatusCompleted {
		t.Errorf("revived call = %+v, %v; want completed", tc, ok)
	}
	p.end("cancelled")
}

func TestForgetNewTurnReusedCallID(t *testing.T) {
	p := newPair(t)
	p.prompt("one")
	old := p.apply(call(KindToolCall, "x", "completed", `,"title":"Read a"`)).EntryID
	p.apply(call(KindToolCall, "y", "in_progress", ""))
	p.apply(msg(KindAgentMessageChunk, "done"))
	p.end("end_turn")
	if _, ok := p.forg.byTool["x"]; !ok {
		t.Fatal("x's id dropped within its turn (a late update could not merge)")
	}
	p.prompt("two")
	if ref, ok := p.forg.byTool["x"]; ok {
		t.Errorf("forgetTurn kept the forgotten call x of turn 1: %+v", ref)
	}
	if ref, ok := p.forg.byTool["y"]; !ok || ref.turn != 1 {
		t.Errorf("y (still running) = %+v, %v", ref, ok)
	}
	n := p.forg.Len()
	ch := p.apply(call(KindToolCall, "x", "pending", `,"title":"Read b"`))
	if ch.EntryID == old || ch.EntryID != entryID(n) || p.forg.Len() != n+1 {
		t.Errorf("reused id: %+v (old entry %s), Len %d -> %d", ch, old, n, p.forg.Len())
	}
	if ref := p.forg.byTool["x"]; ref.turn != 2 || entryID(ref.i) != ch.EntryID {
		t.Errorf("byTool[x] = %+v", ref)
	}
	if tc, ok := p.forg.ToolCall("x"); !ok || tc.ID != ch.EntryID || tc.Title != "Read b" || tc.Status != StatusPending {
		t.Errorf("x = %+v, %v", tc, ok)
	}
	if _, ok := p.forg.Entry(old); ok {
		t.Errorf("old x entry %s came back", old)
	}
	// The running call of turn 1 gets a new entry too, as in the whole thread.
	if ch := p.apply(call(KindToolCallUpdate, "y", "completed", "")); ch.EntryID != entryID(n+1) {
		t.Errorf("y in turn 2: %+v", ch)
	}
}

func TestForgetKeepsHead(t *testing.T) {
	big := strings.Repeat("a", ForgetKeepsHead-1) + "€" + strings.Repeat("b", ForgetKeepsHead+1)
	if len(big) != 2<<20+3 || utf8.RuneStart(big[ForgetKeepsHead]) {
		t.Fatalf("bad fixture: %d bytes", len(big))
	}
	chunk := func(kind, text string) *Update {
		return &Update{SessionUpdate: kind, Content: json.RawMessage(`{"type":"text","text":` + mustJSON(text) + `}`)}
	}
	for _, tc := range []struct {
		kind, head string
		more       bool // later chunks add to the text
	}{
		{KindAgentMessageChunk, big[:ForgetKeepsHead-1], false},
		{KindAgentThoughtChunk, big[:ForgetKeepsHead-1], false},
		{KindUserMessageChunk, big, true},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			th := newTestThread()
			th.SetForgetDone()
			ch, err := th.Apply(chunk(tc.kind, big))
			if err != nil || ch.Op != OpUpsert || ch.Delta != big {
				t.Fatalf("first chunk: %v, op %q, delta of %d bytes", err, ch.Op, len(ch.Delta))
			}
			_, head, ok := th.EntryHead(ch.EntryID, 4<<20)
			if !ok || head != tc.head || !utf8.ValidString(head) || (!tc.more && len(head) > ForgetKeepsHead) {
				t.Errorf("head of %d bytes (valid %v), want %d", len(head), utf8.ValidString(head), len(tc.head))
			}
			ch2, err := th.Apply(chunk(tc.kind, " tail"))
			if err != nil || ch2 != (Change{Op: OpAppend, EntryID: ch.EntryID, Kind: ch.Kind, Delta: " tail"}) {
				t.Errorf("second chunk: %+v, %v", ch2, err)
			}
			want := tc.head
			if tc.more {
				want += " tail"
			}
			if _, head, _ := th.EntryHead(ch.EntryID, 4<<20); head != want {
				t.Errorf("after a later chunk: %d bytes, want %d", len(head), len(want))
			}
		})
	}
}

func TestSetForgetDoneOnAFullThread(t *testing.T) {
	th := newTestThread()
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "fill"}})
	apply(t, th, planOf("pending"), call(KindToolCall, "run", "in_progress", ""))
	for i := 0; th.Len() < 100; i++ {
		switch i % 3 {
		case 0:
			apply(t, th, msg(KindAgentMessageChunk, "m"), msg(KindAgentMessageChunk, "+"))
		case 1:
			apply(t, th, msg(KindAgentThoughtChunk, "t"))
		case 2:
			apply(t, th, call(KindToolCall, fmt.Sprint("c", i), "completed", ""))
		}
	}
	before := th.Entries()
	th.SetForgetDone()
	th.SetForgetDone()
	if len(th.kept) != 100 || !slices.IsSorted(th.kept) || th.kept[99] != 99 {
		t.Fatalf("kept = %v", th.kept)
	}
	if !reflect.DeepEqual(th.Entries(), before) {
		t.Error("entries changed before the next entry began")
	}
	ch := apply(t, th, msg(KindAgentThoughtChunk, "next"))[0]
	want := []string{"e2", "e3", ch.EntryID} // plan, running call, new (the prompt can no longer be echoed)
	if got := entryIDs(th.Entries()); !slices.Equal(got, want) || !slices.Equal(keptIDs(th), want) || !slices.Equal(held(th), want) || th.Len() != 101 {
		t.Errorf("after the next entry: Entries %v, kept %v, held %v, Len %d", got, keptIDs(th), held(th), th.Len())
	}
	th.SetForgetDone() // again, once entries are forgotten
	apply(t, th, call(KindToolCall, "last", "pending", ""))
	if want := []string{"e2", "e3", "e102"}; !slices.Equal(keptIDs(th), want) || !slices.Equal(held(th), want) {
		t.Errorf("after a third SetForgetDone: kept %v, held %v", keptIDs(th), held(th))
	}
}
