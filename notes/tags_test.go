package notes

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A search lists every matching line of a note (grouped under the note,
// counted), Chinese first; the first line stays the hit's own.
func TestSearchListsEveryLineOfANote(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "缓存设计.md", "# 缓存设计\n\n读多写少时先查缓存。\n无关的一行\n缓存失效要小心，缓存穿透也是。\n\n```\n代码里的缓存\n```\n最后：缓存。")
	write(t, dir, "other.md", "这里也提到缓存一次。\n")
	write(t, dir, "en.md", "Cache lines\nno match here\nthe cache again, CACHE\n")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	hits := search(t, ix, "缓存", SearchOptions{Lines: 50})
	if len(hits) != 2 {
		t.Fatalf("hits %+v", hits)
	}
	var h Hit
	for _, x := range hits {
		if x.Path == "缓存设计.md" {
			h = x
		}
	}
	var lines []int
	for _, l := range h.Lines {
		lines = append(lines, l.Line)
	}
	if want := []int{1, 3, 5, 8, 10}; !slices.Equal(lines, want) || h.Count != 5 {
		t.Fatalf("lines %v count %d, want %v", lines, h.Count, want)
	}
	if h.Line != 1 || h.Lines[2].Snippet != "«缓存»失效要小心，«缓存»穿透也是。" {
		t.Errorf("hit %+v", h)
	}
	// Fewer lines asked: still all counted.
	hits = search(t, ix, "缓存 设计", SearchOptions{Lines: 2})
	if len(hits) != 1 || len(hits[0].Lines) != 2 || hits[0].Count != 5 {
		t.Errorf("two words: %+v", hits)
	}
	hits = search(t, ix, "cache", SearchOptions{Lines: 10})
	if len(hits) != 1 || hits[0].Count != 2 || hits[0].Lines[1] != (HitLine{3, "the «cache» again, «CACHE»"}) {
		t.Errorf("cache: %+v", hits)
	}
	// Without Lines, one hit per note as before (agents' search_notes, the CLI).
	if hits = search(t, ix, "缓存", SearchOptions{}); hits[0].Lines != nil || hits[0].Count != 0 {
		t.Errorf("no lines asked: %+v", hits[0])
	}
}

// The cases are shared with the editor's tag marks (frontend/src/lib/tags.ts,
// tests/tags.test.ts): a tag the index lists is a tag the editor marks.
func TestInlineTags(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "inline-tags.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Line string   `json:"line"`
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got := inlineTags(c.Line); !slices.Equal(got, c.Tags) && !(len(got) == 0 && len(c.Tags) == 0) {
			t.Errorf("%q: %q, want %q", c.Line, got, c.Tags)
		}
	}
}

func TestMetaTitleAndTags(t *testing.T) {
	for i, c := range []struct {
		text  string
		title string
		tags  []string
	}{
		{"---\ntitle: \"缓存设计笔记\"\ntags: [缓存, 设计]\n---\n# 别的标题\n正文 #草稿\n", "缓存设计笔记", []string{"缓存:3", "设计:3", "草稿:6"}},
		{"---\ntags:\n  - 读书\n  - '#技术'\nauthor: 我\n---\n\n## 第一个标题\n", "第一个标题", []string{"读书:3", "技术:4"}},
		{"---\ntags: a, b c\n---\n", "", []string{"a:2", "b:2", "c:2"}},
		{"没有标题\n```\n# 代码里 #不算\n```\n#算\n", "", []string{"算:5"}},
		{"---\nnot closed\n# 标题\n", "标题", nil},
	} {
		note := parse("n.md", c.text)
		title, tags := note.title, note.tags
		var got []string
		for _, tg := range tags {
			got = append(got, fmt.Sprintf("%s:%d", tg.Tag, tg.Line))
		}
		if title != c.title || !slices.Equal(got, c.tags) {
			t.Errorf("%d: title %q tags %q, want %q %q", i, title, got, c.title, c.tags)
		}
	}
}

// Tags are indexed from real files, listed with how many notes carry them,
// and searched with tag:NAME or #NAME (with words, or alone); titles come
// from front matter or the first heading and follow edits.
func TestTagsAndTitles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", "---\ntitle: 缓存设计\ntags: [技术, 读书]\n---\n缓存的想法 #技术/缓存\n")
	write(t, dir, "日记/b.md", "# 周一\n今天 #读书，也想到缓存。\n再写一行 #读书\n`#代码` 不算\n")
	write(t, dir, "c.md", "#Technology and #技术 here\n")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	tags, err := ix.Tags(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []TagCount{{"技术", 2}, {"读书", 2}, {"Technology", 1}, {"技术/缓存", 1}}
	if !slices.Equal(tags, want) {
		t.Errorf("tags %+v, want %+v", tags, want)
	}
	hits := search(t, ix, "tag:读书", SearchOptions{Lines: 10})
	if got := paths(hits); !slices.Equal(got, []string{"a.md", "日记/b.md"}) {
		t.Fatalf("tag:读书 %v", got)
	}
	b := hits[1]
	if b.Count != 2 || b.Line != 2 || b.Lines[0].Snippet != "今天 «#读书»，也想到缓存。" || b.Lines[1].Line != 3 {
		t.Errorf("b: %+v", b)
	}
	if hits[0].Lines[0] != (HitLine{3, "tags: [技术, «读书»]"}) {
		t.Errorf("a: %+v", hits[0])
	}
	// A tag matches its nested tags; with words, the words are searched in the tagged notes.
	if got := paths(search(t, ix, "#技术", SearchOptions{})); !slices.Equal(got, []string{"a.md", "c.md"}) {
		t.Errorf("#技术 %v", got)
	}
	if got := paths(search(t, ix, "缓存 #读书", SearchOptions{})); !slices.Equal(got, []string{"a.md", "日记/b.md"}) {
		t.Errorf("缓存 #读书 %v", got)
	}
	if got := paths(search(t, ix, "想到 tag:读书", SearchOptions{})); !slices.Equal(got, []string{"日记/b.md"}) {
		t.Errorf("想到 tag:读书 %v", got)
	}
	if got := paths(search(t, ix, "#代码", SearchOptions{})); got != nil {
		t.Errorf("a tag in code: %v", got)
	}
	if got := paths(search(t, ix, "tag:technology", SearchOptions{Folder: "日记"})); got != nil {
		t.Errorf("folder: %v", got)
	}
	titles, err := ix.Titles(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := []NoteTitle{{"a.md", "缓存设计"}, {"c.md", ""}, {"日记/b.md", "周一"}}; !slices.Equal(titles, want) {
		t.Errorf("titles %+v", titles)
	}
	// An edit replaces the note's title and tags.
	write(t, dir, "日记/b.md", "# 周二\n#写作\n")
	if err := ix.Update(t.Context(), "日记/b.md"); err != nil {
		t.Fatal(err)
	}
	tags, _ = ix.Tags(t.Context())
	if !slices.Contains(tags, TagCount{"写作", 1}) || !slices.Contains(tags, TagCount{"读书", 1}) {
		t.Errorf("after the edit: %+v", tags)
	}
	titles, _ = ix.Titles(t.Context())
	if titles[2].Title != "周二" || !strings.HasSuffix(titles[2].Path, "b.md") {
		t.Errorf("after the edit: %+v", titles)
	}
	if err := ix.Remove(t.Context(), "日记"); err != nil {
		t.Fatal(err)
	}
	if tags, _ = ix.Tags(t.Context()); slices.Contains(tags, TagCount{"写作", 1}) {
		t.Errorf("after the removal: %+v", tags)
	}
}
