package app_test

import (
	"strings"
	"testing"

	"mnote/app"
)

// notes.unresolved lists the links no note answers (real files, the real
// index), of one note or of all; a note created later resolves them.
func TestNotesUnresolved(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.writeNote("日记/周一.md", "# 周一\n读了 [[缓存设计]] 和 [[实验记录]]。\n![图](../attachments/a.png)\n")
	h.writeNote("缓存设计.md", "# 缓存设计\n[[周一]] [[待写|以后]]\n")
	type link struct {
		From, Target string
		Line         int
	}
	list := func(path string) []link {
		var ls []link
		h.mustCall("notes.unresolved", map[string]any{"path": path}, &ls)
		return ls
	}
	if err := eventually(testWait, func() bool { return len(list("")) == 2 }); err != nil {
		t.Fatalf("the index never listed two unresolved links: %+v", list(""))
	}
	if got := list(""); got[0] != (link{"日记/周一.md", "实验记录", 2}) || got[1] != (link{"缓存设计.md", "待写", 2}) {
		t.Fatalf("unresolved = %+v", got)
	}
	if got := list("缓存设计.md"); len(got) != 1 || got[0].Target != "待写" {
		t.Fatalf("unresolved of 缓存设计.md = %+v", got)
	}
	h.writeNote("实验记录.md", "# 实验记录\n")
	if err := eventually(testWait, func() bool { return len(list("")) == 1 }); err != nil {
		t.Fatalf("a created note still counts as missing: %+v", list(""))
	}
}

// An attachment moved (files.rename of an image) gets its links rewritten
// by notes.updateLinks, and the undo puts them back.
func TestUpdateLinksAfterAttachmentMove(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.writeNote("日记/今天.md", "![图](../attachments/缓存图.png) ![[缓存图.png]]\n")
	h.writeNote("attachments/缓存图.png", "PNG")
	if err := eventually(testWait, func() bool {
		var ls []struct{ Path string }
		h.mustCall("notes.search", map[string]any{"query": "缓存图"}, &ls)
		return len(ls) == 1
	}); err != nil {
		t.Fatal("the index never read the note")
	}
	h.mustCall("files.rename", map[string]any{"from": "attachments/缓存图.png", "to": "图片/命中率.png"}, nil)
	var dry app.LinksUpdated
	h.mustCall("notes.updateLinks", map[string]any{"from": "attachments/缓存图.png", "to": "图片/命中率.png", "dryRun": true}, &dry)
	if dry.Links != 2 || len(dry.Changed) != 1 {
		t.Fatalf("dry run %+v", dry)
	}
	var res app.LinksUpdated
	h.mustCall("notes.updateLinks", map[string]any{"from": "attachments/缓存图.png", "to": "图片/命中率.png"}, &res)
	if got, want := h.readNote("日记/今天.md"), "![图](../图片/命中率.png) ![[命中率.png]]\n"; got != want || res.Undo == nil {
		t.Fatalf("今天.md = %q, want %q (%+v)", got, want, res)
	}
	var undone struct{ Restored []string }
	h.mustCall("notes.undoUpdateLinks", map[string]any{"undo": res.Undo}, &undone)
	if got := h.readNote("日记/今天.md"); !strings.Contains(got, "../attachments/缓存图.png") || len(undone.Restored) != 1 {
		t.Fatalf("after undo: %q %+v", got, undone)
	}
}

// notes.read gives a note's text as an embed shows it: all of it, or a
// heading's section; not a file that is no note, nothing outside the
// folder, and a huge note cut at a line break.
func TestNotesRead(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.writeNote("缓存设计.md", "\uFEFF# 缓存设计\n引言\n## 实验\n第一次\n## 结论\n结语\n")
	type read struct {
		Path      string
		Text      string
		NoHeading bool
		Truncated bool
	}
	get := func(args map[string]any) (read, *app.Error) {
		var r read
		e := h.call("notes.read", args, &r)
		return r, e
	}
	if r, e := get(map[string]any{"path": "缓存设计.md"}); e != nil || r.Text != "# 缓存设计\n引言\n## 实验\n第一次\n## 结论\n结语\n" || r.Truncated {
		t.Fatalf("whole note = %+v, %v", r, e)
	}
	if r, e := get(map[string]any{"path": "缓存设计.md", "heading": "实验"}); e != nil || r.Text != "## 实验\n第一次\n" {
		t.Fatalf("section = %+v, %v", r, e)
	}
	if r, e := get(map[string]any{"path": "缓存设计.md", "heading": "没有"}); e != nil || !r.NoHeading || r.Text != "" {
		t.Fatalf("missing heading = %+v, %v", r, e)
	}
	big := strings.Repeat("第一行的文字。\n", 30000) // ~660 KB
	h.writeNote("长.md", big)
	if r, e := get(map[string]any{"path": "长.md"}); e != nil || !r.Truncated || len(r.Text) > 256<<10 || !strings.HasSuffix(r.Text, "。") || !strings.HasPrefix(big, r.Text) {
		t.Fatalf("huge note: truncated %v, %d bytes, %v", r.Truncated, len(r.Text), e)
	}
	for _, bad := range []string{"../outside.md", "/etc/passwd", "a.png", ".mnote/x.md"} {
		if _, e := get(map[string]any{"path": bad}); e == nil {
			t.Errorf("notes.read %q: no error", bad)
		}
	}
}
