package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"mnote/thread"
)

// This file holds what the app's session manager needs besides Bind,
// Prompt and Cancel: the turn counter, renaming, the agent's session
// settings, and the runtime status records.

// Turns returns how many turns the session has had, those already in the
// transcript included. The next Prompt runs turn Turns()+1.
func (s *Session) Turns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn
}

// SetTitle records a new title for the session (an app "title" record,
// which the index and a rebuild from the transcript both read).
func (s *Session) SetTitle(title string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordApp("title", map[string]any{"title": title})
	ch := s.th.SetTitle(title)
	s.sync()
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvUpdate, Change: ch})
	}
	return s.writeErr
}

// GuessTitle records mnote's title for a session that has none (from its
// first prompt): the agent's own title (session_info_update) replaces it,
// unlike SetTitle's.
func (s *Session) GuessTitle(title string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordApp("title", map[string]any{"title": title, "guess": true})
	ch := s.th.GuessTitle(title)
	s.sync()
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvUpdate, Change: ch})
	}
	return s.writeErr
}

// RecordRuntimeStatus records a change of the current binding's agent
// process: ready, exited, failed or needs_auth. Without a binding it
// records nothing.
func (s *Session) RecordRuntimeStatus(status string, exitCode *int, stderrTail string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nBindings
	if s.binding != nil {
		n = s.binding.Index
	}
	if n == 0 {
		return nil
	}
	rec := map[string]any{"binding": n, "status": status}
	if exitCode != nil {
		rec["exitCode"] = *exitCode
	}
	if stderrTail != "" {
		rec["stderrTail"] = stderrTail
	}
	s.recordApp("runtime_status", rec)
	s.sync()
	return s.writeErr
}

// SetMode asks the agent to switch the session's mode (session/set_mode).
// When the agent accepts, the thread's current mode follows at once (the
// agent need not send a current_mode_update) and the observer sees the
// change.
func (s *Session) SetMode(ctx context.Context, modeID string) error {
	s.mu.Lock()
	as := s.as
	s.mu.Unlock()
	if as == nil {
		return ErrNoRuntime
	}
	if err := as.SetMode(ctx, modeID); err != nil {
		return fmt.Errorf("set mode %q: %w", modeID, err)
	}
	s.applyLocal(&thread.Update{SessionUpdate: thread.KindCurrentModeUpdate, CurrentModeID: &modeID})
	return nil
}

// SetModel asks the agent to switch the session's model: through its
// config option of category "model" (session/set_config_option) when it
// offers one, else through the legacy session/set_model when it sent
// "models"; ErrNoModelChoice when it offers neither. The thread follows
// when the agent accepts.
func (s *Session) SetModel(ctx context.Context, modelID string) error {
	s.mu.Lock()
	as := s.as
	choice := s.th.ModelChoice()
	s.mu.Unlock()
	if as == nil {
		return ErrNoRuntime
	}
	switch {
	case choice.ConfigID != "":
		return s.SetConfigOption(ctx, choice.ConfigID, modelID)
	case !choice.Legacy:
		return ErrNoModelChoice
	}
	if err := as.SetModel(ctx, modelID); err != nil {
		return fmt.Errorf("set model %q: %w", modelID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.th.SetCurrentModel(modelID)
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvUpdate, Change: ch})
	}
	return nil
}

// ErrNoModelChoice: the agent offers no model to choose for the session.
var ErrNoModelChoice = errors.New("the agent offers no model choice for this session")

// SetConfigOption sets one of the agent's session config options
// (session/set_config_option). The configOptions the agent answers with
// replace the thread's.
func (s *Session) SetConfigOption(ctx context.Context, configID string, value any) error {
	s.mu.Lock()
	as := s.as
	s.mu.Unlock()
	if as == nil {
		return ErrNoRuntime
	}
	raw, err := as.SetConfigOption(ctx, configID, value)
	if err != nil {
		return fmt.Errorf("set config option %q: %w", configID, err)
	}
	var r struct {
		ConfigOptions json.RawMessage `json:"configOptions"`
	}
	if json.Unmarshal(raw, &r) == nil && len(r.ConfigOptions) > 0 {
		s.applyLocal(&thread.Update{SessionUpdate: thread.KindConfigOptionUpdate, ConfigOptions: r.ConfigOptions})
	}
	return nil
}

// applyLocal applies a session-state update the client made itself (it is
// not an agent line, so it is not recorded as one; the request and the
// agent's answer are in the transcript).
func (s *Session) applyLocal(u *thread.Update) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.th.Apply(u)
	if err != nil {
		s.log.Debug("local update skipped", "kind", u.SessionUpdate, "err", err)
		return
	}
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvUpdate, Update: u, Change: ch})
	}
}
