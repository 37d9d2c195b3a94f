package notes

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"mnote/workspace"
)

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// openWS opens dir as a workspace, with deny as its denied folders.
func openWS(tb testing.TB, dir string, deny ...string) *workspace.Workspace {
	tb.Helper()
	w, err := workspace.Open(dir, workspace.Options{Deny: deny})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	return w
}

func openIndex(t *testing.T, dir string) *Index {
	t.Helper()
	ix, err := Open(t.Context(), filepath.Join(t.TempDir(), "notes.db"), openWS(t, dir), Options{Ignore: []string{".git", "node_modules"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func paths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	slices.Sort(out)
	return out
}

func search(t *testing.T, ix *Index, q string, o SearchOptions) []Hit {
	t.Helper()
	hits, err := ix.Search(t.Context(), q, o)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return hits
}

func TestSyncSearchAndSkips(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "设计/缓存.md", "# 缓存设计\n\nReasonix 的缓存命中率很高，缓存优先的设计很有效。\n")
	write(t, dir, "日本語/検索.md", "# 全文検索\n\nこのアプリはノートの全文検索ができます。\n")
	write(t, dir, "korean.md", "메모를 검색하는 기능이 필요합니다.\n")
	write(t, dir, "en/cache.md", "---\ntitle: x\n---\n# Caching\n\nThe cache hit rate is high.\nSecond line about zebras.\n")
	write(t, dir, ".git/HEAD.md", "缓存 in git")
	write(t, dir, "node_modules/x/readme.md", "缓存 in a package")
	write(t, dir, "binary.md", "abc\x00def 缓存")
	write(t, dir, "latin1.md", "caf\xe9 缓存")
	write(t, dir, "not-a-note.txt", "缓存")
	big := strings.Repeat("缓存 ", MaxNoteSize/6)
	write(t, dir, "big.md", big)
	ix := openIndex(t, dir)
	var progressed int
	st, err := ix.Sync(t.Context(), func(done, total int) { progressed = done })
	if err != nil {
		t.Fatal(err)
	}
	if st.Notes != 4 || st.NotText != 2 || st.TooBig != 1 || st.Read != 7 || progressed != 7 {
		t.Fatalf("stats %+v, progress %d", st, progressed)
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"缓存", []string{"设计/缓存.md"}},
		{"命中率", []string{"设计/缓存.md"}},
		{"缓", []string{"设计/缓存.md"}},
		{"検索", []string{"日本語/検索.md"}},
		{"검색", []string{"korean.md"}},
		{"cache", []string{"en/cache.md"}},
		{"zeb", []string{"en/cache.md"}},
		{"Reasonix 的缓存", []string{"设计/缓存.md"}},
		{"nothing", nil},
	} {
		if got := paths(search(t, ix, c.q, SearchOptions{})); !slices.Equal(got, c.want) {
			t.Errorf("search %q = %v, want %v", c.q, got, c.want)
		}
	}
	h := search(t, ix, "命中率", SearchOptions{})[0]
	if h.Line != 3 || h.Snippet != "Reasonix 的缓存«命中率»很高，缓存优先的设计很有效。" {
		t.Errorf("hit %+v", h)
	}
	h = search(t, ix, "zebras", SearchOptions{})[0]
	if h.Line != 7 || h.Snippet != "Second line about «zebras»." {
		t.Errorf("hit %+v", h)
	}
	if got := paths(search(t, ix, "缓存", SearchOptions{Folder: "en"})); got != nil {
		t.Errorf("folder en: %v", got)
	}
	if got := paths(search(t, ix, "缓存", SearchOptions{Folder: "设计/"})); len(got) != 1 {
		t.Errorf("folder 设计: %v", got)
	}
	heads, err := ix.Headings(t.Context(), "检索", 10)
	if err != nil || len(heads) != 0 {
		t.Errorf("headings 检索 (Chinese, not Japanese 検索): %v %v", heads, err)
	}
	heads, err = ix.Headings(t.Context(), "検索", 10)
	if err != nil || len(heads) != 1 || heads[0].Path != "日本語/検索.md" || heads[0].Line != 1 || heads[0].Text != "全文検索" {
		t.Errorf("headings 検索: %+v %v", heads, err)
	}
}

func TestUpdateKeepsCurrent(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", "alpha 第一版")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "a.md", "beta 第二版")
	write(t, dir, "sub/b.md", "gamma")
	for _, p := range []string{"a.md", "sub"} {
		if err := ix.Update(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if got := paths(search(t, ix, "第一版", SearchOptions{})); got != nil {
		t.Errorf("old text still found: %v", got)
	}
	if got := paths(search(t, ix, "第二版", SearchOptions{})); !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("new text: %v", got)
	}
	if got := paths(search(t, ix, "gamma", SearchOptions{})); !slices.Equal(got, []string{"sub/b.md"}) {
		t.Errorf("new folder: %v", got)
	}
	if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update(t.Context(), "a.md"); err != nil {
		t.Fatal(err)
	}
	if err := ix.Remove(t.Context(), "sub"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"第二版", "gamma"} {
		if got := search(t, ix, q, SearchOptions{}); got != nil {
			t.Errorf("%s still found after removal: %v", q, got)
		}
	}
	// A second Sync reads nothing unchanged, and drops nothing twice.
	write(t, dir, "c.md", "delta")
	st, err := ix.Sync(t.Context(), nil)
	if err != nil || st.Read != 2 || st.Notes != 2 { // sub/b.md is back (it is on disk), c.md is new
		t.Errorf("sync: %+v %v", st, err)
	}
	st, err = ix.Sync(t.Context(), nil)
	if err != nil || st.Read != 0 || st.Removed != 0 {
		t.Errorf("second sync: %+v %v", st, err)
	}
}

// A symlink inside the folder that leads outside is not followed.
func TestSymlinkOutsideNotIndexed(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, "secret.md", "top secret 机密")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"link.md", "out/secret.md"} {
		if err := ix.Update(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if got := search(t, ix, "机密", SearchOptions{}); got != nil {
		t.Errorf("text outside the folder indexed: %v", got)
	}
}

// A corrupt index file is replaced, not fatal.
func TestCorruptIndexReplaced(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", "alpha")
	db := filepath.Join(t.TempDir(), "notes.db")
	if err := os.WriteFile(db, []byte(strings.Repeat("not a database ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(t.Context(), db, openWS(t, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got := paths(search(t, ix, "alpha", SearchOptions{})); len(got) != 1 {
		t.Errorf("after rebuild: %v", got)
	}
}

// mnote's own folders are not indexed when the notes folder holds them
// (the home folder opened with the default XDG layout), even through a
// second path to them.
func TestOwnFoldersExcluded(t *testing.T) {
	home := t.TempDir()
	write(t, home, "notes/a.md", "my note 笔记")
	write(t, home, ".local/share/mnote/leak.md", "transcript 笔记 secret")
	write(t, home, ".config/mnote/keys.md", "key 笔记 secret")
	if err := os.Symlink(filepath.Join(home, ".config"), filepath.Join(home, "cfg")); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(t.Context(), filepath.Join(t.TempDir(), "n.db"),
		openWS(t, home, filepath.Join(home, ".local/share/mnote"), filepath.Join(home, ".config/mnote")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".config/mnote/keys.md", ".local/share/mnote/leak.md"} {
		if err := ix.Update(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if got := paths(search(t, ix, "笔记", SearchOptions{})); !slices.Equal(got, []string{"notes/a.md"}) {
		t.Errorf("search = %v, want only notes/a.md", got)
	}
}

// The index takes exactly what an agent's read takes: a hard link to a
// file outside the folder, a symbolic link leading out and a FIFO are
// refused by read_note, so neither the listing, search, outlines nor
// backlinks show them, whether the index learns of them by a walk (Sync)
// or by a change (Update).
func TestIndexTakesWhatAgentsRead(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, "secret.md", "# Secret heading\ntop secret 机密 [[a]]\n")
	write(t, dir, "a.md", "# A\nthe note\n")
	write(t, dir, "later.md", "# Later\nplain 普通 [[a]]\n")
	if err := os.Link(filepath.Join(outside, "secret.md"), filepath.Join(dir, "hard.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "sym.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	check := func(when string, want []string) {
		t.Helper()
		list, err := ix.List(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		for _, n := range list {
			listed = append(listed, n.Path)
		}
		if !slices.Equal(listed, want) {
			t.Errorf("%s: list = %v, want %v", when, listed, want)
		}
		if got := search(t, ix, "机密", SearchOptions{}); got != nil {
			t.Errorf("%s: search found the outside file's text: %+v", when, got)
		}
		if hs, err := ix.Headings(t.Context(), "Secret", 10); err != nil || len(hs) != 0 {
			t.Errorf("%s: headings %+v %v", when, hs, err)
		}
		bl, err := ix.Backlinks(t.Context(), "a.md")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bl {
			if strings.Contains(l.Context, "机密") || l.From != "later.md" {
				t.Errorf("%s: backlink %+v", when, l)
			}
		}
		for _, p := range []string{"hard.md", "sym.md", "fifo.md"} {
			if hs, err := ix.Outline(t.Context(), p); err != nil || len(hs) != 0 {
				t.Errorf("%s: outline of %s: %+v %v", when, p, hs, err)
			}
		}
	}
	check("after Sync", []string{"a.md", "later.md"})

	// A note the index holds, replaced by a second name of the outside
	// file (what the watcher reports as a change), is dropped.
	if err := os.Link(filepath.Join(outside, "secret.md"), filepath.Join(dir, ".tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, ".tmp"), filepath.Join(dir, "later.md")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"later.md", "hard.md", "sym.md", "fifo.md"} {
		if err := ix.Update(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	check("after Update", []string{"a.md"})

	// A note that gets a second name outside (its size and modification
	// time unchanged) is dropped at the next walk.
	if err := os.Link(filepath.Join(dir, "a.md"), filepath.Join(outside, "a-too.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	check("after a second name outside", nil)
}
