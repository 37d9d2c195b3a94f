package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
	"mnote/thread"
)

// Past sessions: list, search, rename, delete and restore; then an app
// restart lists the session, opens it from its transcript without an
// agent, and continues it.
func TestSessionHistory(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	from := h.rec.Len()
	h.prompt(sum.ID, "remember the zebra crossing")
	h.waitTurnEnded(sum.ID, from, 1)
	other := h.create("test")

	var list []app.SessionSummary
	h.mustCall("sessions.list", map[string]any{}, &list)
	if len(list) != 2 || list[0].ID != other.ID || list[1].ID != sum.ID {
		t.Fatalf("list (newest first): %+v", list)
	}
	if s := list[1]; s.Title != "remember the zebra crossing" || s.Turns != 1 || s.LastStopReason != "end_turn" || !s.Live || s.Agent != "test" {
		t.Fatalf("summary: %+v", s)
	}
	h.mustCall("sessions.list", map[string]any{"limit": 1, "offset": 1}, &list)
	if len(list) != 1 || list[0].ID != sum.ID {
		t.Fatalf("paged list: %+v", list)
	}

	var hits []app.Hit
	h.mustCall("sessions.search", map[string]any{"query": "zebra"}, &hits)
	if len(hits) < 2 || hits[0].SessionID != sum.ID || hits[0].Entry == "" || len(hits[0].Entries) == 0 {
		t.Fatalf("hits: %+v", hits)
	}

	// Rename a live session, then a closed one.
	from = h.rec.Len()
	var renamed app.SessionSummary
	h.mustCall("sessions.rename", map[string]any{"id": sum.ID, "title": "Zebra notes"}, &renamed)
	if renamed.Title != "Zebra notes" {
		t.Fatalf("renamed: %+v", renamed)
	}
	if _, _, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool { return ev.Name == app.EventSessionsChanged }); err != nil {
		t.Fatal(err)
	}
	h.mustCall("sessions.close", map[string]any{"id": other.ID}, nil)
	h.mustCall("sessions.rename", map[string]any{"id": other.ID, "title": "Empty one"}, &renamed)
	if renamed.Title != "Empty one" || renamed.Live {
		t.Fatalf("renamed closed session: %+v", renamed)
	}

	// Delete (a live session is closed first) and restore.
	h.mustCall("sessions.delete", map[string]any{"id": sum.ID}, nil)
	h.mustCall("sessions.list", map[string]any{}, &list)
	if len(list) != 1 || list[0].ID != other.ID {
		t.Fatalf("after delete: %+v", list)
	}
	h.mustCall("sessions.search", map[string]any{"query": "zebra"}, &hits)
	if len(hits) != 0 {
		t.Fatalf("deleted session still found: %+v", hits)
	}
	if e := h.call("sessions.open", map[string]any{"id": sum.ID}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("open deleted: %v", e)
	}
	var restored app.SessionSummary
	h.mustCall("sessions.restore", map[string]any{"id": sum.ID}, &restored)
	if restored.Title != "Zebra notes" || restored.Turns != 1 || restored.Live {
		t.Fatalf("restored: %+v", restored)
	}
	if e := h.call("sessions.restore", map[string]any{"id": sum.ID}, nil); codeOf(e) == "ok" {
		t.Fatal("restored twice")
	}

	// Restart the app on the same data.
	h.svc.Shutdown()
	h.start()
	h.mustCall("sessions.list", map[string]any{}, &list)
	if len(list) != 2 || list[0].ID != sum.ID && list[1].ID != sum.ID {
		t.Fatalf("after restart: %+v", list)
	}
	for _, s := range list {
		if s.Live || s.Status == app.StatusRunning {
			t.Fatalf("nothing runs after a restart: %+v", s)
		}
	}
	snap := h.open(sum.ID)
	if snap.Session.Live || snap.Session.Title != "Zebra notes" || snap.Running {
		t.Fatalf("opened: %+v", snap.Session)
	}
	if !hasText(snap.Thread.Entries, thread.EntryUserMessage, "remember the zebra crossing") ||
		!hasText(snap.Thread.Entries, thread.EntryAssistantMessage, "echo: remember the zebra crossing") {
		t.Fatalf("snapshot from the transcript: %+v", snap.Thread.Entries)
	}
	h.mustCall("sessions.list", map[string]any{}, &list)
	for _, s := range list {
		if s.Live {
			t.Fatalf("opening started the session: %+v", s)
		}
	}

	// Continue it: the agent is started and loads its session.
	from = h.rec.Len()
	if turn := h.prompt(sum.ID, "and the giraffe"); turn != 2 {
		t.Fatalf("turn %d", turn)
	}
	if tp := h.waitTurnEnded(sum.ID, from, 2); tp.StopReason != "end_turn" {
		t.Fatalf("continued turn: %+v", tp)
	}
	snap = h.open(sum.ID)
	got := texts(snap.Thread.Entries, thread.EntryAssistantMessage)
	if len(got) != 2 || got[0] != "echo: remember the zebra crossing" || got[1] != "echo: and the giraffe" {
		t.Fatalf("continued thread: %q", got)
	}
	if !snap.Session.Live || snap.Session.Turns != 2 || snap.Session.Title != "Zebra notes" {
		t.Fatalf("continued session: %+v", snap.Session)
	}
	// The events of the continued turn follow the seq of the snapshot
	// opened before (0: nothing was streamed in this process), and
	// build the same thread.
	b := build(t, h.threadEvents(sum.ID))
	if b.lastSeq != snap.Seq || !hasText(b.list(), thread.EntryAssistantMessage, "echo: and the giraffe") {
		t.Fatalf("events of the continued session:\n%s", h.dump(sum.ID))
	}

	// Switch agents: a new binding, said in a notice.
	h.saveAgent("other", "--scenario-json", `{"agentInfo":{"name":"other-agent","version":"2"}}`)
	from = h.rec.Len()
	var switched app.SessionSummary
	h.mustCall("sessions.switchAgent", map[string]any{"id": sum.ID, "agent": "other"}, &switched)
	if switched.Agent != "other" || switched.Status != app.StatusReady {
		t.Fatalf("switched: %+v", switched)
	}
	// The thread says so, live and after a restart.
	h.waitEvent(sum.ID, from, app.EvEntry, func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"kind":"runtime"`) && strings.Contains(string(p), `"previous":"test"`)
	})
	h.prompt(sum.ID, "hello other")
	h.waitTurnEnded(sum.ID, from, 3)
	if got := h.answers(sum.ID); got[len(got)-1] != "echo: hello other" {
		t.Fatalf("after switching: %q", got)
	}
	runtimeEntries := func() []thread.Entry {
		var out []thread.Entry
		for _, e := range h.open(sum.ID).Thread.Entries {
			if e.Kind == thread.EntryRuntime {
				out = append(out, e)
			}
		}
		return out
	}
	want := thread.RuntimeChange{Runtime: "other", Previous: "test", How: "new"}
	if rs := runtimeEntries(); len(rs) != 1 || *rs[0].Runtime != want {
		t.Fatalf("runtime entries: %+v", rs)
	}
	h.svc.Shutdown()
	h.start()
	if rs := runtimeEntries(); len(rs) != 1 || *rs[0].Runtime != want {
		t.Fatalf("runtime entries after a restart: %+v", rs)
	}
	_ = acptest.Steps
}
