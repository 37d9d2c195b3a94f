package chat

import (
	"mnote/acp"
	"mnote/store"
	"mnote/thread"
)

// This file records the agent's terminals (acp.TerminalObserver): each
// event is an app record (store.TerminalRecord), applied to the thread
// and shown, so a replay of the transcript shows the same output.

// EvTerminal is the Event of a terminal change (Change.Op "terminal").
const EvTerminal = "terminal"

// maxRecordedTerminalOutput bounds the output one terminal writes to the
// transcript; beyond it the output is still shown live, and its exit
// record says how much was not recorded.
const maxRecordedTerminalOutput = 4 << 20

// TerminalStarted implements acp.TerminalObserver.
func (s *Session) TerminalStarted(t acp.TerminalInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordApp(store.KindTerminalStarted, store.TerminalRecord{Turn: s.turn, TerminalID: t.ID, Command: t.Command,
		Args: t.Args, Cwd: t.Cwd, OutputByteLimit: t.OutputByteLimit})
	s.terminalChange(s.th.TerminalStarted(thread.Terminal{TerminalID: t.ID, Command: t.Command, Args: t.Args, Cwd: t.Cwd}))
}

// TerminalOutput implements acp.TerminalObserver.
func (s *Session) TerminalOutput(id string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.termOut == nil {
		s.termOut = map[string]*termCount{}
	}
	c := s.termOut[id]
	if c == nil {
		c = &termCount{}
		s.termOut[id] = c
	}
	if c.recorded+int64(len(data)) <= maxRecordedTerminalOutput {
		c.recorded += int64(len(data))
		s.recordApp(store.KindTerminalOutput, store.TerminalRecord{TerminalID: id, Data: string(data)})
	} else {
		c.dropped += int64(len(data))
	}
	s.terminalChange(s.th.TerminalOutput(id, string(data)))
}

type termCount struct{ recorded, dropped int64 }

// TerminalExited implements acp.TerminalObserver.
func (s *Session) TerminalExited(id string, exit acp.TerminalExit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := store.TerminalRecord{TerminalID: id, ExitCode: exit.ExitCode, Signal: exit.Signal}
	if c := s.termOut[id]; c != nil {
		rec.Dropped = c.dropped
	}
	s.recordApp(store.KindTerminalExited, rec)
	s.terminalChange(s.th.TerminalExited(id, exit.ExitCode, exit.Signal))
}

// TerminalReleased implements acp.TerminalObserver.
func (s *Session) TerminalReleased(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.termOut, id)
	s.recordApp(store.KindTerminalReleased, store.TerminalRecord{TerminalID: id})
	s.terminalChange(s.th.TerminalReleased(id))
}

// TerminalRefused implements acp.TerminalObserver: the refusal is
// recorded, like a refused fs/* request.
func (s *Session) TerminalRefused(command, cwd, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordApp("terminal_refused", map[string]any{"turn": s.turn, "command": command, "cwd": cwd, "reason": reason})
}

// terminalChange shows a terminal change; called with s.mu held.
func (s *Session) terminalChange(ch thread.Change) {
	if ch.Op == "" || s.obs == nil {
		return
	}
	ev := Event{Type: EvTerminal, Change: ch}
	if ch.Delta == "" {
		if tm, ok := s.th.Terminal(ch.EntryID); ok {
			ev.Terminal = &tm
		}
	}
	s.obs.Event(&ev)
}

// KillTerminal kills the command of one of the agent's terminals (the
// user's Stop button). The agent sees it exit, killed by SIGKILL.
func (s *Session) KillTerminal(id string) error {
	s.mu.Lock()
	as := s.as
	s.mu.Unlock()
	if as == nil {
		return ErrNoRuntime
	}
	return as.KillTerminal(id)
}
