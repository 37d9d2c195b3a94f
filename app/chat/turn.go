package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"mnote/acp"
	"mnote/thread"
)

// BindOptions say how to attach a runtime.
type BindOptions struct {
	Runtime string // runtime name, for the record
	Command string // what was started
	// AgentSessionID continues an agent session: session/load when the
	// agent supports it, then session/resume, else a new agent session.
	AgentSessionID string
	// ForkFrom starts the session with session/fork of that agent
	// session (a fork of an mnote session, app/fork.go) when the agent
	// offers it, else with a new agent session; AgentSessionID is unset.
	ForkFrom string
	Cwd      string
	// FS serves the agent's fs/* requests (confined by the caller, e.g. a
	// workspace's AgentFS); nil refuses them all. There is no fallback.
	FS acp.FileSystem
	// McpServers go to the agent with the session (acp.SessionConfig).
	McpServers []json.RawMessage
	// AdditionalDirectories go to an agent that takes them
	// (acp.SessionConfig).
	AdditionalDirectories []string
}

// Bind attaches a running agent to the session, recording the binding.
func (s *Session) Bind(ctx context.Context, a *acp.Agent, o BindOptions) (*Binding, error) {
	s.detachAgent()
	s.mu.Lock()
	s.record("out", "initialize", a.InitLines[0], nil)
	s.record("in", acp.KindResponse, a.InitLines[1], nil)
	werr := s.writeErr
	s.mu.Unlock()
	if werr != nil {
		return nil, werr
	}

	cfg := acp.SessionConfig{Cwd: o.Cwd, Handler: s, Broker: s, Elicitor: s, FS: o.FS, McpServers: o.McpServers, AdditionalDirectories: o.AdditionalDirectories,
		Terminals: &acp.TerminalConfig{Observer: s, Allow: s.terminalsAllowed}}
	b := &Binding{Runtime: o.Runtime, Command: o.Command}
	caps := a.Init.AgentCapabilities
	var as *acp.Session
	var err error
	switch {
	case o.ForkFrom != "" && caps.CanFork():
		as, err = a.ForkSession(ctx, o.ForkFrom, cfg)
		b.How = "fork"
	case o.AgentSessionID != "" && caps.LoadSession:
		as, err = s.load(ctx, a, o.AgentSessionID, cfg)
		b.How = "load"
	case o.AgentSessionID != "" && caps.CanResume():
		as, err = a.ResumeSession(ctx, o.AgentSessionID, cfg)
		b.How = "resume"
	default:
		as, err = a.NewSession(ctx, cfg)
		b.How = "new"
		if o.AgentSessionID != "" {
			b.How = "new_fallback"
			b.Note = "this agent cannot load or resume sessions: it continues in a new agent session and does not see the earlier turns"
			b.NoteReason = NoteCannotResume
		}
	}
	var rpcErr *acp.RPCError
	if err != nil && b.How != "new" && errors.As(err, &rpcErr) && !errors.Is(err, acp.ErrAuthRequired) {
		// The agent could not continue its session (gone, expired):
		// start a new one and say so.
		s.mu.Lock()
		s.recordApp("error", map[string]any{"message": err.Error()})
		s.mu.Unlock()
		as, err = a.NewSession(ctx, cfg)
		b.How = "new_fallback"
		b.Note = fmt.Sprintf("the agent could not continue its earlier session (%s): this turn runs in a new agent session that does not see the earlier turns", rpcErr.Message)
		b.NoteReason, b.NoteCause = NoteCannotContinue, rpcErr.Message
	}
	if err != nil {
		s.mu.Lock()
		s.recordApp("error", map[string]any{"message": err.Error()})
		s.sync()
		s.mu.Unlock()
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nBindings++
	b.Index = s.nBindings
	b.AgentSessionID = as.ID()
	s.as, s.binding = as, b
	if ch, err := s.th.ApplySessionResult(mustJSON(as.Setup)); err == nil && s.obs != nil {
		s.obs.Event(&Event{Type: EvUpdate, Change: ch})
	}
	if ch, ok := s.th.AddBinding(b.Runtime, b.How, b.Note); ok && s.obs != nil {
		s.obs.Event(&Event{Type: EvUpdate, Change: ch})
	}
	s.recordApp("runtime_bound", b)
	s.sync()
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvBound, Binding: b})
	}
	return b, s.writeErr
}

