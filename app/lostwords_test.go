package app_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
)

// edit_note reads the note, asks, then writes: what the person saves in
// the note while the dialog waits is merged with the edit, not lost.
func TestEditNoteKeepsWhatThePersonSavesWhileAsked(t *testing.T) {
	t.Parallel()
	h := newMCPHarness(t)
	writeNotes(t, h.ws, map[string]string{"plan.md": planNote})
	note := filepath.Join(h.ws, "plan.md")
	sum := h.create("test")
	h.mustCall("files.open", map[string]any{"path": "plan.md"}, nil)

	from := h.rec.Len()
	turn := h.prompt(sum.ID, acptest.Steps(mcpStep("edit_note", `{"path":"plan.md","heading":"Cache","content":"## Cache\nrewritten by the agent\n"}`)))
	_, req := h.waitPermission(sum.ID, from)
	// While the dialog waits the person adds a line at the end and saves.
	mine := planNote + "周五前给出方案。\n"
	h.mustCall("files.save", map[string]any{"path": "plan.md", "content": mine}, nil)
	h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "allow"}, nil)
	h.waitTurnEnded(sum.ID, from, turn)
	want := "# Plan\nintro\n## Cache\nrewritten by the agent\n## Other\nlast line\n周五前给出方案。\n"
	if b, _ := os.ReadFile(note); string(b) != want {
		t.Fatalf("on disk %q, want the edit and the person's line %q", b, want)
	}
	var st struct {
		Content string `json:"content"`
		Dirty   bool   `json:"dirty"`
	}
	h.mustCall("files.open", map[string]any{"path": "plan.md"}, &st)
	if st.Content != want || st.Dirty {
		t.Fatalf("editor %+v, want %q, clean", st, want)
	}
}

// A write that would drop text the person has not saved is shown with
// its effect (the lines that go), and asked even when an always-allow
// rule for edits is remembered; the turn's checkpoint starts from the
// editor's text, so Revert gives the line back.
func TestLossyWriteIsAskedDespiteARule(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	note := filepath.Join(h.ws, "缓存设计.md")
	saved := "# 缓存设计\n\n- 命中率达到 90%。\n"
	agent := saved + "- 补充监控指标。\n"
	if err := os.WriteFile(note, []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := h.create("test")
	permStep := func(id string) string {
		return `{"permission":{"toolCall":{"toolCallId":"` + id + `","title":"Edit 缓存设计.md","kind":"edit","content":[{"type":"diff","path":` + q(note) + `,"oldText":` + q(saved) + `,"newText":` + q(agent) + `}]},` +
			`"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"always","name":"Always allow","kind":"allow_always"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`
	}

	// An always-allow for edits, chosen while nothing is at stake.
	from := h.rec.Len()
	turn := h.prompt(sum.ID, acptest.Steps(permStep("e0")))
	_, req := h.waitPermission(sum.ID, from)
	if len(req.Effects) != 0 {
		t.Fatalf("effects %+v for a diff that is the note as it is", req.Effects)
	}
	h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "always"}, nil)
	h.waitTurnEnded(sum.ID, from, turn)

	// The person types a line and does not save; the agent reads the note
	// and asks with its diff from the saved file.
	typed := "- 周五前给出方案（我正在写，还没保存）。"
	h.mustCall("files.open", map[string]any{"path": "缓存设计.md"}, nil)
	h.mustCall("files.update", map[string]any{"path": "缓存设计.md", "content": saved + typed}, nil)
	from = h.rec.Len()
	turn = h.prompt(sum.ID, acptest.Steps(`{"readFile":{"path":`+q(note)+`}}`, permStep("e1"), `{"writeFile":{"path":`+q(note)+`,"content":`+q(agent)+`}}`))
	_, req = h.waitPermission(sum.ID, from)
	if len(req.Effects) != 1 {
		t.Fatalf("effects %+v, want the note's", req.Effects)
	}
	fx := req.Effects[0]
	if fx.Path != "缓存设计.md" || fx.AgentPath != note || fx.Current != saved+typed || !fx.Unsaved || !slices.Equal(fx.Lost, []string{typed}) {
		t.Fatalf("effect %+v, want the typed line lost from the unsaved note", fx)
	}
	h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "allow"}, nil)
	h.waitTurnEnded(sum.ID, from, turn)
	if b, _ := os.ReadFile(note); string(b) != agent {
		t.Fatalf("on disk %q", b)
	}

	var turns []app.TurnChanges
	h.mustCall("checkpoints.list", map[string]any{"sessionId": sum.ID}, &turns)
	last := turns[len(turns)-1]
	var diffs []struct{ Path, Diff string }
	h.mustCall("checkpoints.changes", map[string]any{"sessionId": sum.ID, "turn": last.Turn}, &diffs)
	if len(diffs) != 1 || !strings.Contains(diffs[0].Diff, "-"+typed) {
		t.Fatalf("the turn's changes %+v do not show the typed line removed", diffs)
	}
	h.mustCall("checkpoints.revert", map[string]any{"sessionId": sum.ID, "turn": last.Turn}, nil)
	if b, _ := os.ReadFile(note); string(b) != saved+typed {
		t.Fatalf("after Revert %q, want the person's text", b)
	}
}
