package notes

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"mnote/store/ftstoken"
)

// A word in more than rankLimit notes is not ranked (bm25 would score every
// match): the hits are the notes indexed last, and a rarer word in the same
// notes is still ranked by relevance.
func TestSearchOfACommonWordListsRecentNotes(t *testing.T) {
	dir := t.TempDir()
	for i := range rankLimit + 50 {
		sub := filepath.Join(dir, fmt.Sprintf("f%02d", i%40))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("# 笔记 %d\ncommon words here 缓存\n", i)
		if i%1000 == 0 {
			text += "rare rare rare rare\n"
		} else if i%500 == 0 {
			text += "a long line that mentions rare once among many other words to lower its score\n"
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("n%05d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	var maxID int64
	if err := ix.r.QueryRow(`SELECT max(rowid) FROM notes_fts`).Scan(&maxID); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"common", "缓存", "common 缓存"} {
		more, err := ix.matchesMoreThan(t.Context(), ftstoken.Query(q), rankLimit)
		if err != nil || !more {
			t.Fatalf("%q: matchesMoreThan = %v, %v; want true", q, more, err)
		}
		hits, err := ix.Search(t.Context(), q, SearchOptions{Limit: 10})
		if err != nil || len(hits) != 10 {
			t.Fatalf("%q: %d hits, %v", q, len(hits), err)
		}
		var first int64
		if err := ix.r.QueryRow(`SELECT id FROM notes WHERE path = ?`, hits[0].Path).Scan(&first); err != nil {
			t.Fatal(err)
		}
		if first != maxID {
			t.Errorf("%q: the first hit is note %d (%s), want the last indexed, %d", q, first, hits[0].Path, maxID)
		}
	}
	hits, err := ix.Search(t.Context(), "rare", SearchOptions{Limit: 20})
	if err != nil || len(hits) != 11 {
		t.Fatalf("rare: %d hits, %v", len(hits), err)
	}
	for i, h := range hits {
		if i < 6 && !(h.Snippet != "" && len(h.Snippet) < 40) {
			t.Errorf("rare: hit %d is %s %q; the notes saying it four times should rank first", i, h.Path, h.Snippet)
		}
	}
}
