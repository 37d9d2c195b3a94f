package workspace_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mnote/workspace"
)

// cpWorkspace opens a workspace with checkpoints and a few files.
func cpWorkspace(t *testing.T) (*workspace.Workspace, string, string) {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "a1\na2\na3\n")
	write(t, filepath.Join(dir, "notes", "b.md"), "b\n")
	write(t, filepath.Join(dir, "doomed.md"), "doomed\n")
	write(t, filepath.Join(dir, "node_modules", "x.md"), "ignored\n")
	must(t, os.Chmod(filepath.Join(dir, "doomed.md"), 0o600))
	state := t.TempDir()
	w, dir := openDir(t, dir, workspace.Options{StateDir: state})
	must(t, w.Checkpoints().Ready())
	return w, dir, state
}

func paths(fc []workspace.FileChange) []string {
	var out []string
	for _, f := range fc {
		out = append(out, string(f.Op)+" "+f.Path)
	}
	return out
}

// TestCheckpointRecordsFsAndDiskWrites: a turn's checkpoint holds the
// files written through fs/write_text_file and those the agent wrote,
// created and deleted on disk itself, not the ignored ones; Changes gives
// their diffs; Revert puts everything back.
func TestCheckpointRecordsFsAndDiskWrites(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	cps := w.Checkpoints()
	fsys := w.AgentFS(workspace.Hooks{})
	must(t, cps.BeginTurn("turn-1"))
	// Through the app.
	must(t, fsys.WriteTextFile(t.Context(), filepath.Join(dir, "a.md"), "a1\nA2\na3\n"))
	must(t, fsys.WriteTextFile(t.Context(), filepath.Join(dir, "new", "made.md"), "made\n"))
	// On disk, as Claude Code or Codex do. The same size as before and
	// right after BeginTurn: the scan must still see it.
	write(t, filepath.Join(dir, "notes", "b.md"), "B\n")
	must(t, os.Remove(filepath.Join(dir, "doomed.md")))
	write(t, filepath.Join(dir, "node_modules", "x.md"), "changed but ignored\n")
	cp, err := cps.EndTurn("turn-1")
	must(t, err)
	want := []string{"changed a.md", "removed doomed.md", "created new/made.md", "changed notes/b.md"}
	if got := paths(cp.Files); !slices.Equal(got, want) {
		t.Fatalf("checkpoint files = %q, want %q", got, want)
	}

	diffs, err := cps.Changes("turn-1")
	must(t, err)
	byPath := map[string]string{}
	for _, d := range diffs {
		byPath[d.Path] = d.Diff
	}
	if d := byPath["a.md"]; !strings.Contains(d, "--- a/a.md\n+++ b/a.md\n") || !strings.Contains(d, "-a2\n+A2\n") {
		t.Errorf("a.md diff = %q", d)
	}
	if d := byPath["new/made.md"]; !strings.Contains(d, "--- /dev/null\n") || !strings.Contains(d, "+made\n") {
		t.Errorf("created diff = %q", d)
	}
	if d := byPath["doomed.md"]; !strings.Contains(d, "+++ /dev/null\n") || !strings.Contains(d, "-doomed\n") {
		t.Errorf("removed diff = %q", d)
	}

	ev := collect(w)
	w.Buffers().Open("a.md")
	res, err := cps.Revert("turn-1")
	must(t, err)
	if !slices.Equal(res.Deleted, []string{"new/made.md"}) || len(res.Restored) != 3 {
		t.Errorf("revert result = %+v", res)
	}
	if read(t, filepath.Join(dir, "a.md")) != "a1\na2\na3\n" || read(t, filepath.Join(dir, "notes", "b.md")) != "b\n" {
		t.Error("changed files not restored")
	}
	if read(t, filepath.Join(dir, "doomed.md")) != "doomed\n" {
		t.Error("deleted file not restored")
	}
	if st, _ := os.Stat(filepath.Join(dir, "doomed.md")); st.Mode().Perm() != 0o600 {
		t.Errorf("restored file mode %v, want its old 0600", st.Mode().Perm())
	}
	if exists(filepath.Join(dir, "new", "made.md")) {
		t.Error("created file not deleted")
	}
	if b := ev.waitBuffer(t, "a.md", workspace.BufferReloaded); b.Buffer.Content != "a1\na2\na3\n" {
		t.Errorf("open buffer after revert = %+v", b.Buffer)
	}
	if _, err := cps.Revert("turn-1"); err == nil || !strings.Contains(err.Error(), "already reverted") {
		t.Errorf("second revert = %v", err)
	}
	got, err := cps.Get("turn-1")
	if err != nil || got.Reverted == nil {
		t.Errorf("checkpoint after revert = %+v, %v", got, err)
	}
}

