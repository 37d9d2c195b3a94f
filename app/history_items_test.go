package app_test

import (
	"os"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
)

// listed is the sessions.list entry of a session.
func (h *harness) listed(id string) (app.SessionSummary, int) {
	h.t.Helper()
	var list []app.SessionSummary
	h.mustCall("sessions.list", map[string]any{}, &list)
	for i, s := range list {
		if s.ID == id {
			return s, i
		}
	}
	h.t.Fatalf("session %s not listed: %+v", id, list)
	return app.SessionSummary{}, -1
}

// The agent's own title (session_info_update) replaces mnote's guess from
// the first prompt, live, after a restart and after a rebuild of the index;
// a title the user gave is kept.
func TestAgentTitleUnlessRenamed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(`{"title":"Trip planning"}`, `{"message":"ok"}`))
	h.waitTurnEnded(sum.ID, from, 1)
	if s, _ := h.listed(sum.ID); s.Title != "Trip planning" {
		t.Fatalf("live title %q", s.Title)
	}
	if snap := h.open(sum.ID); snap.Thread.Title != "Trip planning" {
		t.Fatalf("thread title %q", snap.Thread.Title)
	}
	h.svc.Shutdown()
	h.start()
	if s, _ := h.listed(sum.ID); s.Title != "Trip planning" {
		t.Fatalf("title after a restart %q", s.Title)
	}
	h.svc.Shutdown()
	if err := os.Remove(h.paths.DB); err != nil {
		t.Fatal(err)
	}
	h.start()
	if s, _ := h.listed(sum.ID); s.Title != "Trip planning" {
		t.Fatalf("title after the index was rebuilt %q", s.Title)
	}

	// Renamed by the user: the agent's next title does not apply.
	h.mustCall("sessions.rename", map[string]any{"id": sum.ID, "title": "Mine"}, nil)
	from = h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(`{"title":"Agent again"}`, `{"message":"ok"}`))
	h.waitTurnEnded(sum.ID, from, 2)
	if s, _ := h.listed(sum.ID); s.Title != "Mine" {
		t.Fatalf("title after the agent's second title %q", s.Title)
	}
	h.svc.Shutdown()
	h.start()
	if s, _ := h.listed(sum.ID); s.Title != "Mine" {
		t.Fatalf("renamed title after a restart %q", s.Title)
	}
}

// A session's time in the history is its last activity: renaming it,
// closing it and quitting mnote do not move it.
func TestHistoryTimeIsLastActivity(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a := h.create("test")
	from := h.rec.Len()
	h.prompt(a.ID, "first session")
	h.waitTurnEnded(a.ID, from, 1)
	b := h.create("test")
	from = h.rec.Len()
	h.prompt(b.ID, "second session")
	h.waitTurnEnded(b.ID, from, 1)

	before, i := h.listed(a.ID)
	if i != 1 {
		t.Fatalf("a at %d, want 1 (b is newer)", i)
	}
	h.mustCall("sessions.rename", map[string]any{"id": a.ID, "title": "Renamed"}, nil)
	after, i := h.listed(a.ID)
	if i != 1 || after.UpdatedMs != before.UpdatedMs || after.Title != "Renamed" {
		t.Fatalf("after rename: at %d, %+v (before %+v)", i, after, before)
	}
	h.mustCall("sessions.close", map[string]any{"id": a.ID}, nil)
	if closed, _ := h.listed(a.ID); closed.UpdatedMs != before.UpdatedMs {
		t.Fatalf("closing moved it: %d → %d", before.UpdatedMs, closed.UpdatedMs)
	}
	bBefore, _ := h.listed(b.ID)
	h.svc.Shutdown()
	h.start()
	if s, i := h.listed(a.ID); i != 1 || s.UpdatedMs != before.UpdatedMs {
		t.Fatalf("after a restart: a at %d, %d (was %d)", i, s.UpdatedMs, before.UpdatedMs)
	}
	if s, _ := h.listed(b.ID); s.UpdatedMs != bBefore.UpdatedMs {
		t.Fatalf("quitting moved b: %d → %d", bBefore.UpdatedMs, s.UpdatedMs)
	}
	// Renaming a closed session does not move it either.
	h.mustCall("sessions.rename", map[string]any{"id": a.ID, "title": "Renamed again"}, nil)
	if s, i := h.listed(a.ID); i != 1 || s.UpdatedMs != before.UpdatedMs {
		t.Fatalf("after renaming the closed session: at %d, %d (was %d)", i, s.UpdatedMs, before.UpdatedMs)
	}
}
