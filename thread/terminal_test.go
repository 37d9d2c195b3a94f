package thread

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminalLifecycle(t *testing.T) {
	th := New()
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "go"}})
	if ch := th.TerminalOutput("nope", "x"); ch.Op != "" {
		t.Fatalf("unknown terminal changed: %+v", ch)
	}
	ch := th.TerminalStarted(Terminal{TerminalID: "t1", Command: "printf", Args: []string{"a"}, Cwd: "/w"})
	if ch.Op != OpTerminal || ch.EntryID != "t1" {
		t.Fatalf("start change %+v", ch)
	}
	if ch := th.TerminalOutput("t1", "\x1b[31mred"); ch.Delta != "\x1b[31mred" {
		t.Fatalf("output change %+v", ch)
	}
	code := 3
	th.TerminalExited("t1", &code, "")
	code = 9 // the thread keeps its own copy
	th.TerminalReleased("t1")
	got, ok := th.Terminal("t1")
	if !ok || got.Output != "\x1b[31mred" || got.ExitCode == nil || *got.ExitCode != 3 || !got.Exited || !got.Released || got.Turn != 1 {
		t.Fatalf("terminal %+v", got)
	}
	snap := th.Snapshot()
	if len(snap.Terminals) != 1 || len(th.Meta().Terminals) != 0 {
		t.Fatalf("snapshot terminals %+v", snap.Terminals)
	}
}

// The output kept is the end, cut at a character boundary.
func TestTerminalOutputBounded(t *testing.T) {
	th := New()
	th.TerminalStarted(Terminal{TerminalID: "t"})
	th.TerminalOutput("t", "x")
	big := strings.Repeat("中", MaxTerminalOutput/3+10)
	th.TerminalOutput("t", big)
	got, _ := th.Terminal("t")
	if len(got.Output) > MaxTerminalOutput || !utf8.ValidString(got.Output) || !got.Truncated || !strings.HasSuffix(big, got.Output) {
		t.Fatalf("kept %d bytes, valid %v, truncated %v", len(got.Output), utf8.ValidString(got.Output), got.Truncated)
	}
}

func TestTerminalForgotten(t *testing.T) {
	th := New()
	th.SetForgetDone()
	th.TerminalStarted(Terminal{TerminalID: "t"})
	th.TerminalReleased("t")
	if len(th.Terminals()) != 0 {
		t.Fatal("a released terminal is kept with SetForgetDone")
	}
}
