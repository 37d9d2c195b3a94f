package workspace_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"mnote/internal/testenv"
	"mnote/workspace"
)

// names lists a tree as indented "name/" and "name" lines.
func names(n *workspace.Node) []string {
	var out []string
	var walk func(n *workspace.Node, indent string)
	walk = func(n *workspace.Node, indent string) {
		for _, c := range n.Children {
			s := indent + c.Name
			if c.Dir {
				s += "/"
			}
			out = append(out, s)
			walk(c, indent+"  ")
		}
	}
	walk(n, "")
	return out
}

func TestTreeListsSortsAndIgnores(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{
		"Note 10.md", "note 2.md", "b.md", "A.md", "image.png", ".hidden.md",
		"Zeta/z.md", "alpha/x.txt", "alpha/Sub/deep.markdown",
		".git/config.md", "node_modules/m/readme.md", ".obsidian/app.md", "__pycache__/c.md",
		"alpha/.y.md.swp", "alpha/backup.md~", ".dot/d.md",
	} {
		write(t, filepath.Join(dir, p), p)
	}
	must(t, os.Symlink("b.md", filepath.Join(dir, "link.md")))
	must(t, os.Symlink("/etc/hostname", filepath.Join(dir, "escape.md")))
	w, _ := openDir(t, dir, workspace.Options{})

	tree, err := w.Tree(workspace.TreeOptions{})
	must(t, err)
	want := []string{"alpha/", "  Sub/", "    deep.markdown", "Zeta/", "  z.md", "A.md", "b.md", "link.md", "note 2.md", "Note 10.md"}
	if got := names(tree); !slices.Equal(got, want) {
		t.Errorf("tree =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	all, err := w.Tree(workspace.TreeOptions{AllFiles: true, Hidden: true})
	must(t, err)
	got := names(all)
	for _, p := range []string{"  x.txt", "image.png", ".hidden.md", ".dot/"} {
		if !slices.Contains(got, p) {
			t.Errorf("AllFiles+Hidden tree lacks %q: %q", p, got)
		}
	}
	for _, p := range []string{".git/", "node_modules/", ".obsidian/", "__pycache__/", "  .y.md.swp", "  backup.md~", "escape.md"} {
		if slices.Contains(got, p) {
			t.Errorf("tree lists ignored %q", p)
		}
	}

	sub, err := w.Tree(workspace.TreeOptions{Dir: "alpha", Depth: 1, AllFiles: true})
	must(t, err)
	if got := names(sub); !slices.Equal(got, []string{"Sub/", "x.txt"}) {
		t.Errorf("alpha, depth 1 = %q", got)
	}
	filtered, err := w.Tree(workspace.TreeOptions{Filter: "DEEP"})
	must(t, err)
	if got := names(filtered); !slices.Equal(got, []string{"alpha/", "  Sub/", "    deep.markdown"}) {
		t.Errorf("filtered tree = %q", got)
	}
	if _, err := w.Tree(workspace.TreeOptions{Dir: "../"}); !errors.Is(err, workspace.ErrOutside) {
		t.Errorf("Tree(../) = %v", err)
	}

	// A custom ignore list replaces the default.
	w2, _ := openDir(t, dir, workspace.Options{Ignore: []string{"Zeta", "*.markdown"}})
	t2, err := w2.Tree(workspace.TreeOptions{Hidden: true})
	must(t, err)
	g2 := names(t2)
	if slices.Contains(g2, "Zeta/") || slices.Contains(g2, "    deep.markdown") || !slices.Contains(g2, ".obsidian/") {
		t.Errorf("custom ignore tree = %q", g2)
	}
}

func TestFindRanks(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"plan.md", "plans/2024 plan.md", "projects/planet.md", "misc/p-l-a-n.md", "other.md", "notes/airplane.md"} {
		write(t, filepath.Join(dir, p), "x")
	}
	w, _ := openDir(t, dir, workspace.Options{})
	ms, err := w.Find("PLAN", workspace.FindOptions{})
	must(t, err)
	var got []string
	for _, m := range ms {
		got = append(got, m.Path)
	}
	want := []string{"plan.md", "projects/planet.md", "plans/2024 plan.md", "notes/airplane.md", "misc/p-l-a-n.md"}
	if !slices.Equal(got, want) {
		t.Errorf("Find(PLAN) = %q, want %q", got, want)
	}
	ms, _ = w.Find("2024 plans", workspace.FindOptions{})
	if len(ms) != 1 || ms[0].Path != "plans/2024 plan.md" {
		t.Errorf("Find with two words in any order = %+v", ms)
	}
	ms, _ = w.Find("", workspace.FindOptions{Limit: 2})
	if len(ms) != 2 {
		t.Errorf("limit: %d matches", len(ms))
	}
	ms, _ = w.Find("plans", workspace.FindOptions{Dirs: true})
	if len(ms) == 0 || ms[0].Path != "plans" || !ms[0].Dir {
		t.Errorf("Find folders = %+v", ms)
	}
}

func TestTreeOperations(t *testing.T) {
	w, dir := open(t, workspace.Options{})
	must(t, w.CreateFile("daily/today.md", []byte("# today\n")))
	if read(t, filepath.Join(dir, "daily", "today.md")) != "# today\n" {
		t.Fatal("CreateFile content")
	}
	if err := w.CreateFile("daily/today.md", []byte("other")); !errors.Is(err, workspace.ErrExists) || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("CreateFile over a file = %v", err)
	}
	if read(t, filepath.Join(dir, "daily", "today.md")) != "# today\n" {
		t.Error("a refused create changed the file")
	}
	must(t, w.CreateFolder("projects/2025"))
	if err := w.CreateFolder("projects"); !errors.Is(err, workspace.ErrExists) || !strings.Contains(err.Error(), "a folder") {
		t.Errorf("CreateFolder over a folder = %v", err)
	}
	for _, bad := range []string{"../x.md", "/tmp/x.md", "", "a/../../x"} {
		if err := w.CreateFile(bad, nil); err == nil {
			t.Errorf("CreateFile(%q) worked", bad)
		}
	}

	// An open buffer follows a rename.
	ev := collect(w)
	if _, err := w.Buffers().Open("daily/today.md"); err != nil {
		t.Fatal(err)
	}
	must(t, w.Rename("daily/today.md", "daily/2025-01-01.md"))
	if _, ok := w.Buffers().Get("daily/2025-01-01.md"); !ok {
		t.Error("buffer not moved with its file")
	}
	mv := ev.waitBuffer(t, "daily/2025-01-01.md", workspace.BufferMoved)
	if mv.From != "daily/today.md" {
		t.Errorf("moved event = %+v", mv)
	}
	to, err := w.Move("daily/2025-01-01.md", "projects/2025")
	must(t, err)
	if to != "projects/2025/2025-01-01.md" || !exists(filepath.Join(dir, to)) {
		t.Errorf("Move = %q", to)
	}
	must(t, w.CreateFile("x.md", nil))
	if err := w.Rename("x.md", "projects/2025/2025-01-01.md"); !errors.Is(err, workspace.ErrExists) {
		t.Errorf("rename over a file = %v", err)
	}
	if err := w.Rename("projects", "projects/2025/inside"); err == nil || !strings.Contains(err.Error(), "inside itself") {
		t.Errorf("moving a folder into itself = %v", err)
	}
	if err := w.Rename("missing.md", "y.md"); !errors.Is(err, workspace.ErrNotFound) {
		t.Errorf("rename of a missing file = %v", err)
	}
	must(t, w.Rename("projects", "archive/projects"))
	if !exists(filepath.Join(dir, "archive", "projects", "2025", "2025-01-01.md")) {
		t.Error("folder move lost its contents")
	}
	if _, ok := w.Buffers().Get("archive/projects/2025/2025-01-01.md"); !ok {
		t.Error("buffer not moved with its folder")
	}
}

