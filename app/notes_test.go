package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type noteHit struct {
	Path, Snippet string
	Line          int
}

func (h *harness) searchNotes(q string) []noteHit {
	h.t.Helper()
	var hits []noteHit
	h.mustCall("notes.search", map[string]any{"query": q}, &hits)
	return hits
}

// The notes index is built when the folder opens, then follows saves
// through mnote, other programs' writes, renames and deletions; backlinks
// and headings come from it.
func TestNotesIndexFollowsTheFolder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.ws, "缓存.md"), []byte("# 缓存设计\nReasonix 的缓存命中率很高。\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The folder opened before the file was written: the watcher brings it.
	waitHits := func(q string, want int) []noteHit {
		t.Helper()
		var hits []noteHit
		if err := eventually(testWait, func() bool { hits = h.searchNotes(q); return len(hits) == want }); err != nil {
			t.Fatalf("search %q: %d hits %+v, want %d", q, len(hits), hits, want)
		}
		return hits
	}
	hits := waitHits("命中率", 1)
	if hits[0].Path != "缓存.md" || hits[0].Line != 2 || !strings.Contains(hits[0].Snippet, "«命中率»") {
		t.Errorf("hit %+v", hits[0])
	}
	var st struct {
		Ready bool
		Notes int
	}
	h.mustCall("notes.status", map[string]any{}, &st)
	if !st.Ready {
		t.Errorf("status %+v", st)
	}
	h.mustCall("files.create", map[string]any{"path": "plan.md"}, nil)
	h.mustCall("files.save", map[string]any{"path": "plan.md", "content": "# 计划\n先看 [[缓存]] 的检索。\n"}, nil)
	waitHits("检索", 1)
	var back []struct {
		From    string
		Line    int
		Context string
	}
	h.mustCall("notes.backlinks", map[string]any{"path": "缓存.md"}, &back)
	if len(back) != 1 || back[0].From != "plan.md" || back[0].Line != 2 {
		t.Errorf("backlinks %+v", back)
	}
	var heads []struct{ Path, Text string }
	h.mustCall("notes.headings", map[string]any{"query": "计划"}, &heads)
	if len(heads) != 1 || heads[0].Path != "plan.md" {
		t.Errorf("headings %+v", heads)
	}
	h.mustCall("files.rename", map[string]any{"from": "plan.md", "to": "archive/plan-2.md"}, nil)
	var hits2 []noteHit
	if err := eventually(testWait, func() bool {
		hits2 = h.searchNotes("检索")
		return len(hits2) == 1 && hits2[0].Path == "archive/plan-2.md"
	}); err != nil {
		t.Errorf("after the rename: %+v", hits2)
	}
	if err := os.Remove(filepath.Join(h.ws, "缓存.md")); err != nil {
		t.Fatal(err)
	}
	waitHits("命中率", 0)
}
