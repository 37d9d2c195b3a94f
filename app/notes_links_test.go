package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/app"
)

func (h *harness) writeNote(rel, text string) {
	h.t.Helper()
	p := filepath.Join(h.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) readNote(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.ws, filepath.FromSlash(rel)))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// After a rename, notes.updateLinks rewrites the links that pointed at the
// note (real files, the real index), an open clean editor is told, a note
// with unsaved edits is left alone, and the undo puts the texts back —
// unless a note changed since.
func TestUpdateLinksAfterRename(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.writeNote("设计/缓存.md", "# 缓存\n## 命中率\n")
	h.writeNote("home.md", "看 [[缓存#命中率|命中]] 和 [c](设计/缓存.md)\n")
	h.writeNote("journal/day.md", "[[缓存]] again\n")
	h.writeNote("draft.md", "[[缓存]] in a draft\n")
	if err := eventually(testWait, func() bool {
		var back []struct{ From string }
		h.mustCall("notes.backlinks", map[string]any{"path": "设计/缓存.md"}, &back)
		return len(back) == 4 // two from home.md
	}); err != nil {
		t.Fatal("the index never listed the backlinks")
	}
	// An editor has day.md open (clean) and draft.md with unsaved edits.
	h.mustCall("files.open", map[string]any{"path": "journal/day.md"}, nil)
	h.mustCall("files.open", map[string]any{"path": "draft.md"}, nil)
	h.mustCall("files.update", map[string]any{"path": "draft.md", "content": "[[缓存]] in a draft, edited\n"}, nil)

	h.mustCall("files.rename", map[string]any{"from": "设计/缓存.md", "to": "archive/缓存设计.md"}, nil)
	var dry app.LinksUpdated
	h.mustCall("notes.updateLinks", map[string]any{"from": "设计/缓存.md", "to": "archive/缓存设计.md", "dryRun": true}, &dry)
	if len(dry.Changed) != 3 || dry.Links != 4 || dry.Undo != nil {
		t.Fatalf("dry run %+v", dry)
	}
	if got := h.readNote("home.md"); !strings.Contains(got, "[[缓存#命中率|命中]]") {
		t.Fatalf("the dry run wrote: %q", got)
	}

	from := h.rec.Len()
	var res app.LinksUpdated
	h.mustCall("notes.updateLinks", map[string]any{"from": "设计/缓存.md", "to": "archive/缓存设计.md"}, &res)
	if strings.Join(res.Changed, ",") != "home.md,journal/day.md" || res.Links != 3 || strings.Join(res.Skipped, ",") != "draft.md" || res.Undo == nil {
		t.Fatalf("update %+v", res)
	}
	if got, want := h.readNote("home.md"), "看 [[缓存设计#命中率|命中]] 和 [c](archive/缓存设计.md)\n"; got != want {
		t.Errorf("home.md = %q, want %q", got, want)
	}
	if got, want := h.readNote("journal/day.md"), "[[缓存设计]] again\n"; got != want {
		t.Errorf("day.md = %q, want %q", got, want)
	}
	if got := h.readNote("draft.md"); got != "[[缓存]] in a draft\n" {
		t.Errorf("draft.md with unsaved edits was written: %q", got)
	}
	if _, _, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool {
		return ev.Name == app.EventWorkspaceChanged && strings.Contains(string(ev.Data), `"reloaded"`) && strings.Contains(string(ev.Data), "[[缓存设计]] again")
	}); err != nil {
		t.Errorf("the open editor of day.md was not told: %v", err)
	}
	var st struct{ Content string }
	h.mustCall("files.open", map[string]any{"path": "journal/day.md"}, &st)
	if st.Content != "[[缓存设计]] again\n" {
		t.Errorf("day.md's buffer holds %q", st.Content)
	}
	// The undo handle is opaque and only good for what it was given for.
	if e := h.call("notes.undoUpdateLinks", map[string]any{"undo": map[string]any{"id": "nope"}}, nil); e == nil || e.Code != app.CodeNotFound {
		t.Errorf("undo with a made-up id: %+v", e)
	}
	// The undo puts the texts back.
	var undone struct{ Restored []string }
	h.mustCall("notes.undoUpdateLinks", map[string]any{"undo": res.Undo}, &undone)
	if strings.Join(undone.Restored, ",") != "home.md,journal/day.md" {
		t.Errorf("undo %+v", undone)
	}
	if got := h.readNote("home.md"); got != "看 [[缓存#命中率|命中]] 和 [c](设计/缓存.md)\n" {
		t.Errorf("home.md after the undo = %q", got)
	}
	if e := h.call("notes.undoUpdateLinks", map[string]any{"undo": res.Undo}, nil); e == nil || e.Code != app.CodeNotFound {
		t.Errorf("a second undo: %+v", e)
	}

	// Again, and a note changes before the undo: nothing is written.
	h.mustCall("notes.updateLinks", map[string]any{"from": "设计/缓存.md", "to": "archive/缓存设计.md"}, &res)
	h.writeNote("journal/day.md", "[[缓存设计]] again, and more\n")
	e := h.call("notes.undoUpdateLinks", map[string]any{"undo": res.Undo}, nil)
	if e == nil || e.Code != app.CodeConflict || !strings.Contains(e.Details, "journal/day.md") {
		t.Fatalf("undo over a change: %+v", e)
	}
	if got := h.readNote("home.md"); !strings.Contains(got, "[[缓存设计#命中率|命中]]") {
		t.Errorf("a refused undo wrote home.md: %q", got)
	}
	if e := h.call("notes.updateLinks", map[string]any{"from": "", "to": "x.md"}, nil); e == nil || e.Code != app.CodeBadRequest {
		t.Errorf("no from: %+v", e)
	}
}
