package app_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"mnote/app"
	"mnote/store"
	"mnote/thread"
)

// converse runs prompts one after the other in a session, each to its end.
func (h *harness) converse(id string, prompts ...string) {
	h.t.Helper()
	for _, p := range prompts {
		turn := h.prompt(id, p)
		if tp := h.waitTurnEnded(id, 0, turn); tp.StopReason != "end_turn" {
			h.t.Fatalf("turn %d (%q) ended %q", turn, p, tp.StopReason)
		}
	}
}

// fork calls sessions.fork and waits for the new prompt's turn to end.
func (h *harness) fork(id string, turn int, text string) app.ForkResult {
	h.t.Helper()
	var res app.ForkResult
	h.mustCall("sessions.fork", map[string]any{"sessionId": id, "turn": turn, "text": text}, &res)
	if tp := h.waitTurnEnded(res.Session.ID, 0, res.Turn); tp.StopReason != "end_turn" {
		h.t.Fatalf("the fork's turn %d ended %q:\n%s", res.Turn, tp.StopReason, h.dump(res.Session.ID))
	}
	return res
}

// records reads a session's transcript.
func (h *harness) records(id string) []store.Record {
	h.t.Helper()
	var out []store.Record
	if _, err := store.ReadTranscript(h.paths.TranscriptPath(id), func(r store.Record) error {
		r.Data = slices.Clone(r.Data)
		out = append(out, r)
		return nil
	}); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// sent is the data of the records mnote sent the agent with that method.
func sent(recs []store.Record, method string) []string {
	var out []string
	for _, r := range recs {
		if r.Dir == store.DirOut && r.Kind == method {
			out = append(out, string(r.Data))
		}
	}
	return out
}

func TestForkFallbackSendsEarlierTurns(t *testing.T) {
	h := newHarness(t)
	orig := h.create("test")
	h.converse(orig.ID, "first question", "second question", "third question")

	res := h.fork(orig.ID, 2, "second question, edited")
	if res.How != app.ForkHowContext || res.Turn != 2 {
		t.Fatalf("fork: how %q turn %d, want context 2", res.How, res.Turn)
	}
	fork := res.Session.ID
	if fork == orig.ID {
		t.Fatal("the fork is the original")
	}

	// The fork's thread: turn 1 copied, then the edited prompt answered.
	snap := h.open(fork)
	users := texts(snap.Thread.Entries, thread.EntryUserMessage)
	if !slices.Equal(users, []string{"first question", "second question, edited"}) {
		t.Fatalf("fork's prompts %q", users)
	}
	answers := texts(snap.Thread.Entries, thread.EntryAssistantMessage)
	if !slices.Equal(answers, []string{"echo: first question", "echo: second question, edited"}) {
		t.Fatalf("fork's answers %q", answers)
	}
	// The earlier turns went to the agent with the prompt, as an embedded
	// resource (the test agent takes them): the message shows it as an
	// attachment, not in its text.
	last := snap.Thread.Entries[slices.IndexFunc(snap.Thread.Entries, func(e thread.Entry) bool {
		return e.Kind == thread.EntryUserMessage && e.Turn == 2
	})]
	if len(last.Blocks) != 1 || last.Blocks[0].Type != "resource" || !strings.Contains(string(last.Blocks[0].Raw), "earlier-turns.md") {
		t.Fatalf("the edited prompt's blocks: %+v", last.Blocks)
	}
	recs := h.records(fork)
	prompts := sent(recs, store.KindSessionPrompt)
	if len(prompts) != 1 {
		t.Fatalf("the fork sent %d prompts", len(prompts))
	}
	for _, want := range []string{"Earlier in this conversation", "first question", "echo: first question", "second question, edited"} {
		if !strings.Contains(prompts[0], want) {
			t.Errorf("the fork's prompt lacks %q: %s", want, prompts[0])
		}
	}
	for _, not := range []string{"third question", "echo: second question\\n"} {
		if strings.Contains(prompts[0], not) {
			t.Errorf("the fork's prompt carries a later turn (%q): %s", not, prompts[0])
		}
	}
	if n := len(sent(recs, store.KindSessionFork)); n != 0 {
		t.Errorf("the agent cannot fork, yet %d session/fork were sent", n)
	}
	// The copy holds none of the original's JSON-RPC lines or bindings:
	// one binding, the fork's own.
	bound := 0
	for _, r := range recs {
		if r.Dir == store.DirApp && r.Kind == store.KindRuntimeBound {
			bound++
		}
	}
	if bound != 1 || len(sent(recs, "session/new")) != 1 {
		t.Errorf("the fork has %d bindings and %d session/new", bound, len(sent(recs, "session/new")))
	}

	// Linked both ways; the original is as it was.
	fs := res.Session.ForkedFrom
	if fs == nil || fs.SessionID != orig.ID || fs.Turn != 2 || fs.How != app.ForkHowContext || fs.Title != "first question" {
		t.Fatalf("fork's forkedFrom %+v", fs)
	}
	o := h.open(orig.ID)
	if got := texts(o.Thread.Entries, thread.EntryUserMessage); len(got) != 3 || got[2] != "third question" {
		t.Fatalf("original's prompts now %q", got)
	}
	if len(o.Session.Forks) != 1 || o.Session.Forks[0].SessionID != fork || o.Session.Forks[0].Turn != 2 {
		t.Fatalf("original's forks %+v", o.Session.Forks)
	}
	if o.Session.ForkedFrom != nil {
		t.Fatalf("the original says it is a fork: %+v", o.Session.ForkedFrom)
	}

	// After a restart, with the index rebuilt from the transcripts, the
	// links are still there.
	h.svc.Shutdown()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(h.paths.DB + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	h.start()
	o = h.open(orig.ID)
	if len(o.Session.Forks) != 1 || o.Session.Forks[0].SessionID != fork {
		t.Fatalf("after a rebuild, original's forks %+v", o.Session.Forks)
	}
	f := h.open(fork)
	if f.Session.ForkedFrom == nil || f.Session.ForkedFrom.SessionID != orig.ID || f.Session.ForkedFrom.How != app.ForkHowContext {
		t.Fatalf("after a rebuild, fork's forkedFrom %+v", f.Session.ForkedFrom)
	}
	if got := texts(f.Thread.Entries, thread.EntryUserMessage); !slices.Equal(got, users) {
		t.Fatalf("after a rebuild, fork's prompts %q", got)
	}
	var list []app.SessionSummary
	h.mustCall("sessions.list", map[string]any{}, &list)
	i := slices.IndexFunc(list, func(s app.SessionSummary) bool { return s.ID == fork })
	if i < 0 || list[i].ForkedFrom == nil || list[i].ForkedFrom.Turn != 2 {
		t.Fatalf("sessions.list: %+v", list)
	}
}

func TestForkWithSessionFork(t *testing.T) {
	h := newHarness(t)
	h.saveAgent("forky", "--state", h.state, "--scenario-json", `{"fork":true}`)
	orig := h.create("forky")
	h.converse(orig.ID, "one", "two")
	var asid string
	for _, r := range h.records(orig.ID) {
		if r.Dir == store.DirApp && r.Kind == store.KindRuntimeBound {
			var b store.RuntimeBoundRecord
			if err := json.Unmarshal(r.Data, &b); err != nil {
				t.Fatal(err)
			}
			asid = b.AgentSessionID
		}
	}

	// At the end of the conversation the agent forks its own session.
	res := h.fork(orig.ID, 3, "three")
	if res.How != app.ForkHowFork || res.Turn != 3 {
		t.Fatalf("fork: how %q turn %d, want fork 3", res.How, res.Turn)
	}
	recs := h.records(res.Session.ID)
	forks := sent(recs, store.KindSessionFork)
	if len(forks) != 1 || !strings.Contains(forks[0], `"sessionId":"`+asid+`"`) {
		t.Fatalf("session/fork sent %q, want one of %s", forks, asid)
	}
	if n := len(sent(recs, "session/new")); n != 0 {
		t.Errorf("%d session/new besides session/fork", n)
	}
	prompts := sent(recs, store.KindSessionPrompt)
	if len(prompts) != 1 || strings.Contains(prompts[0], "Earlier in this conversation") {
		t.Fatalf("a forked agent session got the earlier turns again: %q", prompts)
	}
	snap := h.open(res.Session.ID)
	if got := texts(snap.Thread.Entries, thread.EntryUserMessage); !slices.Equal(got, []string{"one", "two", "three"}) {
		t.Fatalf("fork's prompts %q", got)
	}
	if f := snap.Session.ForkedFrom; f == nil || f.How != app.ForkHowFork || f.Turn != 3 {
		t.Fatalf("fork's forkedFrom %+v", f)
	}

	// An earlier turn: session/fork would bring the later turns along, so
	// the earlier ones go as context.
	res = h.fork(orig.ID, 1, "one, edited")
	if res.How != app.ForkHowContext || res.Turn != 1 {
		t.Fatalf("fork at turn 1: how %q turn %d", res.How, res.Turn)
	}
	recs = h.records(res.Session.ID)
	if n := len(sent(recs, store.KindSessionFork)); n != 0 {
		t.Errorf("%d session/fork for an earlier turn", n)
	}
	// Nothing came before turn 1: no earlier turns to send.
	if p := sent(recs, store.KindSessionPrompt); len(p) != 1 || strings.Contains(p[0], "Earlier in this conversation") {
		t.Fatalf("prompts %q", p)
	}
	o := h.open(orig.ID)
	if len(o.Session.Forks) != 2 || o.Session.Forks[0].Turn != 3 || o.Session.Forks[1].Turn != 1 {
		t.Fatalf("original's forks %+v", o.Session.Forks)
	}
}

func TestForkRefusals(t *testing.T) {
	h := newHarness(t)
	orig := h.create("test")
	h.converse(orig.ID, "only")
	for _, c := range []struct {
		args map[string]any
		code string
	}{
		{map[string]any{"sessionId": orig.ID, "turn": 3, "text": "x"}, app.CodeBadRequest},
		{map[string]any{"sessionId": orig.ID, "turn": 0, "text": "x"}, app.CodeBadRequest},
		{map[string]any{"sessionId": orig.ID, "turn": 1, "text": "  "}, app.CodeBadRequest},
		{map[string]any{"sessionId": "nosuch", "turn": 1, "text": "x"}, app.CodeNotFound},
	} {
		if e := h.call("sessions.fork", c.args, nil); codeOf(e) != c.code {
			t.Errorf("%v: %v, want %s", c.args, e, c.code)
		}
	}
	var list []app.SessionSummary
	h.mustCall("sessions.list", map[string]any{}, &list)
	if len(list) != 1 {
		t.Fatalf("refused forks left sessions behind: %+v", list)
	}
}

// A fork has its own title, numbered among the original's forks in the
// person's language, kept over the original's titles and after a rebuild;
// the list and search name the original; a message a fork copied from the
// original is found once.
func TestForkTitlesAndSearchOnce(t *testing.T) {
	h := newHarness(t)
	orig := h.create("test")
	h.converse(orig.ID, "缓存命中率怎么算", "第二个问题")
	h.mustCall("sessions.rename", map[string]any{"id": orig.ID, "title": "缓存实验"}, nil)

	var f1, f2, f3 app.ForkResult
	h.mustCall("sessions.fork", map[string]any{"sessionId": orig.ID, "turn": 2, "text": "第二个问题，改过", "locale": "zh-CN"}, &f1)
	h.waitTurnEnded(f1.Session.ID, 0, f1.Turn)
	h.mustCall("sessions.fork", map[string]any{"sessionId": orig.ID, "turn": 2, "text": "独一无二的分叉问题", "locale": "zh-CN"}, &f2)
	h.waitTurnEnded(f2.Session.ID, 0, f2.Turn)
	h.mustCall("sessions.fork", map[string]any{"sessionId": orig.ID, "turn": 3, "text": "third, in English"}, &f3)
	h.waitTurnEnded(f3.Session.ID, 0, f3.Turn)
	want := map[string]string{f1.Session.ID: "缓存实验 (分叉 1)", f2.Session.ID: "缓存实验 (分叉 2)", f3.Session.ID: "缓存实验 (fork 3)"}
	for id, title := range want {
		if got := h.open(id).Session.Title; got != title {
			t.Errorf("fork %s is titled %q, want %q", id, got, title)
		}
	}

	check := func(when string) {
		t.Helper()
		var list []app.SessionSummary
		h.mustCall("sessions.list", map[string]any{}, &list)
		for _, s := range list {
			if title, ok := want[s.ID]; ok {
				if s.Title != title || s.ForkedFrom == nil || s.ForkedFrom.SessionID != orig.ID || s.ForkedFrom.Title != "缓存实验" {
					t.Errorf("%s: sessions.list has fork %q forkedFrom %+v", when, s.Title, s.ForkedFrom)
				}
			} else if s.ForkedFrom != nil {
				t.Errorf("%s: the original is listed as a fork: %+v", when, s.ForkedFrom)
			}
		}
		// Turn 1 is in the original and copied into the three forks: one hit.
		var hits []app.Hit
		h.mustCall("sessions.search", map[string]any{"query": "命中率"}, &hits)
		if len(hits) != 2 { // the prompt and its echo
			t.Fatalf("%s: %d hits for a copied turn: %+v", when, len(hits), hits)
		}
		for _, hit := range hits {
			if hit.SessionID != orig.ID || hit.ForkedFrom != nil {
				t.Errorf("%s: the copied turn is found in %s (%q), not in the original", when, hit.SessionID, hit.Title)
			}
		}
		// A fork's own turn is found there, naming the original.
		h.mustCall("sessions.search", map[string]any{"query": "独一无二"}, &hits)
		if len(hits) != 2 || hits[0].SessionID != f2.Session.ID || hits[0].ForkedFrom == nil || hits[0].ForkedFrom.SessionID != orig.ID || hits[0].ForkedFrom.Title != "缓存实验" {
			t.Fatalf("%s: hits for the fork's own turn: %+v", when, hits)
		}
	}
	check("live")

	// The original in the trash: its turn is found once, in a fork.
	h.mustCall("sessions.delete", map[string]any{"id": orig.ID}, nil)
	var hits []app.Hit
	h.mustCall("sessions.search", map[string]any{"query": "命中率"}, &hits)
	if len(hits) != 2 || hits[0].SessionID == orig.ID {
		t.Fatalf("with the original in the trash: %+v", hits)
	}
	h.mustCall("sessions.restore", map[string]any{"id": orig.ID}, nil)

	// Rebuilt from the transcripts: the titles are the forks' own.
	h.svc.Shutdown()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(h.paths.DB + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	h.start()
	check("rebuilt")
}
