package chat_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp"
	"mnote/acp/acptest"
	"mnote/app/chat"
	"mnote/store"
	"mnote/thread"
)

// bindTerminalSession makes a session with a real transcript bound to the
// test agent (scenario may be "").
func bindTerminalSession(t *testing.T, scenario string) (*chat.Session, string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w, err := store.CreateTranscript(path, store.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := chat.New(chat.Config{ID: "s1", Workspace: t.TempDir(), Recorder: w, Observer: &events{}, Broker: allowAll{}})
	var args []string
	if scenario != "" {
		args = acptest.Scenario(scenario)
	}
	a, err := acp.Start(t.Context(), acp.ProcSpec{Path: acptest.TestAgent(t), Args: args}, acp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Stop)
	cwd := t.TempDir()
	if _, err := s.Bind(t.Context(), a, chat.BindOptions{Runtime: "test", Cwd: cwd}); err != nil {
		t.Fatal(err)
	}
	return s, path, cwd
}

// A terminal's start, output, exit and release are app records: the thread
// rebuilt from the transcript shows the same terminal as the live one.
func TestTerminalRecordedAndReplayed(t *testing.T) {
	s, path, cwd := bindTerminalSession(t, "")
	res, err := s.Prompt(t.Context(), chat.TextPrompt(acptest.Steps(
		`{"terminal":{"command":"printf","args":["\\033[32mok\\033[0m 你好\\n"],"toolCallId":"run-1"}}`,
		`{"terminalWait":"t"}`, `{"terminalRelease":"t"}`)))
	if err != nil || res.StopReason != acp.StopEndTurn {
		t.Fatalf("turn: %v %+v", err, res)
	}
	var live []thread.Terminal
	var content []thread.ToolCallContent
	s.Thread(func(th *thread.Thread) {
		live = th.Terminals()
		for _, e := range th.Entries() {
			if e.ToolCall != nil && e.ToolCall.ToolCallID == "run-1" {
				content = e.ToolCall.Content
			}
		}
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := "\x1b[32mok\x1b[0m 你好\r\n"
	if len(live) != 1 || live[0].Output != want || live[0].ExitCode == nil || *live[0].ExitCode != 0 || !live[0].Released || live[0].Cwd != cwd || live[0].Turn != 1 {
		t.Fatalf("live terminal %+v", live)
	}
	if len(content) != 1 || content[0].Type != "terminal" || content[0].TerminalID != live[0].TerminalID {
		t.Fatalf("tool call content %+v", content)
	}
	th, _, _, err := store.LoadThread(path)
	if err != nil {
		t.Fatal(err)
	}
	replayed := th.Terminals()
	if len(replayed) != 1 || replayed[0].Output != want || replayed[0].Command != "printf" || replayed[0].ExitCode == nil || !replayed[0].Released {
		t.Fatalf("replayed terminal %+v", replayed)
	}
}

// In the agent's plan mode terminal/create is refused, and the refusal is
// recorded.
func TestTerminalRefusedInPlanMode(t *testing.T) {
	s, path, _ := bindTerminalSession(t, `{"sessionNewResult":{"modes":{"currentModeId":"plan","availableModes":[{"id":"plan","name":"Plan"},{"id":"default","name":"Default"}]}}}`)
	if _, err := s.Prompt(t.Context(), chat.TextPrompt(acptest.Steps(`{"terminal":{"command":"touch","args":["made"]}}`))); err != nil {
		t.Fatal(err)
	}
	var said string
	s.Thread(func(th *thread.Thread) {
		for _, e := range th.Entries() {
			if e.Kind == thread.EntryAssistantMessage {
				said += e.Text
			}
		}
	})
	if !strings.Contains(said, "terminal t error: -32602 refused: the session is in a read-only mode") {
		t.Fatalf("agent said %q", said)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"terminal_refused"`) || strings.Contains(string(b), `"terminal_started"`) {
		t.Fatal("the refusal is not recorded (or a terminal started)")
	}
}

// Closing the session while a command runs kills it and records its end
// (closing must not wait on itself for the terminal's records).
func TestTerminalEndsWithSession(t *testing.T) {
	s, path, _ := bindTerminalSession(t, "")
	if _, err := s.Prompt(t.Context(), chat.TextPrompt(acptest.Steps(`{"terminal":{"command":"sleep","args":["100"]}}`))); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	th, _, _, err := store.LoadThread(path)
	if err != nil {
		t.Fatal(err)
	}
	terms := th.Terminals()
	if len(terms) != 1 || terms[0].Signal != "SIGKILL" || !terms[0].Released {
		t.Fatalf("terminal after close: %+v", terms)
	}
}
