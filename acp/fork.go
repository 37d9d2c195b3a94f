package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// CanFork reports the session/fork capability (unstable in the schema).
func (c AgentCapabilities) CanFork() bool { return present(c.SessionCapabilities.Fork) }

// ForkSession runs session/fork: a new agent session that starts with a
// copy of session id's history. The schema forks the whole session; it
// cannot fork at an earlier turn.
func (a *Agent) ForkSession(ctx context.Context, id string, cfg SessionConfig) (*Session, error) {
	if !a.Init.AgentCapabilities.CanFork() {
		return nil, errors.New("the agent cannot fork sessions")
	}
	s, err := a.newSessionObj("", cfg)
	if err != nil {
		return nil, err
	}
	raw, err := a.callTimeout(ctx, "session/fork", sessionParams{SessionID: id, Cwd: cfg.Cwd, McpServers: cfg.mcpServers(), AdditionalDirectories: a.extraDirs(&cfg)}, cfg.Handler, a.opts.NewSessionTimeout)
	if err != nil {
		return nil, a.describe(err)
	}
	if err := json.Unmarshal(raw, &s.Setup); err != nil || s.Setup.SessionID == "" {
		return nil, fmt.Errorf("session/fork: the agent's answer has no session id: %s", truncate(raw, 200))
	}
	s.id = s.Setup.SessionID
	a.register(s)
	return s, nil
}
