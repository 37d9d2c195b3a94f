package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/workspace"
)

// TestRejectHunkRestoresItsPriorText: a turn changes two places of a
// file; rejecting one puts exactly its prior text back on disk (the other
// stays), an open clean buffer reloads, the checkpoint keeps the review
// and its After becomes what was kept; undoing the reject applies it
// again; Keep only records.
func TestRejectHunkRestoresItsPriorText(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	cps := w.Checkpoints()
	p := filepath.Join(dir, "h.md")
	orig := "# H\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
	write(t, p, orig)
	if _, err := w.Buffers().Open("h.md"); err != nil {
		t.Fatal(err)
	}
	must(t, cps.BeginTurn("t1"))
	agent := "# H by agent\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine, added\n"
	must(t, w.AgentFS(workspace.Hooks{}).WriteTextFile(t.Context(), p, agent))
	_, err := cps.EndTurn("t1")
	must(t, err)

	fh, err := cps.Hunks("t1", "h.md")
	must(t, err)
	want := []workspace.Hunk{{Start: 1, Before: "# H\n", After: "# H by agent\n"}, {Start: 10, Before: "", After: "nine, added\n"}}
	if len(fh.Hunks) != 2 || fh.Hunks[0] != want[0] || fh.Hunks[1] != want[1] {
		t.Fatalf("hunks = %+v, want %+v", fh.Hunks, want)
	}

	fh, err = cps.ReviewHunks("t1", "h.md", workspace.HunkRejected, []workspace.Hunk{fh.Hunks[0]})
	must(t, err)
	kept := "# H\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine, added\n"
	if got := read(t, p); got != kept {
		t.Fatalf("after reject disk = %q, want %q", got, kept)
	}
	if st, _ := w.Buffers().Get("h.md"); st.Content != kept || st.Dirty {
		t.Errorf("open buffer %+v, want the kept text, clean", st)
	}
	if len(fh.Hunks) != 1 || fh.Hunks[0] != want[1] {
		t.Errorf("hunks after reject = %+v", fh.Hunks)
	}
	if len(fh.Reviews) != 1 || fh.Reviews[0].Action != workspace.HunkRejected || fh.Reviews[0].Before != "# H\n" || fh.Reviews[0].Start != 1 {
		t.Errorf("reviews = %+v", fh.Reviews)
	}
	// The checkpoint holds what was kept.
	diffs, err := cps.Changes("t1")
	must(t, err)
	if d := diffs[0].Diff; strings.Contains(d, "by agent") || !strings.Contains(d, "+nine, added") {
		t.Errorf("changes after reject = %q", d)
	}
	// A stale hunk (its text no longer at its line) is refused, nothing written.
	_, err = cps.ReviewHunks("t1", "h.md", workspace.HunkRejected, []workspace.Hunk{want[0]})
	if !errors.Is(err, workspace.ErrConflict) {
		t.Errorf("stale reject: %v, want ErrConflict", err)
	}
	if got := read(t, p); got != kept {
		t.Errorf("a refused reject wrote %q", got)
	}

	// Undo the reject.
	fh, err = cps.ReviewHunks("t1", "h.md", workspace.HunkRestored, []workspace.Hunk{fh.Reviews[0].Hunk})
	must(t, err)
	if got := read(t, p); got != agent {
		t.Fatalf("after undo disk = %q, want the agent's %q", got, agent)
	}
	if len(fh.Hunks) != 2 || len(fh.Reviews) != 2 || fh.Reviews[1].Action != workspace.HunkRestored {
		t.Errorf("after undo: %+v", fh)
	}
	// Keep records and writes nothing.
	fh, err = cps.ReviewHunks("t1", "h.md", workspace.HunkKept, fh.Hunks)
	must(t, err)
	if got := read(t, p); got != agent || len(fh.Reviews) != 4 {
		t.Errorf("keep wrote %q / reviews %+v", got, fh.Reviews)
	}
	// Persisted: another read of the checkpoint has them.
	cp, err := cps.Get("t1")
	must(t, err)
	if len(cp.Files[0].Reviews) != 4 {
		t.Errorf("stored reviews = %+v", cp.Files[0].Reviews)
	}
}