// load runs session/load. If the thread already holds the history (it was
// rebuilt from our transcript) the replayed updates are dropped, neither
// recorded again nor applied; otherwise they build the thread.
func (s *Session) load(ctx context.Context, a *acp.Agent, id string, cfg acp.SessionConfig) (*acp.Session, error) {
	s.mu.Lock()
	keep := s.th.Len() == 0
	s.replay = 2
	if keep {
		s.replay = 1
	}
	s.th.BeginReplay()
	before := s.updates
	s.recordApp("replay", map[string]any{"phase": "begin", "kept": keep})
	s.mu.Unlock()

	as, err := a.LoadSession(ctx, id, cfg)

	s.mu.Lock()
	defer s.mu.Unlock()
	applied, dropped := s.th.EndReplay()
	if s.replay == 2 {
		dropped = int(s.updates - before) // counted, not applied
	}
	s.replay = 0
	s.recordApp("replay", map[string]any{"phase": "end", "applied": applied, "dropped": dropped})
	return as, err
}

// Prompt runs one turn with the given content and records it. It returns
// how the turn ended; an error means the turn failed (agent crash, write
// failure) and is also in the result.
func (s *Session) Prompt(ctx context.Context, blocks []thread.ContentBlock) (*TurnResult, error) {
	s.mu.Lock()
	as := s.as
	if as == nil {
		s.mu.Unlock()
		return nil, ErrNoRuntime
	}
	if s.writeErr != nil {
		err := s.writeErr
		s.mu.Unlock()
		return nil, err
	}
	s.turn++
	turn := s.turn
	start := s.updates
	s.recordApp("turn_started", map[string]any{"turn": turn})
	data, _ := s.encode("prompt", map[string]any{"turn": turn, "blocks": thread.StoredBlocks(blocks), "text": promptText(blocks)})
	rec, written := s.append("app", "prompt", data)
	before := s.th.Len()
	ch := s.th.AddUserPrompt(blocks)
	s.applied(rec, written, nil, before, ch, true)
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvTurnStarted, Change: ch})
	}
	s.mu.Unlock()

	res, err := as.Prompt(ctx, blocks)

	s.mu.Lock()
	defer s.mu.Unlock()
	tr := &TurnResult{Turn: turn, Updates: s.updates - start}
	stop := "error"
	if err == nil {
		tr.StopReason, tr.Usage, tr.Killed = res.StopReason, res.Usage, res.Killed
		stop = res.StopReason
		if len(res.Usage) > 0 {
			if ch, uerr := s.th.RecordTurnUsage(res.Usage); uerr == nil && s.obs != nil {
				s.obs.Event(&Event{Type: EvUpdate, Change: ch})
			}
		}
	}
	if s.writeErr != nil {
		err = s.writeErr
	}
	if err != nil {
		tr.Error = err.Error()
	}
	changes := s.th.EndTurn(stop)
	ended := map[string]any{"turn": turn, "stopReason": tr.StopReason, "updates": tr.Updates}
	if len(tr.Usage) > 0 {
		ended["usage"] = tr.Usage
	}
	if tr.Error != "" {
		ended["error"] = tr.Error
	}
	s.recordApp("turn_ended", ended)
	s.sync()
	if s.writeErr != nil && err == nil {
		err = s.writeErr
		tr.Error = err.Error()
	}
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvTurnEnded, Turn: tr, Changes: changes, Err: err})
	}
	return tr, err
}

// Cancel cancels the running turn, if any.
func (s *Session) Cancel() {
	s.mu.Lock()
	as := s.as
	s.mu.Unlock()
	if as != nil {
		as.Cancel()
	}
}

// Detach forgets the agent session (its pending permission requests are
// answered cancelled); the agent process may go on serving others.
func (s *Session) Detach() error {
	s.detachAgent()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeErr
}

// detachAgent closes the agent session without s.mu held: closing it
// releases its terminals, whose ends are recorded (under s.mu).
func (s *Session) detachAgent() {
	s.mu.Lock()
	as := s.as
	s.as = nil
	s.mu.Unlock()
	if as != nil {
		as.Close()
	}
}

// Close detaches the runtime and closes the transcript.
func (s *Session) Close() error {
	s.detachAgent()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	err := s.rec.Close()
	if s.writeErr != nil {
		return s.writeErr
	}
	if err != nil {
		return fmt.Errorf("close transcript: %w", err)
	}
	return nil
}

// TextPrompt makes the content of a plain text prompt.
func TextPrompt(text string) []thread.ContentBlock {
	return []thread.ContentBlock{{Type: "text", Text: text}}
}

func promptText(blocks []thread.ContentBlock) string {
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(errors.New("chat: " + err.Error()))
	}
	return b
}

// TitleFromPrompt makes a session's first title from its first prompt:
// the first line, at most 80 characters.
func TitleFromPrompt(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	const max = 80
	if r := []rune(text); len(r) > max {
		text = string(r[:max-1]) + "…"
	}
	return text
}
