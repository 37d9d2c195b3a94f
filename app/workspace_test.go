package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
	"mnote/internal/testenv"
)

// turnDone prompts with steps and waits for the turn's end.
func (h *harness) turnDone(id string, steps ...string) app.TurnPayload {
	h.t.Helper()
	from := h.rec.Len()
	turn := h.prompt(id, acptest.Steps(steps...))
	return h.waitTurnEnded(id, from, turn)
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

// The open folder is the workspace: the agent's reads see unsaved edits,
// its writes reach the disk, the page hears of them, the transcript keeps
// what they replaced, paths outside are refused and recorded, and each
// turn's changes can be seen and reverted.
func TestWorkspaceAgentEdits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	note := filepath.Join(h.ws, "notes", "todo.md")
	if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte("# Todo\n- milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var info app.WorkspaceInfo
	h.mustCall("workspace.get", struct{}{}, &info)
	if real, _ := filepath.EvalSymlinks(h.ws); info.Dir != real || info.CanPick {
		t.Fatalf("workspace.get: %+v", info)
	}

	// An unsaved edit in the editor is what the agent reads.
	h.mustCall("files.open", map[string]any{"path": "notes/todo.md"}, nil)
	h.mustCall("files.update", map[string]any{"path": "notes/todo.md", "content": "# Todo\n- milk\n- eggs (unsaved)\n"}, nil)
	sum := h.create("test")
	abs := filepath.Join(info.Dir, "notes", "todo.md")
	tp := h.turnDone(sum.ID, `{"readFile":{"path":`+q(abs)+`}}`)
	if tp.StopReason != "end_turn" || !strings.Contains(strings.Join(h.answers(sum.ID), "\n"), "eggs (unsaved)") {
		t.Fatalf("the agent read %q (%+v)", h.answers(sum.ID), tp)
	}

	// A write: on disk, in the open buffer, told to the page as the agent's.
	from := h.rec.Len()
	h.turnDone(sum.ID, `{"writeFile":{"path":`+q(abs)+`,"content":"# Todo\n- oat milk\n"}}`)
	if b, _ := os.ReadFile(note); string(b) != "# Todo\n- oat milk\n" {
		t.Fatalf("on disk: %q", b)
	}
	if _, _, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool {
		return ev.Name == app.EventWorkspaceChanged && strings.Contains(string(ev.Data), `"written"`) && strings.Contains(string(ev.Data), "oat milk")
	}); err != nil {
		t.Fatalf("no workspace:changed for the agent's write: %v", err)
	}
	// Refused: a path outside the folder.
	h.turnDone(sum.ID, `{"readFile":{"path":"/etc/passwd"}}`, `{"writeFile":{"path":`+q(filepath.Join(info.Dir, "..", "escape.md"))+`,"content":"x"}}`)
	if got := strings.Join(h.answers(sum.ID), "\n"); !strings.Contains(got, "read error") || !strings.Contains(got, "write error") {
		t.Fatalf("outside paths: %q", got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(info.Dir), "escape.md")); err == nil {
		t.Fatal("a write outside the workspace happened")
	}
	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind":"file_written"`, `"before":"# Todo\n- milk\n"`, `"kind":"fs_refused"`, `/etc/passwd`} {
		if !strings.Contains(string(tr), want) {
			t.Errorf("the transcript lacks %s", want)
		}
	}

	// The turn that wrote (turn 2) is a checkpoint: its diff, then revert.
	var turns []app.TurnChanges
	h.mustCall("checkpoints.list", map[string]any{"sessionId": sum.ID}, &turns)
	if len(turns) != 1 || turns[0].Turn != 2 || len(turns[0].Files) != 1 || turns[0].Files[0].Path != "notes/todo.md" {
		t.Fatalf("checkpoints: %+v", turns)
	}
	var diffs []struct{ Path, Op, Diff string }
	h.mustCall("checkpoints.changes", map[string]any{"sessionId": sum.ID, "turn": 2}, &diffs)
	if len(diffs) != 1 || !strings.Contains(diffs[0].Diff, "-- milk") || !strings.Contains(diffs[0].Diff, "+- oat milk") {
		t.Fatalf("changes: %+v", diffs)
	}
	// The write took the person's unsaved line out of the editor: the
	// turn starts from the editor's text, so the revert gives it back.
	h.mustCall("checkpoints.revert", map[string]any{"sessionId": sum.ID, "turn": 2}, nil)
	if b, _ := os.ReadFile(note); string(b) != "# Todo\n- milk\n- eggs (unsaved)\n" {
		t.Fatalf("after revert: %q", b)
	}
	if e := h.call("checkpoints.revert", map[string]any{"sessionId": sum.ID, "turn": 2}, nil); e == nil {
		t.Fatal("a turn reverted twice")
	}
}

