package app_test

import (
	"testing"
	"time"

	"mnote/app"
	"mnote/thread"
)

// The trash from the window: sessions.trash lists deleted sessions (the
// latest deleted first, with when), sessions.restore puts one back in the
// list in its place by last activity with its transcript, and
// sessions.purge deletes one for good.
func TestSessionsTrash(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var trash []app.TrashedSession
	h.mustCall("sessions.trash", struct{}{}, &trash)
	if len(trash) != 0 {
		t.Fatalf("a new app's trash: %+v", trash)
	}
	older := h.create("test")
	from := h.rec.Len()
	h.prompt(older.ID, "the older one")
	h.waitTurnEnded(older.ID, from, 1)
	time.Sleep(10 * time.Millisecond) // distinct times of last activity (ms)
	middle := h.create("test")
	from = h.rec.Len()
	h.prompt(middle.ID, "the middle one")
	h.waitTurnEnded(middle.ID, from, 1)
	time.Sleep(10 * time.Millisecond)
	newest := h.create("test")

	var before []app.SessionSummary
	h.mustCall("sessions.list", map[string]any{}, &before)
	if len(before) != 3 || before[1].ID != middle.ID {
		t.Fatalf("list: %+v", before)
	}
	h.mustCall("sessions.delete", map[string]any{"id": middle.ID}, nil)
	h.mustCall("sessions.delete", map[string]any{"id": older.ID}, nil)
	h.mustCall("sessions.trash", struct{}{}, &trash)
	if len(trash) != 2 || trash[0].ID != older.ID || trash[1].ID != middle.ID {
		t.Fatalf("trash (latest deleted first): %+v", trash)
	}
	m := trash[1]
	if m.Title != "the middle one" || m.Turns != 1 || m.Agent != "test" || m.Workspace == "" ||
		m.UpdatedMs != before[1].UpdatedMs || m.DeletedMs < m.UpdatedMs || trash[0].DeletedMs < m.DeletedMs {
		t.Fatalf("trashed middle: %+v (was %+v)", m, before[1])
	}

	// Restored: back between the other two, by last activity, with its turn.
	var restored app.SessionSummary
	h.mustCall("sessions.restore", map[string]any{"id": middle.ID}, &restored)
	if restored.ID != middle.ID || restored.Title != "the middle one" || restored.UpdatedMs != before[1].UpdatedMs {
		t.Fatalf("restored: %+v", restored)
	}
	h.mustCall("sessions.restore", map[string]any{"id": older.ID}, nil)
	var after []app.SessionSummary
	h.mustCall("sessions.list", map[string]any{}, &after)
	if len(after) != 3 || after[0].ID != newest.ID || after[1].ID != middle.ID || after[2].ID != older.ID {
		t.Fatalf("after restore: %+v", after)
	}
	snap := h.open(middle.ID)
	if !hasText(snap.Thread.Entries, thread.EntryUserMessage, "the middle one") ||
		!hasText(snap.Thread.Entries, thread.EntryAssistantMessage, "echo: the middle one") {
		t.Fatalf("restored transcript: %+v", snap.Thread.Entries)
	}
	h.mustCall("sessions.trash", struct{}{}, &trash)
	if len(trash) != 0 {
		t.Fatalf("trash after restoring both: %+v", trash)
	}

	// Deleted for good: gone from the trash, and it cannot be restored.
	h.mustCall("sessions.delete", map[string]any{"id": older.ID}, nil)
	h.mustCall("sessions.purge", map[string]any{"id": older.ID}, nil)
	h.mustCall("sessions.trash", struct{}{}, &trash)
	if len(trash) != 0 {
		t.Fatalf("trash after purge: %+v", trash)
	}
	if e := h.call("sessions.restore", map[string]any{"id": older.ID}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("restore after purge: %v", e)
	}
	if e := h.call("sessions.purge", map[string]any{"id": older.ID}, nil); codeOf(e) != app.CodeNotFound || e.Reason != app.ReasonSessionNotInTrash {
		t.Fatalf("purge twice: %+v", e)
	}
	if e := h.call("sessions.purge", map[string]any{"id": newest.ID}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("purge of a session not in the trash: %v", e)
	}
	if e := h.call("sessions.purge", map[string]any{"id": "../x"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("purge of a bad id: %v", e)
	}
	h.mustCall("sessions.list", map[string]any{}, &after)
	if len(after) != 2 {
		t.Fatalf("list after purge: %+v", after)
	}
}
