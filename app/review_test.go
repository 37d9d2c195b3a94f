package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/app"
	"mnote/workspace"
)

// Issue 13 through the bridge, with the test agent: the person's unsaved
// line survives the agent's write (merged, told to the page as "merged",
// saved with the agent's edit), and the turn's hunk is rejected, undone
// and kept through checkpoints.review, each recorded in the transcript;
// a revert of the turn is undone too.
func TestAgentWriteKeepsUnsavedTextAndHunkReview(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	note := filepath.Join(h.ws, "n.md")
	if err := os.WriteFile(note, []byte("# N\none\ntwo\nthree\nfour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var info app.WorkspaceInfo
	h.mustCall("workspace.get", struct{}{}, &info)
	abs := filepath.Join(info.Dir, "n.md")
	h.mustCall("files.open", map[string]any{"path": "n.md"}, nil)
	h.mustCall("files.update", map[string]any{"path": "n.md", "content": "# N\none\ntwo\nthree\nfour\ntyped, unsaved\n"}, nil)

	sum := h.create("test")
	from := h.rec.Len()
	h.turnDone(sum.ID, `{"writeFile":{"path":`+q(abs)+`,"content":"# N by the agent\none\ntwo\nthree\nfour\n"}}`)
	if b, _ := os.ReadFile(note); string(b) != "# N by the agent\none\ntwo\nthree\nfour\n" {
		t.Fatalf("on disk: %q, want the agent's write alone", b)
	}
	if _, _, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool {
		return ev.Name == app.EventWorkspaceChanged && strings.Contains(string(ev.Data), `"merged"`)
	}); err != nil {
		t.Fatalf("no merged buffer event: %v", err)
	}
	var st workspace.BufferState
	h.mustCall("files.open", map[string]any{"path": "n.md"}, &st)
	merged := "# N by the agent\none\ntwo\nthree\nfour\ntyped, unsaved\n"
	if st.Content != merged || !st.Dirty {
		t.Fatalf("buffer %+v, want both, unsaved", st)
	}
	h.mustCall("files.save", map[string]any{"path": "n.md", "content": st.Content}, nil)
	if b, _ := os.ReadFile(note); string(b) != merged {
		t.Fatalf("saved: %q", b)
	}

	// The turn's hunk is the agent's heading only (the saved line is the person's).
	var fh workspace.FileHunks
	h.mustCall("checkpoints.hunks", map[string]any{"sessionId": sum.ID, "turn": 1, "path": "n.md"}, &fh)
	if len(fh.Hunks) != 1 || fh.Hunks[0].After != "# N by the agent\n" {
		t.Fatalf("hunks: %+v", fh.Hunks)
	}
	h.mustCall("checkpoints.review", map[string]any{"sessionId": sum.ID, "turn": 1, "path": "n.md", "action": "rejected", "hunks": fh.Hunks}, &fh)
	if b, _ := os.ReadFile(note); string(b) != "# N\none\ntwo\nthree\nfour\ntyped, unsaved\n" {
		t.Fatalf("after reject: %q", b)
	}
	h.mustCall("files.open", map[string]any{"path": "n.md"}, &st)
	if st.Content != "# N\none\ntwo\nthree\nfour\ntyped, unsaved\n" || st.Dirty {
		t.Errorf("the open buffer did not follow the reject: %+v", st)
	}
	undo := []workspace.Hunk{fh.Reviews[len(fh.Reviews)-1].Hunk}
	h.mustCall("checkpoints.review", map[string]any{"sessionId": sum.ID, "turn": 1, "path": "n.md", "action": "restored", "hunks": undo}, &fh)
	if b, _ := os.ReadFile(note); string(b) != merged {
		t.Fatalf("after undo: %q", b)
	}
	h.mustCall("checkpoints.review", map[string]any{"sessionId": sum.ID, "turn": 1, "path": "n.md", "action": "kept", "hunks": fh.Hunks}, &fh)
	if e := h.call("checkpoints.review", map[string]any{"sessionId": sum.ID, "turn": 1, "path": "n.md", "action": "rejected", "hunks": []workspace.Hunk{{Start: 1, Before: "x\n", After: "not there\n"}}}, nil); e == nil || e.Code != app.CodeConflict {
		t.Errorf("a stale reject: %+v, want conflict", e)
	}

	// The checkpoint holds the turn's result, not the person's saved line:
	// a revert of the turn still meets that line and writes nothing.
	if e := h.call("checkpoints.revert", map[string]any{"sessionId": sum.ID, "turn": 1}, nil); e == nil || e.Code != app.CodeConflict {
		t.Fatalf("revert over the person's saved line: %+v, want conflict", e)
	}
	// Without it, revert the whole turn, then undo the revert.
	h.mustCall("files.save", map[string]any{"path": "n.md", "content": "# N by the agent\none\ntwo\nthree\nfour\n"}, nil)
	h.mustCall("checkpoints.revert", map[string]any{"sessionId": sum.ID, "turn": 1}, nil)
	if b, _ := os.ReadFile(note); string(b) != "# N\none\ntwo\nthree\nfour\n" {
		t.Fatalf("after revert: %q", b)
	}
	h.mustCall("checkpoints.undoRevert", map[string]any{"sessionId": sum.ID, "turn": 1}, nil)
	if b, _ := os.ReadFile(note); string(b) != "# N by the agent\none\ntwo\nthree\nfour\n" {
		t.Fatalf("after undo revert: %q", b)
	}

	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"action":"rejected"`, `"action":"restored"`, `"action":"kept"`, `"action":"revert_undone"`} {
		if !strings.Contains(string(tr), `"kind":"changes_reviewed"`) || !strings.Contains(string(tr), want) {
			t.Errorf("the transcript lacks a changes_reviewed record with %s", want)
		}
	}
}

// An agent's write outside the notes folder is refused (nothing written)
// and told to the page as fs:refused with outside set; a link out from
// inside is a refusal inside the folder.
func TestAgentWriteOutsideIsRefusedVisibly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var info app.WorkspaceInfo
	h.mustCall("workspace.get", struct{}{}, &info)
	outside := filepath.Join(filepath.Dir(info.Dir), "escape.md")
	if err := os.Symlink(filepath.Dir(info.Dir), filepath.Join(info.Dir, "up")); err != nil {
		t.Fatal(err)
	}
	sum := h.create("test")
	from := h.rec.Len()
	h.turnDone(sum.ID, `{"writeFile":{"path":`+q(outside)+`,"content":"x"}}`, `{"writeFile":{"path":`+q(filepath.Join(info.Dir, "up", "escape.md"))+`,"content":"x"}}`)
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("a write outside the folder happened")
	}
	for _, want := range []struct {
		path    string
		outside bool
	}{{outside, true}, {filepath.Join(info.Dir, "up", "escape.md"), false}} {
		if _, _, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool {
			if ev.Name != app.EventFSRefused {
				return false
			}
			var p app.FSRefusedPayload
			return json.Unmarshal(ev.Data, &p) == nil && p.SessionID == sum.ID && p.Path == want.path && p.Outside == want.outside && p.Reason != ""
		}); err != nil {
			t.Errorf("no fs:refused for %s (outside %v): %v", want.path, want.outside, err)
		}
	}
}
