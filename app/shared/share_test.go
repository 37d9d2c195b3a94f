package shared_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app/shared"
	"mnote/cloudsync/cloudsynctest"
	"mnote/thread"
)

// What members see beyond the projection's minimum is the actor's choice
// per turn, sent with the prompt: a turn with thoughts and tool summaries
// chosen puts its thought into the log as another member reads it, and a
// summary of its tool call that names the files it touched — cleaned by
// the redactor (a key in a file's name hidden; a file outside the folder
// by its name, not its path) and holding none of the call's input or
// output; a turn without the choice puts neither. The actor's own
// machine links each turn to its run, and keeps the turn in full.
func TestTheActorChoosesWhatMembersSee(t *testing.T) {
	const (
		thoughtShared = "思考-SHARED-1a2b"
		thoughtKept   = "思考-KEPT-3c4d"
		inputCanary   = "CANARY-toolinput-77e1"
		outputCanary  = "CANARY-tooloutput-5c0f"
		diffCanary    = "CANARY-difftext-90aa"
		secret        = "agentkey-CANARY-secret-4411"
	)
	cp := cloudsynctest.New(t)
	ada := newHome(t, cp.URL, cp.AddUser("ada"))
	bob := newHome(t, cp.URL, cp.AddUser("bob"))
	bob.must("shared.devices", struct{}{}, nil) // bob's device, before he is added

	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		home = t.TempDir()
	}
	outside := filepath.Join(home, "elsewhere-private", "plan-outside.md")
	inside := filepath.Join(ada.ws, "notes", secret+".md")
	step := func(thought, callID string) string {
		tool, _ := json.Marshal(map[string]any{"toolCall": map[string]any{
			"toolCallId": callID, "title": "Edit the plan", "kind": "edit", "status": "completed",
			"rawInput":  map[string]any{"path": inside, "text": inputCanary},
			"rawOutput": map[string]any{"out": outputCanary},
			"locations": []map[string]any{{"path": inside}, {"path": outside}},
			"content": []map[string]any{
				{"type": "diff", "path": inside, "oldText": "a\nb\n", "newText": "a\n" + diffCanary + "\nc\n"},
				{"type": "content", "content": map[string]any{"type": "text", "text": outputCanary}},
			},
		}})
		return acptest.Steps(`{"thought":"`+thought+`"}`, string(tool), `{"message":"done"}`)
	}
	scenario := `{"turns":[` + step(thoughtShared, "t1") + `,` + step(thoughtKept, "t2") + `]}`
	ada.must("agents.saveCustom", map[string]any{"name": "scripted", "command": acptest.TestAgent(t),
		"args": acptest.Scenario(scenario), "env": map[string]string{"SCRIPTED_API_KEY": secret}}, nil)

	var sum struct{ ID string }
	ada.must("sessions.create", map[string]any{"agent": "scripted"}, &sum)
	id := sum.ID
	ada.must("shared.share", map[string]any{"id": id}, nil)
	ada.must("shared.add", map[string]any{"id": id, "account": "bob", "role": "viewer"}, nil)

	if p := ada.promptWith(map[string]any{"id": id, "text": "plan it", "share": map[string]any{"thoughts": true, "toolSummaries": true}}); p["stopReason"] != "end_turn" {
		t.Fatalf("the turn with the choice: %v", p)
	}
	if p := ada.promptWith(map[string]any{"id": id, "text": "plan it again", "share": map[string]any{}}); p["stopReason"] != "end_turn" {
		t.Fatalf("the turn without: %v", p)
	}

	var st struct {
		Entries []shared.Entry
		Runs    map[string]int
	}
	bob.must("shared.state", map[string]any{"id": id}, &st)
	var thoughts []string
	summaries := map[int]string{} // by the run's turn
	tools := 0
	for _, e := range st.Entries {
		switch {
		case e.Unreadable != "":
			t.Fatalf("bob could not open %+v", e)
		case e.Kind == "thought":
			thoughts = append(thoughts, e.Entry.Text)
		case e.Kind == "tool" && e.Entry.Tool != nil:
			tools++
			summaries[e.Entry.Turn] = e.Entry.Tool.Summary
		}
	}
	if strings.Join(thoughts, "") != thoughtShared {
		t.Errorf("bob read the thoughts %q, want only the one ada chose to share", thoughts)
	}
	if tools == 0 || len(summaries) != 2 {
		t.Fatalf("bob's tool entries by turn: %v", summaries)
	}
	if got, want := summaries[1], "notes/[redacted].md +2 −1, plan-outside.md"; got != want {
		t.Errorf("the summary ada chose to share: %q, want %q", got, want)
	}
	if summaries[2] != "" {
		t.Errorf("a summary ada did not choose to share: %q", summaries[2])
	}
	// Nothing of the tool call's input or output, the diff's text, the
	// key, or a local path reached bob: not in what his window reads,
	// not in his transcript.
	seen, _ := json.Marshal(st.Entries)
	file, err := os.ReadFile(bob.paths.TranscriptPath(id))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{inputCanary, outputCanary, diffCanary, secret, thoughtKept, ada.ws, outside, filepath.Dir(outside)} {
		if bytes.Contains(seen, []byte(c)) || bytes.Contains(file, []byte(c)) {
			t.Errorf("bob got %q", c)
		}
	}

	// ada's machine links both turns to their runs; each turn's own
	// entries there are the full ones (the tool's input, the thought).
	st.Runs = nil
	ada.must("shared.state", map[string]any{"id": id}, &st)
	byTurn := map[int]string{}
	for run, turn := range st.Runs {
		byTurn[turn] = run
	}
	if len(st.Runs) != 2 || byTurn[1] == "" || byTurn[2] == "" {
		t.Fatalf("ada's runs: %v", st.Runs)
	}
	for _, e := range st.Entries {
		if e.Kind == "prompt" && e.Entry.Text == "plan it" && e.RunID != byTurn[1] {
			t.Errorf("the first prompt's run %s is not linked to turn 1 (%v)", e.RunID, st.Runs)
		}
	}
	var snap struct{ Thread thread.Snapshot }
	ada.must("sessions.open", map[string]any{"id": id}, &snap)
	full := map[int]string{}
	for _, e := range snap.Thread.Entries {
		switch {
		case e.Kind == thread.EntryToolCall && e.ToolCall != nil:
			full[e.Turn] += string(e.ToolCall.RawInput)
		case e.Kind == thread.EntryThought:
			full[e.Turn] += e.Text
		}
	}
	if !strings.Contains(full[1], inputCanary) || !strings.Contains(full[1], thoughtShared) || !strings.Contains(full[2], thoughtKept) {
		t.Errorf("ada's own turns, in full: %v", full)
	}
}
