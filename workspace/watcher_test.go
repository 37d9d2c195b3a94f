package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"mnote/workspace"
)

// watched opens a workspace with a.md and notes/b.md, watching it.
func watched(t *testing.T) (*workspace.Workspace, string, *collector) {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "a\n")
	write(t, filepath.Join(dir, "notes", "b.md"), "b\n")
	w, dir := openDir(t, dir, workspace.Options{})
	c := collect(w)
	must(t, w.Watch())
	must(t, w.Watch()) // a second call does nothing
	return w, dir, c
}

// settle makes a marker change and waits for it: every event caused
// before it has been delivered by then (batches are delivered in order).
func settle(t *testing.T, c *collector, dir string) []string {
	t.Helper()
	p := filepath.Join(dir, "zz-marker.md")
	write(t, p, "marker\n")
	evs := c.waitFor(t, "marker", func(evs []workspace.Event) bool {
		return hasChange(evs, "zz-marker.md", workspace.Created) || hasChange(evs, "zz-marker.md", workspace.Changed)
	})
	must(t, os.Remove(p))
	c.waitChange(t, "zz-marker.md", workspace.Removed)
	var out []string
	for _, s := range changes(evs) {
		if !strings.HasSuffix(s, "zz-marker.md") {
			out = append(out, s)
		}
	}
	c.reset()
	return out
}

func TestWatchExternalWrite(t *testing.T) {
	_, dir, c := watched(t)
	write(t, filepath.Join(dir, "notes", "b.md"), "b changed\n")
	c.waitChange(t, "notes/b.md", workspace.Changed)
	if got := settle(t, c, dir); !slices.Equal(got, []string{"changed notes/b.md"}) {
		t.Errorf("changes = %q, want one changed", got)
	}
}

// TestWatchEditorSaves: a save through a temporary file renamed over the
// target, and vim's backup-rename save with a swap file, each come out as
// one Changed for the real file and nothing for the temporary names.
func TestWatchEditorSaves(t *testing.T) {
	_, dir, c := watched(t)
	// Temp + rename (most editors, and atomic writers).
	tmp := filepath.Join(dir, "notes", ".b.md.tmp-1234")
	write(t, tmp, "saved by an editor\n")
	must(t, os.Rename(tmp, filepath.Join(dir, "notes", "b.md")))
	if got := settle(t, c, dir); !slices.Equal(got, []string{"changed notes/b.md"}) {
		t.Errorf("temp+rename save: changes = %q, want one changed", got)
	}

	// vim (backupcopy=no, writebackup): swap file while editing, the file
	// renamed to a backup, a new file written, the backup deleted.
	p := filepath.Join(dir, "a.md")
	swp := filepath.Join(dir, ".a.md.swp")
	write(t, swp, "swap")
	must(t, os.Rename(p, p+"~"))
	write(t, filepath.Join(dir, "4913"), "")
	must(t, os.Remove(filepath.Join(dir, "4913")))
	write(t, p, "a saved by vim\n")
	must(t, os.Remove(p+"~"))
	must(t, os.Remove(swp))
	if got := settle(t, c, dir); !slices.Equal(got, []string{"changed a.md"}) {
		t.Errorf("vim save: changes = %q, want one changed", got)
	}
}

// TestWatchNewNestedFolder: folders created at once (mkdir -p) and a file
// written in the deepest one right away are all seen; later writes there
// too (the new folders are watched); a removed folder is one change.
func TestWatchNewNestedFolder(t *testing.T) {
	_, dir, c := watched(t)
	deep := filepath.Join(dir, "x", "y", "z")
	must(t, os.MkdirAll(deep, 0o755))
	write(t, filepath.Join(deep, "new.md"), "new\n")
	c.waitChange(t, "x/y/z/new.md", workspace.Created)
	got := settle(t, c, dir)
	for _, want := range []string{"created x", "created x/y", "created x/y/z", "created x/y/z/new.md"} {
		if !slices.Contains(got, want) {
			t.Errorf("changes %q lack %q", got, want)
		}
	}
	write(t, filepath.Join(deep, "later.md"), "later\n")
	c.waitChange(t, "x/y/z/later.md", workspace.Created)
	settle(t, c, dir)

	must(t, os.RemoveAll(filepath.Join(dir, "x")))
	c.waitChange(t, "x", workspace.Removed)
	if got := settle(t, c, dir); !slices.Equal(got, []string{"removed x"}) {
		t.Errorf("removing a folder: changes = %q, want one removed", got)
	}
	// The folder's watches are gone; a new folder with the same name works.
	must(t, os.MkdirAll(filepath.Join(dir, "x"), 0o755))
	write(t, filepath.Join(dir, "x", "again.md"), "again\n")
	c.waitChange(t, "x/again.md", workspace.Created)
}

// TestWatchRenamesAndIgnored: a rename inside is one Renamed (a folder's
// too, with its contents following); ignored folders are silent.
func TestWatchRenamesAndIgnored(t *testing.T) {
	_, dir, c := watched(t)
	must(t, os.Rename(filepath.Join(dir, "a.md"), filepath.Join(dir, "renamed.md")))
	c.waitChange(t, "renamed.md", workspace.Renamed)
	if got := settle(t, c, dir); !slices.Equal(got, []string{"renamed renamed.md from a.md"}) {
		t.Errorf("changes = %q", got)
	}
	must(t, os.Rename(filepath.Join(dir, "notes"), filepath.Join(dir, "moved")))
	c.waitChange(t, "moved", workspace.Renamed)
	if got := settle(t, c, dir); !slices.Equal(got, []string{"renamed moved from notes"}) {
		t.Errorf("folder rename: changes = %q", got)
	}
	write(t, filepath.Join(dir, "moved", "b.md"), "edited after the move\n")
	c.waitChange(t, "moved/b.md", workspace.Changed)
	settle(t, c, dir)

	write(t, filepath.Join(dir, "node_modules", "pkg", "index.md"), "x")
	write(t, filepath.Join(dir, ".git", "HEAD"), "ref")
	write(t, filepath.Join(dir, "moved", "b.md~"), "backup")
	if got := settle(t, c, dir); len(got) != 0 {
		t.Errorf("ignored paths produced changes: %q", got)
	}
}

