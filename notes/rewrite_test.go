package notes

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRewriteLinks(t *testing.T) {
	// The notes after the move, for every case.
	notes := []string{"Home.md", "新名.md", "projects/Ideas.md", "projects/plan.md", "archive/Ideas.md", "a/b/c.md", "x/Other Note.md", "archive/deep/Ideas.md"}
	cases := []struct {
		name, rel, from, to, text, want string
		n                               int
	}{
		{"bare name renamed", "Home.md", "Plan.md", "projects/plan.md", "see [[Plan]] now", "see [[plan]] now", 1},
		{"heading and alias kept", "Home.md", "旧名.md", "新名.md",
			"[[旧名#缓存 设计|别名]] and [[旧名|只是别名]] and [[旧名#标题]]", "[[新名#缓存 设计|别名]] and [[新名|只是别名]] and [[新名#标题]]", 3},
		{"case-insensitive name", "Home.md", "旧名.md", "新名.md", "[[旧名]] [[旧名.md]]", "[[新名]] [[新名.md]]", 2},
		{"other links untouched", "Home.md", "Old.md", "新名.md", "[[Older]] [[Home]] [[Missing]] [[#Old]]", "[[Older]] [[Home]] [[Missing]] [[#Old]]", 0},
		{"ambiguous name gets the path", "Home.md", "Ideas.md", "archive/deep/Ideas.md",
			"[[Ideas]] and [[Ideas#Goals|g]]", "[[archive/deep/Ideas]] and [[archive/deep/Ideas#Goals|g]]", 2},
		{"a bare name that still finds the moved note stays", "Home.md", "Ideas.md", "archive/Ideas.md",
			"[[Ideas]] and [[Ideas#Goals|g]]", "[[Ideas]] and [[Ideas#Goals|g]]", 0},
		{"beside the linking note wins, so the bare name stays", "archive/log.md", "archive/Idea.md", "archive/Ideas.md",
			"[[Idea]]", "[[Ideas]]", 1},
		{"link by path gets the new path", "Home.md", "projects/old/plan.md", "projects/plan.md",
			"[[projects/old/plan|the plan]]", "[[projects/plan|the plan]]", 1},
		{"a link to another note of the same name stays", "projects/plan.md", "Ideas.md", "archive/Ideas.md",
			"[[Ideas]] is projects/Ideas.md", "[[Ideas]] is projects/Ideas.md", 0},
		{"relative link from a sub-folder", "projects/plan.md", "Home.md", "a/b/c.md",
			"[up](../Home.md) and [h](../Home.md#Top \"t\")", "[up](../a/b/c.md) and [h](../a/b/c.md#Top \"t\")", 2},
		{"relative link into a sub-folder", "Home.md", "projects/plan.md", "x/Other Note.md",
			"[p](projects/plan.md) [q](./projects/plan.md)", "[p](x/Other%20Note.md) [q](./x/Other%20Note.md)", 2},
		{"escaped link stays escaped", "Home.md", "旧名.md", "a/b/c.md", "[x](%E6%97%A7%E5%90%8D.md)", "[x](a/b/c.md)", 1},
		{"Chinese relative link", "a/b/c.md", "设计/旧名.md", "新名.md", "[缓存](../../设计/旧名.md)", "[缓存](../../新名.md)", 1},
		{"code blocks untouched", "Home.md", "旧名.md", "新名.md", "```\n[[旧名]]\n```\n[[旧名]]", "```\n[[旧名]]\n```\n[[新名]]", 1},
		{"images and URLs untouched", "Home.md", "Home2.md", "新名.md", "![i](Home2.md) [w](https://x.org/Home2.md)", "![i](Home2.md) [w](https://x.org/Home2.md)", 0},
		{"the moved note's own relative links follow it", "a/b/c.md", "c.md", "a/b/c.md",
			"[home](Home.md) [[c#Self]] [[#Top]] [p](projects/plan.md#Goals)", "[home](../../Home.md) [[c#Self]] [[#Top]] [p](../../projects/plan.md#Goals)", 2},
		{"the renamed note links to itself by name", "新名.md", "旧名.md", "新名.md", "[[旧名#A]] [[#B]]", "[[新名#A]] [[#B]]", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, n := RewriteLinks(c.rel, c.text, c.from, c.to, notes)
			if got != c.want || n != c.n {
				t.Errorf("RewriteLinks(%s, %q, %s → %s)\n got %q (%d)\nwant %q (%d)", c.rel, c.text, c.from, c.to, got, n, c.want, c.n)
			}
		})
	}
}

func TestMoveRewritesFromTheIndex(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Home.md", "# Home\n[[缓存设计#命中率|命中]] and [c](设计/缓存设计.md)\n")
	write(t, dir, "设计/缓存设计.md", "# 缓存设计\n## 命中率\nback [home](../Home.md)\n")
	write(t, dir, "other.md", "[[缓存]] is another note\n")
	ix := openIndex(t, dir)
	if _, err := ix.Sync(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	// The move happened on disk; the index has not seen it.
	if err := os.MkdirAll(filepath.Join(dir, "archive"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "设计/缓存设计.md"), filepath.Join(dir, "archive/缓存.md")); err != nil {
		t.Fatal(err)
	}
	read := func(rel string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		return string(b), err
	}
	rs, err := ix.MoveRewrites(t.Context(), "设计/缓存设计.md", "archive/缓存.md", read)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rs {
		got[r.Path] = r.New
	}
	// other.md's [[缓存]] named no note before the move: it is not
	// rewritten. The moved note's ../Home.md still holds (same depth).
	want := "# Home\n[[缓存#命中率|命中]] and [c](archive/缓存.md)\n"
	if len(got) != 1 || got["Home.md"] != want {
		t.Errorf("rewrites %+v, want Home.md only: %q", got, want)
	}
}
