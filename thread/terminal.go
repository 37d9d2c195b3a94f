package thread

import (
	"slices"
	"unicode/utf8"
)

// OpTerminal is the op of a Change to a terminal: EntryID is the terminal
// id (read it with Thread.Terminal) and Delta the output it added, if any.
const OpTerminal = "terminal"

// MaxTerminalOutput is how much of a terminal's output a thread keeps: the
// last bytes, cut at a character boundary (Terminal.Truncated says so).
const MaxTerminalOutput = 1 << 20

// Terminal is a command the agent runs in a terminal (ACP terminal/create).
// Tool calls show it through content {"type":"terminal","terminalId"}.
type Terminal struct {
	TerminalID string   `json:"terminalId"`
	Turn       int      `json:"turn"`
	Command    string   `json:"command"`
	Args       []string `json:"args,omitempty"`
	Cwd        string   `json:"cwd,omitempty"`
	// Output is what the command wrote (escape sequences included), at
	// most MaxTerminalOutput bytes of its end.
	Output    string `json:"output"`
	Truncated bool   `json:"truncated,omitempty"`
	// Exited is set once the command ended, with its exit code or the
	// signal that killed it.
	Exited   bool   `json:"exited,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
	Signal   string `json:"signal,omitempty"`
	// Released: the agent let go of it; nothing of it runs any more.
	Released bool `json:"released,omitempty"`
}

type terminalState struct {
	Terminal
	out []byte
}

func (ts *terminalState) export() Terminal {
	t := ts.Terminal
	t.Args = slices.Clone(t.Args)
	if t.ExitCode != nil {
		c := *t.ExitCode
		t.ExitCode = &c
	}
	t.Output = string(ts.out)
	return t
}

func (t *Thread) terminal(id string) *terminalState {
	for _, ts := range t.terms {
		if ts.TerminalID == id {
			return ts
		}
	}
	return nil
}

// TerminalStarted records a terminal the agent created. A known id is
// started afresh.
func (t *Thread) TerminalStarted(term Terminal) Change {
	if term.TerminalID == "" {
		return Change{}
	}
	ts := t.terminal(term.TerminalID)
	if ts == nil {
		ts = &terminalState{}
		t.terms = append(t.terms, ts)
	}
	ts.Terminal = Terminal{TerminalID: term.TerminalID, Turn: t.turn, Command: term.Command, Args: slices.Clone(term.Args), Cwd: term.Cwd}
	ts.out = nil
	return Change{Op: OpTerminal, EntryID: term.TerminalID, Kind: "terminal"}
}

// TerminalOutput appends output of a terminal. Unknown ids change nothing.
func (t *Thread) TerminalOutput(id, data string) Change {
	ts := t.terminal(id)
	if ts == nil || data == "" {
		return Change{}
	}
	ts.out = append(ts.out, data...)
	if len(ts.out) > MaxTerminalOutput {
		cut := len(ts.out) - MaxTerminalOutput
		for cut < len(ts.out) && !utf8.RuneStart(ts.out[cut]) {
			cut++
		}
		ts.out = append(ts.out[:0], ts.out[cut:]...)
		ts.Truncated = true
	}
	return Change{Op: OpTerminal, EntryID: id, Kind: "terminal", Delta: data}
}

// TerminalExited records how a terminal's command ended.
func (t *Thread) TerminalExited(id string, exitCode *int, signal string) Change {
	ts := t.terminal(id)
	if ts == nil {
		return Change{}
	}
	ts.Exited, ts.Signal = true, signal
	ts.ExitCode = nil
	if exitCode != nil {
		c := *exitCode
		ts.ExitCode = &c
	}
	return Change{Op: OpTerminal, EntryID: id, Kind: "terminal"}
}

// TerminalReleased records that the agent released a terminal (its
// command is gone). With SetForgetDone the terminal is forgotten.
func (t *Thread) TerminalReleased(id string) Change {
	ts := t.terminal(id)
	if ts == nil {
		return Change{}
	}
	ts.Released = true
	if !ts.Exited {
		ts.Exited = true
	}
	ch := Change{Op: OpTerminal, EntryID: id, Kind: "terminal"}
	if t.forget {
		t.terms = slices.DeleteFunc(t.terms, func(x *terminalState) bool { return x == ts })
	}
	return ch
}

// Terminal returns a copy of the terminal with this id.
func (t *Thread) Terminal(id string) (Terminal, bool) {
	ts := t.terminal(id)
	if ts == nil {
		return Terminal{}, false
	}
	return ts.export(), true
}

// Terminals returns copies of the thread's terminals, oldest first.
func (t *Thread) Terminals() []Terminal {
	if len(t.terms) == 0 {
		return nil
	}
	out := make([]Terminal, len(t.terms))
	for i, ts := range t.terms {
		out[i] = ts.export()
	}
	return out
}