// TestRevertRefusedWhenChangedSince: a file changed after the turn makes
// the whole revert refuse, with a diff from the turn's result to now, and
// nothing is written.
func TestRevertRefusedWhenChangedSince(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	cps := w.Checkpoints()
	must(t, cps.BeginTurn("t1"))
	write(t, filepath.Join(dir, "a.md"), "agent\n")
	write(t, filepath.Join(dir, "notes", "b.md"), "agent b\n")
	_, err := cps.EndTurn("t1")
	must(t, err)
	write(t, filepath.Join(dir, "a.md"), "agent\nthen the user\n")

	_, err = cps.Revert("t1")
	var rc *workspace.RevertConflictError
	if !errors.As(err, &rc) || len(rc.Conflicts) != 1 || rc.Conflicts[0].Path != "a.md" {
		t.Fatalf("revert = %v, want a conflict on a.md", err)
	}
	if d := rc.Conflicts[0].Diff; !strings.Contains(d, "+then the user\n") {
		t.Errorf("conflict diff = %q", d)
	}
	if read(t, filepath.Join(dir, "notes", "b.md")) != "agent b\n" {
		t.Error("a refused revert changed another file (must be all or nothing)")
	}
	// Undo the later edit: the revert goes through.
	write(t, filepath.Join(dir, "a.md"), "agent\n")
	_, err = cps.Revert("t1")
	must(t, err)
	if read(t, filepath.Join(dir, "a.md")) != "a1\na2\na3\n" || read(t, filepath.Join(dir, "notes", "b.md")) != "b\n" {
		t.Error("revert after undo")
	}

	// A file the turn deleted that came back since is a conflict too.
	must(t, cps.BeginTurn("t2"))
	must(t, os.Remove(filepath.Join(dir, "doomed.md")))
	_, err = cps.EndTurn("t2")
	must(t, err)
	write(t, filepath.Join(dir, "doomed.md"), "recreated\n")
	if _, err := cps.Revert("t2"); !errors.As(err, &rc) || !strings.Contains(rc.Conflicts[0].Diff, "--- /dev/null") {
		t.Errorf("revert over a re-created file = %v", err)
	}
}

// TestCheckpointUserChangesAreNotTheAgents: the user's saves and tree
// operations through mnote during a turn are not in its checkpoint.
func TestCheckpointUserChangesAreNotTheAgents(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	cps := w.Checkpoints()
	bs := w.Buffers()
	bs.Open("a.md")
	must(t, cps.BeginTurn("t"))
	bs.Update("a.md", "user edit\n", true)
	if _, err := bs.Save("a.md"); err != nil {
		t.Fatal(err)
	}
	must(t, w.CreateFile("user.md", []byte("u\n")))
	if _, err := w.Delete("doomed.md"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "notes", "b.md"), "agent\n")
	cp, err := cps.EndTurn("t")
	must(t, err)
	if got := paths(cp.Files); !slices.Equal(got, []string{"changed notes/b.md"}) {
		t.Errorf("checkpoint = %q, want only the agent's file", got)
	}
}