// TestRejectAllHunksAndUnsavedEdits: several hunks rejected at once (line
// numbers shift between them) give the file as before the turn, and the
// undo gives the agent's text back; with unsaved edits in the editor a
// reject is refused (nothing written, nothing of the edits lost).
func TestRejectAllHunksAndUnsavedEdits(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	cps := w.Checkpoints()
	p := filepath.Join(dir, "m.md")
	orig := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	write(t, p, orig)
	must(t, cps.BeginTurn("t1"))
	agent := "0\n1\n2 two\n2b\n3\n4\n6\n7\n8\n9\n10\n"
	must(t, w.AgentFS(workspace.Hooks{}).WriteTextFile(t.Context(), p, agent))
	_, err := cps.EndTurn("t1")
	must(t, err)
	fh, err := cps.Hunks("t1", "m.md")
	must(t, err)
	if len(fh.Hunks) != 4 {
		t.Fatalf("hunks = %+v", fh.Hunks)
	}
	if _, err := w.Buffers().Open("m.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Buffers().Update("m.md", agent+"typed\n", true); err != nil {
		t.Fatal(err)
	}
	if _, err := cps.ReviewHunks("t1", "m.md", workspace.HunkRejected, fh.Hunks); !errors.Is(err, workspace.ErrConflict) {
		t.Fatalf("reject with unsaved edits: %v, want ErrConflict", err)
	}
	if st, _ := w.Buffers().Get("m.md"); st.Content != agent+"typed\n" || read(t, p) != agent {
		t.Fatalf("a refused reject touched the buffer %q or the disk %q", st.Content, read(t, p))
	}
	w.Buffers().Close("m.md")

	fh, err = cps.ReviewHunks("t1", "m.md", workspace.HunkRejected, fh.Hunks)
	must(t, err)
	if got := read(t, p); got != orig {
		t.Fatalf("reject all: %q, want %q", got, orig)
	}
	var undo []workspace.Hunk
	for _, r := range fh.Reviews {
		undo = append(undo, r.Hunk)
	}
	_, err = cps.ReviewHunks("t1", "m.md", workspace.HunkRestored, undo)
	must(t, err)
	if got := read(t, p); got != agent {
		t.Fatalf("undo reject all: %q, want %q", got, agent)
	}
}

// TestUndoRevert: a reverted turn's files get the turn's result back (a
// file it made comes back, one it removed goes again) and the turn can be
// reverted again; a file changed since the revert blocks the undo.
func TestUndoRevert(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	cps := w.Checkpoints()
	fsys := w.AgentFS(workspace.Hooks{})
	must(t, cps.BeginTurn("t1"))
	must(t, fsys.WriteTextFile(t.Context(), filepath.Join(dir, "a.md"), "a1\nA2\na3\n"))
	must(t, fsys.WriteTextFile(t.Context(), filepath.Join(dir, "made.md"), "made\n"))
	must(t, os.Remove(filepath.Join(dir, "doomed.md")))
	_, err := cps.EndTurn("t1")
	must(t, err)
	if _, err := cps.UndoRevert("t1"); err == nil {
		t.Fatal("undo of a turn not reverted succeeded")
	}
	_, err = cps.Revert("t1")
	must(t, err)
	if read(t, filepath.Join(dir, "a.md")) != "a1\na2\na3\n" || exists(filepath.Join(dir, "made.md")) || !exists(filepath.Join(dir, "doomed.md")) {
		t.Fatal("revert did not revert")
	}
	res, err := cps.UndoRevert("t1")
	must(t, err)
	if read(t, filepath.Join(dir, "a.md")) != "a1\nA2\na3\n" || read(t, filepath.Join(dir, "made.md")) != "made\n" || exists(filepath.Join(dir, "doomed.md")) {
		t.Fatalf("undo revert did not restore the turn's result: %+v", res)
	}
	cp, err := cps.Get("t1")
	must(t, err)
	if cp.Reverted != nil {
		t.Error("still marked reverted")
	}
	// Again, with a change after the revert: refused, nothing written.
	_, err = cps.Revert("t1")
	must(t, err)
	write(t, filepath.Join(dir, "a.md"), "edited after the revert\n")
	_, err = cps.UndoRevert("t1")
	var rc *workspace.RevertConflictError
	if !errors.As(err, &rc) || len(rc.Conflicts) != 1 || rc.Conflicts[0].Path != "a.md" {
		t.Fatalf("undo over a later edit: %v", err)
	}
	if exists(filepath.Join(dir, "made.md")) {
		t.Error("a refused undo wrote made.md")
	}
}

