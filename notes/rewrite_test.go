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
		{"URLs untouched, an embed follows", "Home.md", "Home2.md", "新名.md", "![i](Home2.md) [w](https://x.org/Home2.md)", "![i](新名.md) [w](https://x.org/Home2.md)", 1},
		{"adjacent links both follow", "Home.md", "旧名.md", "新名.md", "[a](旧名.md)[b](旧名.md)", "[a](新名.md)[b](新名.md)", 2},
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

func TestRewriteMovedLinksForAFolder(t *testing.T) {
	// The folder 会议 moved to archive/2024/会议; x/y/Ideas.md, b/Ideas.md
	// and the rest stay.
	moves := map[string]string{
		"会议/周会.md":        "archive/2024/会议/周会.md",
		"会议/决定.md":        "archive/2024/会议/决定.md",
		"会议/sub/Ideas.md": "archive/2024/会议/sub/Ideas.md",
	}
	notes := []string{"Home.md", "b/Ideas.md", "x/y/z/Ideas.md", "work/plan.md"}
	for _, nw := range moves {
		notes = append(notes, nw)
	}
	cases := []struct {
		name, rel, text, want string
		n                     int
	}{
		{"a unique bare name stays", "Home.md", "[[周会]] [[决定#结论|结论]]", "[[周会]] [[决定#结论|结论]]", 0},
		{"a path that still ends right stays", "Home.md", "[[会议/周会]] [[会议/决定.md#A]]", "[[会议/周会]] [[会议/决定.md#A]]", 0},
		{"a path that no longer ends right gets the new path", "Home.md", "[[archive/会议/周会]]", "[[archive/会议/周会]]", 0},
		{"relative links into the folder", "work/plan.md", "[a](../会议/周会.md#议程) [b](../%E4%BC%9A%E8%AE%AE/%E5%86%B3%E5%AE%9A.md)",
			"[a](../archive/2024/会议/周会.md#议程) [b](../archive/2024/%E4%BC%9A%E8%AE%AE/%E5%86%B3%E5%AE%9A.md)", 2},
		{"links inside the folder keep working as written", "archive/2024/会议/周会.md",
			"[[决定]] [d](决定.md) [s](./sub/Ideas.md) [[会议/决定]] [[#议程]]", "[[决定]] [d](决定.md) [s](./sub/Ideas.md) [[会议/决定]] [[#议程]]", 0},
		{"links out of the folder follow it", "archive/2024/会议/周会.md",
			"[h](../Home.md) [p](../work/plan.md#Goals) [[Home]] [[plan]]", "[h](../../../Home.md) [p](../../../work/plan.md#Goals) [[Home]] [[plan]]", 2},
		{"a note outside the folder it would take over keeps its link", "work/plan.md", "[[Ideas]]", "[[Ideas]]", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, n := RewriteMovedLinks(c.rel, c.text, moves, notes)
			if got != c.want || n != c.n {
				t.Errorf("RewriteMovedLinks(%s, %q)\n got %q (%d)\nwant %q (%d)", c.rel, c.text, got, n, c.want, c.n)
			}
		})
	}
	// [[Ideas]] from Home.md names the shortest path: a/Ideas.md before
	// (it ties with b/Ideas.md and sorts first). Moved deeper, the name
	// finds b/Ideas.md: the link gets the moved note's path.
	down := map[string]string{"a/Ideas.md": "deep/a/Ideas.md"}
	if got, n := RewriteMovedLinks("Home.md", "[[Ideas|想法]] [[ideas]]", down, []string{"Home.md", "b/Ideas.md", "deep/a/Ideas.md"}); got != "[[deep/a/Ideas|想法]] [[deep/a/Ideas]]" || n != 2 {
		t.Errorf("ambiguous: got %q (%d)", got, n)
	}
	// The other way: a deep folder moved to the top makes its note the
	// shortest, and takes over [[Ideas]], which named b/c/d/Ideas.md: the
	// link gets that note's path and keeps pointing there.
	up := map[string]string{"deep/er/than/Ideas.md": "than/Ideas.md"}
	after := []string{"Home.md", "b/c/d/Ideas.md", "than/Ideas.md"}
	if got, n := RewriteMovedLinks("Home.md", "[[Ideas#Goals]] [[d/Ideas]]", up, after); got != "[[b/c/d/Ideas#Goals]] [[d/Ideas]]" || n != 1 {
		t.Errorf("taken over: got %q (%d)", got, n)
	}
}

func TestFolderMoveRewritesFromTheIndex(t *testing.T) {
	for _, seen := range []bool{false, true} {
		t.Run(map[bool]string{false: "the index has not seen the move", true: "the index has seen it"}[seen], func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "Home.md", "# Home\n[[会议记录#决定]] and [w](会议/周会.md) and [[Ideas]]\n")
			write(t, dir, "会议/会议记录.md", "# 会议记录\n## 决定\n[home](../Home.md) [[周会]]\n")
			write(t, dir, "会议/周会.md", "[r](会议记录.md)\n")
			write(t, dir, "会议/Ideas.md", "mine\n")
			write(t, dir, "bbbb/cc/Ideas.md", "other\n")
			write(t, dir, "other.md", "[[周会]] and [x](bbbb/cc/Ideas.md)\n")
			ix := openIndex(t, dir)
			if _, err := ix.Sync(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "archive"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(dir, "会议"), filepath.Join(dir, "archive/旧会议")); err != nil {
				t.Fatal(err)
			}
			if seen {
				if _, err := ix.Sync(t.Context(), nil); err != nil {
					t.Fatal(err)
				}
			}
			read := func(rel string) (string, error) {
				b, err := os.ReadFile(filepath.Join(dir, rel))
				return string(b), err
			}
			rs, err := ix.FolderMoveRewrites(t.Context(), "会议", "archive/旧会议", read)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			links := 0
			for _, r := range rs {
				got[r.Path] = r.New
				links += r.Links
			}
			want := map[string]string{
				// [[Ideas]] named 会议/Ideas.md (shorter in bytes than
				// bbbb/cc/Ideas.md); archive/旧会议/Ideas.md is longer.
				"Home.md":             "# Home\n[[会议记录#决定]] and [w](archive/旧会议/周会.md) and [[archive/旧会议/Ideas]]\n",
				"archive/旧会议/会议记录.md": "# 会议记录\n## 决定\n[home](../../Home.md) [[周会]]\n",
			}
			if len(got) != len(want) || links != 3 {
				t.Errorf("rewrites %+v (%d links), want %d notes, 3 links", got, links, len(want))
			}
			for p, w := range want {
				if got[p] != w {
					t.Errorf("%s:\n got %q\nwant %q", p, got[p], w)
				}
			}
			// Nothing for a folder into itself or the top.
			for _, c := range [][2]string{{"archive", "archive/x"}, {".", "x"}, {"archive", "archive"}} {
				if rs, err := ix.FolderMoveRewrites(t.Context(), c[0], c[1], read); err != nil || rs != nil {
					t.Errorf("FolderMoveRewrites(%s, %s) = %v, %v", c[0], c[1], rs, err)
				}
			}
		})
	}
}
