package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mnote/workspace"
)

// TestAgentReadAnswersFromDirtyBuffer: an agent sees unsaved edits, with
// line and limit applied; a clean buffer or a closed file is read from
// disk.
func TestAgentReadAnswersFromDirtyBuffer(t *testing.T) {
	w, dir := open(t, workspace.Options{})
	p := filepath.Join(dir, "n.md")
	write(t, p, "disk 1\ndisk 2\ndisk 3\n")
	fsys := w.AgentFS(workspace.Hooks{})
	bs := w.Buffers()
	if _, err := bs.Open("n.md"); err != nil {
		t.Fatal(err)
	}
	readAt := func(line, limit *int) string {
		t.Helper()
		s, err := fsys.ReadTextFile(t.Context(), p, line, limit)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got := readAt(nil, nil); got != "disk 1\ndisk 2\ndisk 3\n" {
		t.Errorf("clean buffer read %q, want the disk", got)
	}
	if _, err := bs.Update("n.md", "mine 1\nmine 2\nmine 3\nmine 4", true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line, limit *int
		want        string
	}{
		{nil, nil, "mine 1\nmine 2\nmine 3\nmine 4"},
		{ptr(2), nil, "mine 2\nmine 3\nmine 4"},
		{ptr(2), ptr(2), "mine 2\nmine 3\n"},
		{nil, ptr(1), "mine 1\n"},
		{ptr(4), ptr(10), "mine 4"},
		{ptr(9), nil, ""},
		{ptr(1), ptr(0), ""},
	} {
		if got := readAt(c.line, c.limit); got != c.want {
			t.Errorf("line %v limit %v: %q, want %q", deref(c.line), deref(c.limit), got, c.want)
		}
	}
	// The same on disk (no buffer): line and limit apply too.
	bs.Close("n.md")
	if got := readAt(ptr(3), ptr(1)); got != "disk 3\n" {
		t.Errorf("disk read line 3 = %q", got)
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestAgentWriteAtomicKeepsModeUpdatesBufferCallsHook covers the write
// path: mode kept, new files 0644 less the umask, parents created, the
// open buffer updated at once (with an event), OnWrite told before and
// after, no temporary file left.
func TestAgentWriteAtomicKeepsModeUpdatesBufferCallsHook(t *testing.T) {
	w, dir := open(t, workspace.Options{})
	p := filepath.Join(dir, "keep.md")
	write(t, p, "old\n")
	must(t, os.Chmod(p, 0o600))
	st0, _ := os.Stat(p)
	type call struct {
		rel           string
		before, after string
		existed       bool
	}
	var calls []call
	fsys := w.AgentFS(workspace.Hooks{OnWrite: func(rel string, before, after []byte, existed bool) {
		calls = append(calls, call{rel, string(before), string(after), existed})
	}})
	ev := collect(w)
	if _, err := w.Buffers().Open("keep.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Buffers().Update("keep.md", "unsaved\n", true); err != nil {
		t.Fatal(err)
	}
	// The agent read the unsaved text and replaced it: the buffer takes
	// its write (unsaved text it did not read is merged, or conflicts:
	// agentmerge_test.go).
	if s, err := fsys.ReadTextFile(t.Context(), p, nil, nil); err != nil || s != "unsaved\n" {
		t.Fatalf("agent read %q, %v", s, err)
	}
	must(t, fsys.WriteTextFile(t.Context(), p, "new\n"))
	if got := read(t, p); got != "new\n" {
		t.Errorf("content %q", got)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
	}
	if sameInode(st0, st) {
		t.Error("the file was written in place, not replaced by a rename")
	}
	b, _ := w.Buffers().Get("keep.md")
	if b.Content != "new\n" || b.Dirty {
		t.Errorf("buffer after agent write = %+v, want the new content, clean", b)
	}
	ev.waitBuffer(t, "keep.md", workspace.BufferWritten)

	// A new file in new folders.
	old := syscall.Umask(0o027)
	np := filepath.Join(dir, "a", "b", "fresh.md")
	err := fsys.WriteTextFile(t.Context(), np, "fresh\n")
	syscall.Umask(old)
	must(t, err)
	st, err = os.Stat(np)
	must(t, err)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("new file mode %v, want 0644 less the umask 027 = 0640", st.Mode().Perm())
	}
	want := []call{{"keep.md", "old\n", "new\n", true}, {"a/b/fresh.md", "", "fresh\n", false}}
	if len(calls) != len(want) {
		t.Fatalf("OnWrite calls %+v, want %+v", calls, want)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Errorf("OnWrite call %d = %+v, want %+v", i, calls[i], want[i])
		}
	}
	assertNoTemp(t, dir)
}

func sameInode(a, b os.FileInfo) bool {
	sa, _ := a.Sys().(*syscall.Stat_t)
	sb, _ := b.Sys().(*syscall.Stat_t)
	return sa != nil && sb != nil && sa.Ino == sb.Ino
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".mnote-tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestBufferSaveAndConflicts: Save writes and cleans; a change on disk the
// buffer has not seen makes Save refuse with a conflict; KeepMine then
// Save overwrites, TakeTheirs takes the disk's content; Diff shows both.
func TestBufferSaveAndConflicts(t *testing.T) {
	w, dir := open(t, workspace.Options{})
	p := filepath.Join(dir, "c.md")
	write(t, p, "base\n")
	bs := w.Buffers()
	st, err := bs.Open("c.md")
	if err != nil || st.Content != "base\n" || st.Dirty {
		t.Fatalf("open = %+v, %v", st, err)
	}
	if st, _ := bs.Update("c.md", "base\n", true); st.Dirty {
		t.Error("content equal to the disk's reported dirty")
	}
	if _, err := bs.Update("c.md", "mine\n", true); err != nil {
		t.Fatal(err)
	}
	st, err = bs.Save("c.md")
	if err != nil || st.Dirty || read(t, p) != "mine\n" {
		t.Fatalf("save = %+v, %v; disk %q", st, err, read(t, p))
	}

	// Someone else writes; the buffer is edited before the watcher (off
	// here) could tell it: Save must not overwrite.
	write(t, p, "theirs\n")
	bs.Update("c.md", "mine 2\n", true)
	st, err = bs.Save("c.md")
	if !errors.Is(err, workspace.ErrConflict) || !st.Conflict {
		t.Fatalf("save over an unseen change = %+v, %v; want a conflict", st, err)
	}
	if read(t, p) != "theirs\n" {
		t.Fatal("the conflicting save overwrote the disk")
	}
	if s, _ := bs.Theirs("c.md"); s != "theirs\n" {
		t.Errorf("Theirs = %q", s)
	}
	d, err := bs.Diff("c.md")
	if err != nil || !strings.Contains(d, "-theirs\n") || !strings.Contains(d, "+mine 2\n") {
		t.Errorf("Diff = %q, %v", d, err)
	}
	if _, err := bs.Save("c.md"); !errors.Is(err, workspace.ErrConflict) {
		t.Errorf("save while the conflict is open = %v", err)
	}
	st, _ = bs.KeepMine("c.md")
	if st.Conflict || !st.Dirty || st.Content != "mine 2\n" {
		t.Errorf("keep mine = %+v", st)
	}
	if _, err := bs.Save("c.md"); err != nil || read(t, p) != "mine 2\n" {
		t.Fatalf("save after keep mine: %v, disk %q", err, read(t, p))
	}

	write(t, p, "theirs 2\n")
	bs.Update("c.md", "mine 3\n", true)
	if _, err := bs.Save("c.md"); !errors.Is(err, workspace.ErrConflict) {
		t.Fatalf("want a conflict, got %v", err)
	}
	st, _ = bs.TakeTheirs("c.md")
	if st.Conflict || st.Dirty || st.Content != "theirs 2\n" {
		t.Errorf("take theirs = %+v", st)
	}

	// Saving a buffer whose file was deleted creates it again.
	must(t, os.Remove(p))
	bs.Update("c.md", "again\n", true)
	if _, err := bs.Save("c.md"); err != nil || read(t, p) != "again\n" {
		t.Errorf("save of a deleted file: %v", err)
	}
	if got := bs.List(); len(got) != 1 || got[0].Path != "c.md" {
		t.Errorf("List = %+v", got)
	}
	bs.Close("c.md")
	if _, ok := bs.Get("c.md"); ok {
		t.Error("closed buffer still there")
	}
	if _, err := bs.Update("c.md", "x", true); err == nil {
		t.Error("update of a closed buffer worked")
	}
}
