package store

import (
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"
)

// The trash lists its sessions with what their transcripts say, the most
// recently deleted first, each with its deletion time; a purged session
// is gone from the disk.
func TestListAndPurgeTrash(t *testing.T) {
	e := newEnv(t)
	v := newVocab(5, 1000)
	if got, err := ListTrash(e.p); err != nil || len(got) != 0 {
		t.Fatalf("empty trash: %+v %v", got, err)
	}
	e.liveSession(t, "first", "First one", "/ws", 2, v)
	e.liveSession(t, "second", "Second one", "/ws", 1, v)
	e.liveSession(t, "kept", "Kept", "/ws", 1, v)
	// An old modification time: deleting must set it to now.
	old := time.Now().Add(-48 * time.Hour)
	for _, id := range []string{"first", "second"} {
		if err := os.Chtimes(e.p.TranscriptPath(id), old, old); err != nil {
			t.Fatal(err)
		}
	}
	before := time.Now().UnixMilli()
	if err := MoveToTrash(e.p, "first"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if err := MoveToTrash(e.p, "second"); err != nil {
		t.Fatal(err)
	}
	got, err := ListTrash(e.p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Info.ID != "second" || got[1].Info.ID != "first" {
		t.Fatalf("trash order: %+v", got)
	}
	for _, s := range got {
		if s.DeletedMs < before-1000 || s.DeletedMs > time.Now().UnixMilli() {
			t.Errorf("%s deleted at %d, not now (%d)", s.Info.ID, s.DeletedMs, before)
		}
	}
	f := got[1].Info
	if f.Title != "First one" || f.Workspace != "/ws" || f.Turns != 2 || f.Runtime != "claude-code" || f.UpdatedMs == 0 || f.CreatedMs == 0 {
		t.Errorf("info of first: %+v", f)
	}
	if err := PurgeFromTrash(e.p, "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.p.TrashPath("first")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("purged file still there: %v", err)
	}
	if err := PurgeFromTrash(e.p, "first"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("purge twice: %v", err)
	}
	for _, bad := range []string{"", "..", "a/b", "../transcripts/kept"} {
		if err := PurgeFromTrash(e.p, bad); err == nil {
			t.Errorf("id %q accepted", bad)
		}
	}
	if _, err := os.Stat(e.p.TranscriptPath("kept")); err != nil {
		t.Errorf("a session not in the trash was touched: %v", err)
	}
	if got, err := ListTrash(e.p); err != nil || len(got) != 1 || got[0].Info.ID != "second" {
		t.Fatalf("after purge: %+v %v", got, err)
	}
}
