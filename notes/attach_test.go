package notes

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// readIn reads notes of the folder dir as the app reads them for a rewrite.
func readIn(dir string) func(rel string) (string, error) {
	return func(rel string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		return string(b), err
	}
}

func rewritten(t *testing.T, rs []Rewrite) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, r := range rs {
		got[r.Path] = r.New
	}
	return got
}

func mv(t *testing.T, dir, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
		t.Fatal(err)
	}
}

func TestAttachmentMoveRewritesItsLinks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "日记/今天.md", "# 今天\n![图](../attachments/缓存图.png) and ![[缓存图.png|300]]\n[报告](../attachments/report.pdf) [[attachments/缓存图.png]]\n")
	write(t, dir, "attachments/缓存图.png", "PNG")
	write(t, dir, "attachments/report.pdf", "PDF")
	write(t, dir, "other.md", "![x](attachments/其他.png) [[其他.png]]\n")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	// The attachment links are no note links: nothing unresolved, no backlink.
	if ls, err := ix.Links(t.Context(), "日记/今天.md"); err != nil || len(ls) != 0 {
		t.Fatalf("Links = %+v, %v; want none (attachments only)", ls, err)
	}

	mv(t, dir, "attachments/缓存图.png", "图片/缓存-命中率.png")
	rs, err := ix.MoveRewrites(t.Context(), "attachments/缓存图.png", "图片/缓存-命中率.png", readIn(dir))
	if err != nil {
		t.Fatal(err)
	}
	got := rewritten(t, rs)
	want := "# 今天\n![图](../图片/缓存-命中率.png) and ![[缓存-命中率.png|300]]\n[报告](../attachments/report.pdf) [[图片/缓存-命中率.png]]\n"
	if len(got) != 1 || got["日记/今天.md"] != want {
		t.Fatalf("rewrites = %q\nwant 日记/今天.md = %q", got, want)
	}
	if rs[0].Links != 3 {
		t.Errorf("links = %d, want 3", rs[0].Links)
	}
}

func TestMovedNoteTakesItsAttachmentLinksAlong(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "实验.md", "# 实验\n![图](attachments/a.png) [pdf](files/b%20c.pdf) ![[a.png]] [w](https://x.org/a.png)\n")
	write(t, dir, "attachments/a.png", "PNG")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	mv(t, dir, "实验.md", "项目/缓存/实验.md")
	rs, err := ix.MoveRewrites(t.Context(), "实验.md", "项目/缓存/实验.md", readIn(dir))
	if err != nil {
		t.Fatal(err)
	}
	want := "# 实验\n![图](../../attachments/a.png) [pdf](../../files/b%20c.pdf) ![[a.png]] [w](https://x.org/a.png)\n"
	if got := rewritten(t, rs); got["项目/缓存/实验.md"] != want {
		t.Fatalf("rewrites = %q\nwant %q", got, want)
	}
}

func TestFolderMoveTakesItsAttachments(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Home.md", "![a](素材/图/a.png) [[素材/图/b.jpg]] ![[b.jpg]]\n")
	write(t, dir, "素材/图/a.png", "PNG")
	write(t, dir, "素材/图/b.jpg", "JPG")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	mv(t, dir, "素材", "attachments")
	rs, err := ix.FolderMoveRewrites(t.Context(), "素材", "attachments", readIn(dir))
	if err != nil {
		t.Fatal(err)
	}
	want := "![a](attachments/图/a.png) [[attachments/图/b.jpg]] ![[b.jpg]]\n"
	if got := rewritten(t, rs); got["Home.md"] != want || len(got) != 1 {
		t.Fatalf("rewrites = %q\nwant Home.md = %q", got, want)
	}
}