// TestCheckpointsPersistAndSkipUnkept: checkpoints survive a reopen; a
// binary file is tracked but not kept, and Revert skips it; an empty turn
// stores nothing; Prune frees old contents.
func TestCheckpointsPersistAndSkipUnkept(t *testing.T) {
	w, dir, state := cpWorkspace(t)
	write(t, filepath.Join(dir, "img.bin"), "\xff\xfe\x00binary")
	cps := w.Checkpoints()
	must(t, cps.BeginTurn("empty"))
	cp, err := cps.EndTurn("empty")
	if err != nil || len(cp.Files) != 0 {
		t.Fatalf("empty turn = %+v, %v", cp, err)
	}
	if _, err := cps.Get("empty"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty turn stored: %v", err)
	}
	must(t, cps.BeginTurn("t1"))
	write(t, filepath.Join(dir, "img.bin"), "\xff\xfe\x00other")
	write(t, filepath.Join(dir, "a.md"), "t1\n")
	_, err = cps.EndTurn("t1")
	must(t, err)
	if _, err := cps.EndTurn("t1"); err == nil {
		t.Error("ending a turn twice worked")
	}
	if err := cps.BeginTurn(""); err == nil {
		t.Error("an empty turn id worked")
	}
	w.Close()

	w2, _ := openDir(t, dir, workspace.Options{StateDir: state})
	cps2 := w2.Checkpoints()
	list, err := cps2.List()
	must(t, err)
	if len(list) != 1 || list[0].Turn != "t1" {
		t.Fatalf("after reopen: %+v", list)
	}
	diffs, err := cps2.Changes("t1")
	must(t, err)
	for _, d := range diffs {
		if d.Path == "img.bin" && (d.NotKept != "not text" || d.Diff != "") {
			t.Errorf("binary diff = %+v", d)
		}
	}
	res, err := cps2.Revert("t1")
	must(t, err)
	if len(res.Skipped) != 1 || res.Skipped[0].Path != "img.bin" || !slices.Equal(res.Restored, []string{"a.md"}) {
		t.Errorf("revert = %+v", res)
	}
	if read(t, filepath.Join(dir, "a.md")) != "a1\na2\na3\n" {
		t.Error("revert after reopen")
	}
	must(t, cps2.Delete("t1"))
	n, err := cps2.Prune(10)
	must(t, err)
	if n == 0 {
		t.Error("Prune freed nothing after the only checkpoint was deleted")
	}
	if list, _ := cps2.List(); len(list) != 0 {
		t.Errorf("list after delete = %+v", list)
	}
}

// TestCheckpointStoreIsOnePrivateFile: any turn id works (it is not a
// file name) and the state folder holds only the SQLite store, mode 0600.
func TestCheckpointStoreIsOnePrivateFile(t *testing.T) {
	w, dir, state := cpWorkspace(t)
	cps := w.Checkpoints()
	id := "../../escape me"
	must(t, cps.BeginTurn(id))
	write(t, filepath.Join(dir, "a.md"), "x\n")
	_, err := cps.EndTurn(id)
	must(t, err)
	if cp, err := cps.Get(id); err != nil || cp.Turn != id {
		t.Errorf("Get = %+v, %v", cp, err)
	}
	ents, _ := os.ReadDir(state)
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "checkpoints.db") {
			t.Errorf("unexpected file in the state folder: %s", e.Name())
		}
	}
	st, err := os.Stat(filepath.Join(state, "checkpoints.db"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("store file: %v, %v", st, err)
	}
}

// TestCheckpointSeesChangesThatHideTheirMtime: an in-place rewrite of the
// same size with the old mtime put back (touch -r, cp -p, rsync -t) is
// still found (the inode change time cannot be set back).
func TestCheckpointSeesChangesThatHideTheirMtime(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "old.md")
	write(t, p, "original\n")
	old := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(p, old, old))
	w, _ := openDir(t, dir, workspace.Options{StateDir: t.TempDir()})
	cps := w.Checkpoints()
	must(t, cps.BeginTurn("t"))
	must(t, os.WriteFile(p, []byte("ORIGINAL\n"), 0o644))
	must(t, os.Chtimes(p, old, old))
	cp, err := cps.EndTurn("t")
	must(t, err)
	if got := paths(cp.Files); !slices.Equal(got, []string{"changed old.md"}) {
		t.Errorf("checkpoint = %q", got)
	}
}

// A folder too big for checkpoints (a home folder opened by mistake) is not
// copied: the first scan stops, Ready says why, BeginTurn refuses, and the
// rest of the workspace keeps working.
func TestCheckpointsTooBig(t *testing.T) {
	restore := workspace.SetCheckpointLimitsForTest(5, 1<<20)
	defer restore()
	dir := t.TempDir()
	for i := range 8 {
		write(t, filepath.Join(dir, fmt.Sprintf("n%d.md", i)), "note\n")
	}
	w, _ := openDir(t, dir, workspace.Options{StateDir: t.TempDir()})
	err := w.Checkpoints().Ready()
	if !errors.Is(err, workspace.ErrTooBig) || !strings.Contains(err.Error(), "smaller folder") {
		t.Fatalf("Ready: %v", err)
	}
	if err := w.Checkpoints().BeginTurn("t1"); !errors.Is(err, workspace.ErrTooBig) {
		t.Fatalf("BeginTurn: %v", err)
	}
	if n, err := w.Tree(workspace.TreeOptions{}); err != nil || len(n.Children) != 8 {
		t.Fatalf("tree: %v %v", n, err)
	}
}