// A revert refuses a file changed since the turn and writes nothing.
func TestWorkspaceRevertConflict(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, b := filepath.Join(h.ws, "a.md"), filepath.Join(h.ws, "b.md")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("old "+filepath.Base(p)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := h.create("test")
	real, _ := filepath.EvalSymlinks(h.ws)
	h.turnDone(sum.ID,
		`{"writeFile":{"path":`+q(filepath.Join(real, "a.md"))+`,"content":"agent a\n"}}`,
		`{"writeFile":{"path":`+q(filepath.Join(real, "b.md"))+`,"content":"agent b\n"}}`)
	if err := os.WriteFile(b, []byte("mine since\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := h.call("checkpoints.revert", map[string]any{"sessionId": sum.ID, "turn": 1}, nil)
	if codeOf(e) != app.CodeConflict || !strings.Contains(e.Message, "b.md") || !strings.Contains(e.Details, "mine since") {
		t.Fatalf("revert over a later change: %+v", e)
	}
	for p, want := range map[string]string{a: "agent a\n", b: "mine since\n"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Fatalf("%s after a refused revert: %q", p, got)
		}
	}
}

// The open file and @-mentions go with the prompt: embedded resources for
// an agent that takes them (the test agent does), with the unsaved text.
func TestPromptContext(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.ws, "plan.md"), []byte("saved plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.ws, "ideas.md"), []byte("idea one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.mustCall("files.open", map[string]any{"path": "plan.md"}, nil)
	h.mustCall("files.update", map[string]any{"path": "plan.md", "content": "unsaved plan\nline two\n"}, nil)
	sum := h.create("test")
	from := h.rec.Len()
	var r app.TurnStarted
	h.mustCall("sessions.prompt", map[string]any{
		"id": sum.ID, "text": "look at these",
		"context":  map[string]any{"path": "plan.md", "selection": map[string]any{"text": "line two", "fromLine": 2, "toLine": 2}},
		"mentions": []string{"@ideas.md", "plan.md"},
	}, &r)
	h.waitTurnEnded(sum.ID, from, r.Turn)
	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	var sent string
	for _, line := range strings.Split(string(tr), "\n") {
		if strings.Contains(line, `"kind":"session/prompt"`) && strings.Contains(line, `"dir":"out"`) {
			sent = line
		}
	}
	for _, want := range []string{`"type":"resource"`, `unsaved plan`, `idea one`, `Selected in plan.md (lines 2–2)`, `"mimeType":"text/markdown"`} {
		if !strings.Contains(sent, want) {
			t.Errorf("the prompt sent lacks %s:\n%s", want, sent)
		}
	}
	if n := strings.Count(sent, `"type":"resource"`); n != 2 {
		t.Errorf("%d resources sent, want 2 (plan.md once)", n)
	}
	// A path outside the workspace is refused before anything is sent.
	e := h.call("sessions.prompt", map[string]any{"id": sum.ID, "text": "x", "mentions": []string{"../secret.md"}}, nil)
	if codeOf(e) != app.CodeBadRequest {
		t.Fatalf("mention outside: %v", e)
	}
	if e := h.call("sessions.prompt", map[string]any{"id": sum.ID, "text": "x", "mentions": []string{"missing.md"}}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("missing mention: %v", e)
	}
	_ = strconv.Itoa
}

// Tree, find and the file operations of the notes side, with undo.
func TestWorkspaceFiles(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.mustCall("files.create", map[string]any{"path": "journal", "dir": true}, nil)
	h.mustCall("files.create", map[string]any{"path": "journal/monday.md"}, nil)
	h.mustCall("files.save", map[string]any{"path": "journal/monday.md", "content": "rainy\n"}, nil)
	if b, _ := os.ReadFile(filepath.Join(h.ws, "journal", "monday.md")); string(b) != "rainy\n" {
		t.Fatalf("saved: %q", b)
	}
	var tree struct {
		Children []struct {
			Name     string
			Dir      bool
			Children []struct{ Name, Path string }
		}
	}
	h.mustCall("workspace.tree", map[string]any{}, &tree)
	if len(tree.Children) != 1 || !tree.Children[0].Dir || len(tree.Children[0].Children) != 1 || tree.Children[0].Children[0].Path != "journal/monday.md" {
		t.Fatalf("tree: %+v", tree)
	}
	var found []struct{ Path string }
	h.mustCall("workspace.find", map[string]any{"query": "mon"}, &found)
	if len(found) == 0 || found[0].Path != "journal/monday.md" {
		t.Fatalf("find: %+v", found)
	}
	h.mustCall("files.rename", map[string]any{"from": "journal/monday.md", "to": "journal/tuesday.md"}, nil)
	var del struct {
		Trash json.RawMessage `json:"trash"`
	}
	h.mustCall("files.delete", map[string]any{"path": "journal/tuesday.md"}, &del)
	if _, err := os.Stat(filepath.Join(h.ws, "journal", "tuesday.md")); !os.IsNotExist(err) {
		t.Fatalf("deleted file still there: %v", err)
	}
	h.mustCall("files.restore", map[string]any{"trash": del.Trash}, nil)
	if b, _ := os.ReadFile(filepath.Join(h.ws, "journal", "tuesday.md")); string(b) != "rainy\n" {
		t.Fatalf("restored: %q", b)
	}
	for _, bad := range []map[string]any{{"path": "../x.md"}, {"path": "/etc/passwd"}} {
		if e := h.call("files.open", bad, nil); codeOf(e) != app.CodeBadRequest {
			t.Errorf("files.open %v: %v", bad, e)
		}
	}
	if e := h.call("workspace.open", map[string]any{"dir": "relative/dir"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Errorf("relative workspace: %v", e)
	}
	if e := h.call("workspace.pick", struct{}{}, nil); codeOf(e) != app.CodeBadRequest {
		t.Errorf("pick without a dialog: %v", e)
	}
}

// A session in a folder that is not the open workspace gets the same
// confinement: a FIFO is refused at once (a plain open would hang).
func TestOtherFolderConfined(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	other := t.TempDir()
	fifo := filepath.Join(other, "pipe.md")
	if err := syscallMkfifo(fifo); err != nil {
		testenv.SkipOrFail(t, "no FIFOs here: "+err.Error())
	}
	var sum app.SessionSummary
	h.mustCall("sessions.create", map[string]any{"agent": "test", "cwd": other}, &sum)
	real, _ := filepath.EvalSymlinks(other)
	h.turnDone(sum.ID, `{"readFile":{"path":`+q(filepath.Join(real, "pipe.md"))+`}}`)
	if got := strings.Join(h.answers(sum.ID), "\n"); !strings.Contains(got, "read error") {
		t.Fatalf("FIFO read: %q", got)
	}
}