// TestDeleteToTrashAndRestore: Delete follows the freedesktop trash
// specification; Restore puts things back, and refuses to overwrite.
func TestDeleteToTrashAndRestore(t *testing.T) {
	trash := filepath.Join(t.TempDir(), "Trash")
	w, dir := open(t, workspace.Options{TrashDir: trash})
	write(t, filepath.Join(dir, "notes", "gone soon.md"), "bye\n")
	write(t, filepath.Join(dir, "folder", "inner.md"), "inner\n")
	ev := collect(w)
	w.Buffers().Open("notes/gone soon.md")

	tr, err := w.Delete("notes/gone soon.md")
	must(t, err)
	if exists(filepath.Join(dir, "notes", "gone soon.md")) {
		t.Fatal("file still there")
	}
	if tr.Local || tr.Trash != trash || tr.Name != "gone soon.md" {
		t.Errorf("trashed = %+v", tr)
	}
	if read(t, filepath.Join(trash, "files", "gone soon.md")) != "bye\n" {
		t.Error("trash/files content")
	}
	info := read(t, filepath.Join(trash, "info", "gone soon.md.trashinfo"))
	wantPath := "Path=" + strings.ReplaceAll(filepath.Join(dir, "notes", "gone soon.md"), " ", "%20") + "\n"
	if !strings.HasPrefix(info, "[Trash Info]\n") || !strings.Contains(info, wantPath) || !strings.Contains(info, "DeletionDate=") {
		t.Errorf("trashinfo = %q, want %q", info, wantPath)
	}
	if st, ok := w.Buffers().Get("notes/gone soon.md"); !ok || !st.Deleted {
		t.Errorf("buffer after delete = %+v %v", st, ok)
	}
	ev.waitBuffer(t, "notes/gone soon.md", workspace.BufferDeleted)

	// A second file with the same name gets another trash name.
	write(t, filepath.Join(dir, "notes", "gone soon.md"), "second\n")
	tr2, err := w.Delete("notes/gone soon.md")
	must(t, err)
	if tr2.Name != "gone soon.2.md" {
		t.Errorf("second trash name = %q", tr2.Name)
	}

	// Restore refuses while something is at the path, then works.
	write(t, filepath.Join(dir, "notes", "gone soon.md"), "third\n")
	if err := w.Restore(tr); !errors.Is(err, workspace.ErrExists) {
		t.Errorf("restore over a file = %v", err)
	}
	must(t, os.Remove(filepath.Join(dir, "notes", "gone soon.md")))
	// Through JSON, as the UI keeps it.
	b, _ := json.Marshal(tr)
	var back workspace.Trashed
	must(t, json.Unmarshal(b, &back))
	must(t, w.Restore(back))
	if read(t, filepath.Join(dir, "notes", "gone soon.md")) != "bye\n" {
		t.Error("restored content")
	}
	if exists(filepath.Join(trash, "info", "gone soon.md.trashinfo")) {
		t.Error("trashinfo left after restore")
	}
	if st, _ := w.Buffers().Get("notes/gone soon.md"); st.Deleted {
		t.Error("buffer still marked deleted after restore")
	}

	// Folders go whole, and come back whole, parents re-created.
	ft, err := w.Delete("folder")
	must(t, err)
	if !ft.Dir || exists(filepath.Join(dir, "folder")) {
		t.Fatalf("folder delete = %+v", ft)
	}
	must(t, w.Restore(ft))
	if read(t, filepath.Join(dir, "folder", "inner.md")) != "inner\n" {
		t.Error("folder restore")
	}
	// A forged trash entry cannot reach outside.
	for _, bad := range []workspace.Trashed{
		{Path: "x.md", Trash: "/etc", Name: "passwd"},
		{Path: "x.md", Trash: trash, Name: "../../etc/passwd"},
		{Path: "../x.md", Trash: trash, Name: "gone soon.2.md"},
	} {
		if err := w.Restore(bad); err == nil {
			t.Errorf("Restore(%+v) worked", bad)
		}
	}
	if _, err := w.Delete("."); err == nil {
		t.Error("deleting the workspace folder itself worked")
	}
}

