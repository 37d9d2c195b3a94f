package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `mnote notes` builds the folder's index under MNOTE_HOME (never in the
// folder), finds Chinese text as substrings, follows changes on the next
// run, and lists backlinks.
func TestNotesCommands(t *testing.T) {
	h := newHarness(t)
	write := func(rel, text string) {
		p := filepath.Join(h.ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("设计/缓存.md", "# 缓存设计\n\nReasonix 的缓存命中率很高。\n\n见 [[笔记]]\n")
	write("笔记.md", "# 笔记\n")
	r := h.run("notes", "search", "--json", "命中")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var hits []struct {
		Path, Snippet string
		Line          int
	}
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || len(hits) != 1 || hits[0].Path != "设计/缓存.md" || hits[0].Line != 3 || !strings.Contains(hits[0].Snippet, "«命中»") {
		t.Fatalf("hits %+v (%v) from %s", hits, err, r.stdout)
	}
	entries, _ := os.ReadDir(h.ws)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".db") || strings.HasPrefix(e.Name(), ".mnote") {
			t.Errorf("the index is in the notes folder: %s", e.Name())
		}
	}
	write("笔记.md", "# 笔记\n新的内容：检索\n")
	r = h.run("notes", "search", "检索")
	if r.code != 0 || !strings.Contains(r.stdout, "笔记.md:2: 新的内容：«检索»") {
		t.Errorf("after a change: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = h.run("notes", "backlinks", "笔记.md")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "设计/缓存.md:5: 见 [[笔记]]" {
		t.Errorf("backlinks: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = h.run("notes", "search", "--json", "nothing-here")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("no hits: %d %q", r.code, r.stdout)
	}
	if r = h.run("notes", "frobnicate", "x"); r.code != 2 {
		t.Errorf("unknown subcommand: exit %d", r.code)
	}
}