// TestWatchBuffers: a change on disk reloads a clean buffer and gives a
// dirty one a conflict; deleting an open file marks its buffer deleted
// and keeps it; the file coming back restores it.
func TestWatchBuffers(t *testing.T) {
	w, dir, c := watched(t)
	bs := w.Buffers()
	bs.Open("a.md")
	bs.Open("notes/b.md")
	bs.Update("notes/b.md", "my unsaved edit\n", true)

	write(t, filepath.Join(dir, "a.md"), "a from outside\n")
	ev := c.waitBuffer(t, "a.md", workspace.BufferReloaded)
	if ev.Buffer.Content != "a from outside\n" || ev.Buffer.Dirty {
		t.Errorf("reloaded buffer = %+v", ev.Buffer)
	}

	write(t, filepath.Join(dir, "notes", "b.md"), "b from outside\n")
	ev = c.waitBuffer(t, "notes/b.md", workspace.BufferConflict)
	if ev.Buffer.Content != "my unsaved edit\n" || !ev.Buffer.Conflict {
		t.Errorf("conflict buffer = %+v", ev.Buffer)
	}
	if s, _ := bs.Theirs("notes/b.md"); s != "b from outside\n" {
		t.Errorf("Theirs = %q", s)
	}

	// Our own save is not an external change: no reload, no conflict.
	c.reset()
	bs.Update("a.md", "a saved in mnote\n", true)
	if _, err := bs.Save("a.md"); err != nil {
		t.Fatal(err)
	}
	evs := c.waitChange(t, "a.md", workspace.Changed)
	for _, e := range evs {
		for _, ch := range e.Changes {
			if ch.Path == "a.md" && ch.Origin != workspace.OriginApp {
				t.Errorf("own save has origin %q", ch.Origin)
			}
		}
		for _, b := range e.Buffers {
			if b.Buffer.Path == "a.md" {
				t.Errorf("own save caused a buffer event %+v", b)
			}
		}
	}

	must(t, os.Remove(filepath.Join(dir, "a.md")))
	ev = c.waitBuffer(t, "a.md", workspace.BufferDeleted)
	if st, ok := bs.Get("a.md"); !ok || !st.Deleted || st.Content != "a saved in mnote\n" {
		t.Errorf("deleted buffer = %+v, %v; want kept and marked", st, ok)
	}
	write(t, filepath.Join(dir, "a.md"), "back\n")
	ev = c.waitBuffer(t, "a.md", workspace.BufferRestored)
	if ev.Buffer.Deleted || ev.Buffer.Content != "back\n" {
		t.Errorf("restored buffer = %+v", ev.Buffer)
	}

	// Deleting a folder marks the buffers inside it.
	must(t, os.RemoveAll(filepath.Join(dir, "notes")))
	c.waitBuffer(t, "notes/b.md", workspace.BufferDeleted)
}

// TestWatchAttributesChangesToTheRunningTurn: a change seen while a turn
// runs carries its id, unless mnote's user made it.
func TestWatchAttributesChangesToTheRunningTurn(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.md"), "a\n")
	w, dir := openDir(t, dir, workspace.Options{StateDir: t.TempDir()})
	c := collect(w)
	must(t, w.Watch())
	must(t, w.Checkpoints().BeginTurn("t1"))
	write(t, filepath.Join(dir, "a.md"), "agent wrote this itself\n")
	evs := c.waitChange(t, "a.md", workspace.Changed)
	for _, e := range evs {
		for _, ch := range e.Changes {
			if ch.Path == "a.md" && (ch.Turn != "t1" || ch.Origin != "") {
				t.Errorf("change = %+v, want turn t1, no origin", ch)
			}
		}
	}
	if _, err := w.Checkpoints().EndTurn("t1"); err != nil {
		t.Fatal(err)
	}
}

// TestWatchLimitError: inotify's ENOSPC and EMFILE become an error that
// says which limit and how to raise it.
func TestWatchLimitError(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EMFILE} {
		err := workspace.WatchErrForTest("/notes", errno)
		if !errors.Is(err, workspace.ErrWatchLimit) || !strings.Contains(err.Error(), "fs.inotify.max_user_") || !strings.Contains(err.Error(), "raise") {
			t.Errorf("%v: %v", errno, err)
		}
	}
}

// TestCloseStops: after Close the workspace refuses work and the watcher
// cannot be restarted; Close twice is fine.
func TestCloseStops(t *testing.T) {
	w, dir, _ := watched(t)
	must(t, w.Close())
	must(t, w.Close())
	if err := w.Watch(); err == nil {
		t.Error("Watch after Close worked")
	}
	if _, err := w.Tree(workspace.TreeOptions{}); err == nil {
		t.Error("Tree after Close worked")
	}
	if err := w.AgentFS(workspace.Hooks{}).WriteTextFile(t.Context(), filepath.Join(dir, "x.md"), "x"); err == nil || exists(filepath.Join(dir, "x.md")) {
		t.Errorf("write after Close: %v", err)
	}
}