// TestDeleteFallsBackToLocalTrash: with the user's trash on another
// device (tmpfs here), deleted files go to .mnote-trash in the workspace,
// hidden from the tree, and come back from there.
func TestDeleteFallsBackToLocalTrash(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "mnote-trash-test-")
	if err != nil {
		testenv.SkipOrFail(t, "no /dev/shm: "+err.Error())
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	var a, b syscall.Stat_t
	dir := t.TempDir()
	if syscall.Stat(shm, &a) != nil || syscall.Stat(dir, &b) != nil || a.Dev == b.Dev {
		testenv.SkipOrFail(t, "/dev/shm is on the same device as the temp folder")
	}
	w, dir := openDir(t, dir, workspace.Options{TrashDir: filepath.Join(shm, "Trash")})
	write(t, filepath.Join(dir, "n.md"), "n\n")
	tr, err := w.Delete("n.md")
	must(t, err)
	if !tr.Local || read(t, filepath.Join(dir, ".mnote-trash", "files", "n.md")) != "n\n" {
		t.Fatalf("trashed = %+v", tr)
	}
	info := read(t, filepath.Join(dir, ".mnote-trash", "info", "n.md.trashinfo"))
	if !strings.Contains(info, "Path=n.md\n") {
		t.Errorf("local trashinfo = %q", info)
	}
	tree, _ := w.Tree(workspace.TreeOptions{Hidden: true, AllFiles: true})
	if slices.Contains(names(tree), ".mnote-trash/") {
		t.Error("the local trash shows in the tree")
	}
	must(t, w.Restore(tr))
	if read(t, filepath.Join(dir, "n.md")) != "n\n" {
		t.Error("restore from the local trash")
	}
}
