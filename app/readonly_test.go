package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
)

// With the agent in a read-only mode the user chose (plan), every write is
// refused the same way: fs/write_text_file and the notes tools' edit_note
// (not even asked) leave the note as it was, the agent is told why, the
// transcript records the refusals (fs_refused) and the page hears of them
// (fs:refused with the mode). Once the user picks another mode, the same
// write goes through.
func TestReadOnlyModeRefusesWrites(t *testing.T) {
	t.Parallel()
	h := newMCPHarness(t)
	h.saveAgent("planner", append([]string{"--state", h.state}, acptest.Scenario(`{"sessionNewResult":{"modes":{"currentModeId":"plan",`+
		`"availableModes":[{"id":"plan","name":"Plan"},{"id":"default","name":"Default"}]}}}`)...)...)
	writeNotes(t, h.ws, map[string]string{"plan.md": planNote})
	note := filepath.Join(h.ws, "plan.md")
	sum := h.create("planner")

	from := h.rec.Len()
	write := `{"writeFile":{"path":` + q(note) + `,"content":"overwritten\n"}}`
	h.turnDone(sum.ID, write, mcpStep("edit_note", `{"path":"plan.md","heading":"Cache","content":"## Cache\nrewritten\n"}`))
	if b, _ := os.ReadFile(note); string(b) != planNote {
		t.Fatalf("written in plan mode: %q", b)
	}
	const refused = "refused: the session is in a read-only mode (plan): the user must choose another mode"
	got := strings.Join(h.answers(sum.ID), "\n")
	if !strings.Contains(got, "write error: -32602 "+refused) || !strings.Contains(got, "mcp edit_note error: "+refused) {
		t.Fatalf("the agent was told %q", got)
	}
	for _, te := range h.threadEvents(sum.ID) {
		if te.Type == app.EvPermission {
			t.Fatalf("the user was asked about a write the mode refuses: %s", te.Payload)
		}
	}
	var told int
	for _, ev := range h.rec.Events()[from:] {
		var p app.FSRefusedPayload
		if ev.Name == app.EventFSRefused && json.Unmarshal(ev.Data, &p) == nil && p.SessionID == sum.ID && p.Path == note && p.ReadOnlyMode == "plan" {
			told++
		}
	}
	if told != 2 {
		t.Errorf("the page heard of %d refusals, want 2", told)
	}
	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(tr), `"kind":"fs_refused"`); n != 2 || strings.Contains(string(tr), `"kind":"file_written"`) {
		t.Errorf("the transcript has %d fs_refused records (want 2) or a file_written one", n)
	}

	from = h.rec.Len()
	h.mustCall("sessions.setMode", map[string]any{"id": sum.ID, "modeId": "default"}, nil)
	h.waitEvent(sum.ID, from, app.EvMeta, func(p json.RawMessage) bool { return strings.Contains(string(p), `"currentModeId":"default"`) })
	h.turnDone(sum.ID, write)
	if b, _ := os.ReadFile(note); string(b) != "overwritten\n" {
		t.Fatalf("not written in the default mode: %q", b)
	}
}
