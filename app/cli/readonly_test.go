package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mnote/acp/acptest"
)

// `mnote prompt` with the agent in a read-only mode (plan) refuses its
// writes, even with --approve all: fs/write_text_file and edit_note leave
// the note as it was (edit_note asks nothing), the agent is told why and
// the transcript records the refusals.
func TestPromptReadOnlyModeRefusesWrites(t *testing.T) {
	for _, tc := range []struct {
		name, setup, mode string
		args              []string
	}{
		{"plan", `{"sessionNewResult":{"modes":{"currentModeId":"plan","availableModes":[{"id":"plan","name":"Plan"},{"id":"default","name":"Default"}]}}}`, "plan", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			note := filepath.Join(h.ws, "todo.md")
			const text = "# Todo\n- keep me\n"
			if err := os.WriteFile(note, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"prompt", "--json", "--approve", "all", "--cwd", h.ws, "--agent-cmd", h.agentCmd(tc.setup)}, tc.args...)
			r := h.run(append(args, acptest.Steps(
				`{"writeFile":{"path":`+strconv.Quote(note)+`,"content":"overwritten\n"}}`,
				mcpStep("edit_note", `{"path":"todo.md","content":"# Todo\n"}`)))...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if b, _ := os.ReadFile(note); string(b) != text {
				t.Fatalf("written in a read-only mode: %q", b)
			}
			refused := "refused: the session is in a read-only mode (" + tc.mode + "): the user must choose another mode"
			if got := r.text(); !strings.Contains(got, "write error: -32602 "+refused) || !strings.Contains(got, "mcp edit_note error: "+refused) {
				t.Fatalf("the agent was told %q", got)
			}
			if len(r.ofType("permission")) != 0 {
				t.Errorf("asked about a write the mode refuses: %v", r.ofType("permission"))
			}
			tr := h.transcriptOf(r)
			if n := strings.Count(tr, `"kind":"fs_refused"`); n != 2 || strings.Contains(tr, `"kind":"file_written"`) {
				t.Errorf("the transcript has %d fs_refused records (want 2) or a file_written one", n)
			}
		})
	}
}

// An approval option set to read-only (Reasonix's tool_approval) is the
// agent's "ask before changes": a write the user has not allowed in the
// turn is asked by mnote ("Write todo.md"); refused (--approve none), the
// note stays as it was; allowed (--approve all), it is written. A write
// the agent asked about itself is not asked twice.
func TestPromptReadOnlyApprovalAsksWrites(t *testing.T) {
	setup := `{"sessionNewResult":{"configOptions":[{"id":"tool_approval","name":"Permissions","category":"tool_approval","type":"select",` +
		`"currentValue":"workspace-write","options":[{"value":"read-only","name":"Read only"},{"value":"workspace-write","name":"Workspace access"}]}]}}`
	const text = "# Todo\n- keep me\n"
	for _, tc := range []struct {
		approve, want string
		asked         int
		ownAsk        bool
	}{
		{"none", text, 1, false},
		{"all", "overwritten\n", 1, false},
		{"all", "overwritten\n", 1, true},
	} {
		t.Run(tc.approve+map[bool]string{true: "-asked-by-agent"}[tc.ownAsk], func(t *testing.T) {
			h := newHarness(t)
			note := filepath.Join(h.ws, "todo.md")
			if err := os.WriteFile(note, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			steps := []string{`{"writeFile":{"path":` + strconv.Quote(note) + `,"content":"overwritten\n"}}`}
			if tc.ownAsk {
				steps = append([]string{`{"permission":{"toolCall":{"toolCallId":"gate-1","title":"edit_file ` + note + `","kind":"edit"},` +
					`"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`}, steps...)
			}
			r := h.run("prompt", "--json", "--approve", tc.approve, "--cwd", h.ws, "--agent-cmd", h.agentCmd(setup),
				"--option", "tool_approval=read-only", acptest.Steps(steps...))
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if b, _ := os.ReadFile(note); string(b) != tc.want {
				t.Fatalf("the note is %q, want %q", b, tc.want)
			}
			if n := len(r.ofType("permission")) / 2; n != tc.asked {
				t.Errorf("%d permission requests (asked and decided lines %v), want %d", n, r.ofType("permission"), tc.asked)
			}
			if tc.approve == "none" && !strings.Contains(r.text(), "the user did not allow this write") {
				t.Errorf("the agent was told %q", r.text())
			}
		})
	}
}