func TestUnresolvedLinks(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "日记/周一.md", "# 周一\n读了 [[缓存设计]] 和 [[实验记录]]。\n\n见 [计划](../计划.md) 与 [[实验记录#结果|结果]]\n![图](../attachments/none.png) [[none.pdf]]\n")
	write(t, dir, "缓存设计.md", "# 缓存设计\n[[周一]] [[Missing Note]] [[#没有的标题]]\n```\n[[在代码里]]\n```\n")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	type row struct {
		from   string
		line   int
		target string
	}
	rows := func(ls []Link) []row {
		var out []row
		for _, l := range ls {
			out = append(out, row{l.From, l.Line, l.Target})
		}
		return out
	}
	all, err := ix.Unresolved(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []row{{"日记/周一.md", 2, "实验记录"}, {"日记/周一.md", 4, "实验记录"}, {"日记/周一.md", 4, "计划.md"}, {"缓存设计.md", 2, "Missing Note"}}
	if got := rows(all); !slices.Equal(got, want) {
		t.Fatalf("Unresolved = %+v\nwant %+v", got, want)
	}
	one, err := ix.Unresolved(t.Context(), "缓存设计.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(one); !slices.Equal(got, want[3:]) {
		t.Fatalf("Unresolved(缓存设计.md) = %+v", got)
	}
	// The note appears: its links resolve.
	write(t, dir, "实验/实验记录.md", "# 实验记录\n")
	if err := ix.Update(t.Context(), "实验/实验记录.md"); err != nil {
		t.Fatal(err)
	}
	all, err = ix.Unresolved(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(all); !slices.Equal(got, []row{{"日记/周一.md", 4, "计划.md"}, {"缓存设计.md", 2, "Missing Note"}}) {
		t.Fatalf("after the note appeared: %+v", got)
	}
}

// A pasted file's link escapes its spaces and leaves Chinese as it reads
// (what the editor writes): a move keeps it readable, not %E6%88%AA….
// A link written all escaped stays all escaped.
func TestAttachmentMoveKeepsTheLinksEscaping(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "笔记/周报.md", "![](../attachments/Pasted%20image%20截图.png) ![](../attachments/%E6%88%AA%E5%9B%BE.png) ![](../attachments/100%25%20完成.png)\n")
	write(t, dir, "attachments/Pasted image 截图.png", "PNG")
	write(t, dir, "attachments/截图.png", "PNG")
	write(t, dir, "attachments/100% 完成.png", "PNG")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	mv(t, dir, "attachments", "图片 素材")
	rs, err := ix.FolderMoveRewrites(t.Context(), "attachments", "图片 素材", readIn(dir))
	if err != nil {
		t.Fatal(err)
	}
	want := "![](../图片%20素材/Pasted%20image%20截图.png) ![](../%E5%9B%BE%E7%89%87%20%E7%B4%A0%E6%9D%90/%E6%88%AA%E5%9B%BE.png) ![](../图片%20素材/100%25%20完成.png)\n"
	if got := rewritten(t, rs); got["笔记/周报.md"] != want {
		t.Fatalf("rewrites = %q\nwant %q", got, want)
	}
}

// [[report.pdf]] and the embed ![[图 1.png]] resolve among the folder's
// attachments by Obsidian's rules (the file name anywhere, beside the
// linking note first, then the shortest path), and keep up with the
// files as they come, move and go.
func TestResolveAttachments(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "日记/周一.md", "![[图 1.png]] [[report.pdf]]\n")
	write(t, dir, "a/图 1.png", "png")
	write(t, dir, "日记/图 1.png", "png beside")
	write(t, dir, "deep/er/report.pdf", "pdf")
	write(t, dir, ".git/x/report.pdf", "ignored")
	write(t, dir, "report.md", "# a note named report")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	resolve := func(from, target string) string {
		t.Helper()
		p, err := ix.Resolve(t.Context(), from, Link{Target: target, Wiki: true})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ from, target, want string }{
		{"日记/周一.md", "图 1.png", "日记/图 1.png"}, // beside the note first
		{"其他.md", "图 1.png", "a/图 1.png"},     // then the shortest path
		{"其他.md", "A/图 1.PNG", "a/图 1.png"},   // a path, any case
		{"日记/周一.md", "report.pdf", "deep/er/report.pdf"},
		{"日记/周一.md", "report", "report.md"}, // a note, not the PDF
		{"日记/周一.md", "none.png", ""},
		{"日记/周一.md", "er/report.pdf", "deep/er/report.pdf"},
		{"日记/周一.md", "r/report.pdf", ""}, // a path's last folders, whole
	} {
		if got := resolve(c.from, c.target); got != c.want {
			t.Errorf("Resolve(%s, %s) = %q, want %q", c.from, c.target, got, c.want)
		}
	}

	// The watcher's changes: a file added, one moved, one gone, a folder removed.
	write(t, dir, "新/报告 2.pdf", "pdf")
	if err := ix.Update(t.Context(), "新/报告 2.pdf"); err != nil {
		t.Fatal(err)
	}
	mv(t, dir, "日记/图 1.png", "存档/图 1.png")
	if err := ix.Update(t.Context(), "日记/图 1.png"); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update(t.Context(), "存档/图 1.png"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "deep")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Remove(t.Context(), "deep"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, target, want string }{
		{"x.md", "报告 2.pdf", "新/报告 2.pdf"},
		{"日记/周一.md", "图 1.png", "a/图 1.png"}, // the one beside it moved away
		{"存档/a.md", "图 1.png", "存档/图 1.png"},
		{"x.md", "report.pdf", ""},
	} {
		if got := resolve(c.from, c.target); got != c.want {
			t.Errorf("after changes: Resolve(%s, %s) = %q, want %q", c.from, c.target, got, c.want)
		}
	}
	// A full Sync agrees with what the updates made, and finds a file
	// that came while nobody watched.
	write(t, dir, "late.webp", "webp")
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got := resolve("x.md", "LATE.webp"); got != "late.webp" {
		t.Errorf("after Sync: late.webp resolves to %q", got)
	}
	if got := resolve("x.md", "报告 2.pdf"); got != "新/报告 2.pdf" {
		t.Errorf("after Sync: 报告 2.pdf resolves to %q", got)
	}
}