// TestHunksAreTheTurnsOnly: edits made after the turn (the person's saved
// text) are not hunks of the turn; they shift the turn's hunks, which a
// reject then finds at their new lines; a hunk edited since is left out.
func TestHunksAreTheTurnsOnly(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	cps := w.Checkpoints()
	p := filepath.Join(dir, "s.md")
	write(t, p, "1\n2\n3\n4\n5\n6\n7\n8\n")
	must(t, cps.BeginTurn("t1"))
	must(t, w.AgentFS(workspace.Hooks{}).WriteTextFile(t.Context(), p, "1 agent\n2\n3\n4\n5\n6\n7\n8 agent\n"))
	_, err := cps.EndTurn("t1")
	must(t, err)
	// Later: two lines typed in the middle and saved, and the last line edited.
	bs := w.Buffers()
	if _, err := bs.Open("s.md"); err != nil {
		t.Fatal(err)
	}
	later := "1 agent\n2\n3\nmine a\nmine b\n4\n5\n6\n7\n8 agent, then mine\n"
	if _, err := bs.Update("s.md", later, true); err != nil {
		t.Fatal(err)
	}
	if _, err := bs.Save("s.md"); err != nil {
		t.Fatal(err)
	}
	fh, err := cps.Hunks("t1", "s.md")
	must(t, err)
	if len(fh.Hunks) != 1 || fh.Hunks[0] != (workspace.Hunk{Start: 1, Before: "1\n", After: "1 agent\n"}) {
		t.Fatalf("hunks = %+v, want only the turn's untouched first line", fh.Hunks)
	}
	must(t, writeErr(cps.ReviewHunks("t1", "s.md", workspace.HunkRejected, fh.Hunks)))
	if got := read(t, p); got != "1\n2\n3\nmine a\nmine b\n4\n5\n6\n7\n8 agent, then mine\n" {
		t.Fatalf("after reject: %q", got)
	}

	// Shifted: a hunk below the person's lines.
	must(t, cps.BeginTurn("t2"))
	must(t, w.AgentFS(workspace.Hooks{}).WriteTextFile(t.Context(), p, "1\n2\n3\nmine a\nmine b\n4\n5 agent\n6\n7\n8 agent, then mine\n"))
	_, err = cps.EndTurn("t2")
	must(t, err)
	write(t, p, "0 other program\n1\n2\n3\nmine a\nmine b\n4\n5 agent\n6\n7\n8 agent, then mine\n")
	fh, err = cps.Hunks("t2", "s.md")
	must(t, err)
	if len(fh.Hunks) != 1 || fh.Hunks[0].Start != 8 {
		t.Fatalf("shifted hunks = %+v, want one at line 8", fh.Hunks)
	}
	must(t, writeErr(cps.ReviewHunks("t2", "s.md", workspace.HunkRejected, fh.Hunks)))
	if got := read(t, p); got != "0 other program\n1\n2\n3\nmine a\nmine b\n4\n5\n6\n7\n8 agent, then mine\n" {
		t.Fatalf("after shifted reject: %q", got)
	}
}

func writeErr(_ *workspace.FileHunks, err error) error { return err }
