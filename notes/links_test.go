package notes

import (
	"testing"
)

func TestLinksAndBacklinks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Home.md", "# Home\n\nSee [[Ideas]] and [[projects/Ideas|the project ideas]], [[缓存设计#命中率]].\n"+
		"A relative [link](projects/plan.md#Goals) and ![img](pic.md) and [web](https://x.org/a.md).\n```\n[[Ideas]] in code\n```\n[[Missing note]]\n")
	write(t, dir, "Ideas.md", "# Ideas\n\nback to [[home]]\n")
	write(t, dir, "projects/Ideas.md", "# Project ideas\n\n[[Ideas]] here means this folder's.\n")
	write(t, dir, "projects/plan.md", "# Plan\n## Goals\n[[../Home]] is not a wikilink path; [up](../Home.md)\n")
	write(t, dir, "设计/缓存设计.md", "# 缓存设计\n## 命中率\n")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	links, err := ix.Links(t.Context(), "Home.md")
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ target, heading, alias, resolved string }
	var got []want
	for _, l := range links {
		got = append(got, want{l.Target, l.Heading, l.Alias, l.Resolved})
	}
	exp := []want{
		{"Ideas", "", "", "Ideas.md"},
		{"projects/Ideas", "", "the project ideas", "projects/Ideas.md"},
		{"缓存设计", "命中率", "", "设计/缓存设计.md"},
		{"projects/plan.md", "Goals", "", "projects/plan.md"},
		{"Missing note", "", "", ""},
	}
	if len(got) != len(exp) {
		t.Fatalf("links %+v", got)
	}
	for i := range exp {
		if got[i] != exp[i] {
			t.Errorf("link %d = %+v, want %+v", i, got[i], exp[i])
		}
	}
	// In projects/, [[Ideas]] is the note beside it.
	l, err := ix.Links(t.Context(), "projects/Ideas.md")
	if err != nil || len(l) != 1 || l[0].Resolved != "projects/Ideas.md" {
		t.Errorf("links of projects/Ideas.md: %+v %v", l, err)
	}
	back, err := ix.Backlinks(t.Context(), "Home.md")
	if err != nil {
		t.Fatal(err)
	}
	var from []string
	for _, b := range back {
		from = append(from, b.From)
	}
	if len(back) != 2 || from[0] != "Ideas.md" || from[1] != "projects/plan.md" || back[0].Context != "back to [[home]]" || back[0].Line != 3 {
		t.Errorf("backlinks of Home.md: %+v", back)
	}
	back, err = ix.Backlinks(t.Context(), "Ideas.md")
	if err != nil || len(back) != 1 || back[0].From != "Home.md" {
		t.Errorf("backlinks of Ideas.md: %+v %v", back, err)
	}
	// A note created later resolves links written before it.
	write(t, dir, "Missing note.md", "now here")
	if err := ix.Update(t.Context(), "Missing note.md"); err != nil {
		t.Fatal(err)
	}
	back, err = ix.Backlinks(t.Context(), "Missing note.md")
	if err != nil || len(back) != 1 || back[0].Line != 8 {
		t.Errorf("backlinks of the new note: %+v %v", back, err)
	}
	out, err := ix.Outline(t.Context(), "projects/plan.md")
	if err != nil || len(out) != 2 || out[1].Text != "Goals" || out[1].Level != 2 || out[1].Line != 2 {
		t.Errorf("outline: %+v %v", out, err)
	}
}

// [[Note#Heading]]'s section: the heading and what follows it up to the
// next heading of its level or higher, a heading in code not counting.
func TestSection(t *testing.T) {
	const text = "# 缓存设计\n引言\n## 实验\n第一次\n```\n## 不是标题\n```\n### 细节\n数据\n## 结论\n结语\n"
	for _, c := range []struct {
		heading, want string
		ok            bool
	}{
		{"实验", "## 实验\n第一次\n```\n## 不是标题\n```\n### 细节\n数据\n", true},
		{"细节", "### 细节\n数据\n", true},
		{"结论", "## 结论\n结语\n", true},
		{" 缓存设计 ", text, true},
		{"不是标题", "", false},
		{"没有", "", false},
	} {
		got, ok := Section(text, c.heading)
		if got != c.want || ok != c.ok {
			t.Errorf("Section(%q) = %q, %v; want %q, %v", c.heading, got, ok, c.want, c.ok)
		}
	}
}
