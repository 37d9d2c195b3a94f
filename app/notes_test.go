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

// notes.search with lines lists every matching line of each note; notes.tags
// and notes.titles come from the index and follow saves; tag: searches.
func TestNotesSearchLinesTagsTitles(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustCall("files.create", map[string]any{"path": "缓存设计.md"}, nil)
	h.mustCall("files.save", map[string]any{"path": "缓存设计.md", "content": "---\ntags: [技术]\n---\n# 缓存设计\n先查缓存。\n#读书 缓存穿透\n"}, nil)
	type line struct {
		Line    int
		Snippet string
	}
	var hits []struct {
		Path  string
		Count int
		Lines []line
	}
	if err := eventually(testWait, func() bool {
		h.mustCall("notes.search", map[string]any{"query": "缓存", "lines": 10}, &hits)
		return len(hits) == 1
	}); err != nil {
		t.Fatal(err)
	}
	if hits[0].Count != 3 || len(hits[0].Lines) != 3 || hits[0].Lines[2] != (line{6, "#读书 «缓存»穿透"}) {
		t.Errorf("hits %+v", hits)
	}
	var tags []struct {
		Tag   string
		Notes int
	}
	h.mustCall("notes.tags", map[string]any{}, &tags)
	if len(tags) != 2 || tags[0].Notes != 1 {
		t.Errorf("tags %+v", tags)
	}
	h.mustCall("notes.search", map[string]any{"query": "tag:读书", "lines": 10}, &hits)
	if len(hits) != 1 || hits[0].Lines[0] != (line{6, "«#读书» 缓存穿透"}) {
		t.Errorf("tag:读书 %+v", hits)
	}
	var titles []struct{ Path, Title string }
	h.mustCall("notes.titles", map[string]any{}, &titles)
	if len(titles) != 1 || titles[0].Title != "缓存设计" {
		t.Errorf("titles %+v", titles)
	}
	if e := h.call("notes.search", map[string]any{"query": "x", "lines": -1}, nil); e == nil || e.Code != "bad_request" {
		t.Errorf("lines -1: %+v", e)
	}
}
