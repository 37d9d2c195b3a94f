package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// SessionInfo is one session the agent lists (session/list).
type SessionInfo struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

// maxListPages and maxListed bound what ListSessions takes, so that an
// agent whose cursor never ends (or that lists without end) cannot keep
// mnote asking or fill its memory.
const (
	maxListPages = 50
	maxListed    = 5000
)

// ListSessions runs session/list for the sessions the agent keeps in cwd
// ("" all of them), following nextCursor. Entries without a session id
// are skipped.
func (a *Agent) ListSessions(ctx context.Context, cwd string) ([]SessionInfo, error) {
	if !a.Init.AgentCapabilities.CanList() {
		return nil, errors.New("the agent cannot list its sessions")
	}
	var out []SessionInfo
	cursor := ""
	for range maxListPages {
		params := map[string]string{}
		if cwd != "" {
			params["cwd"] = cwd
		}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := a.callTimeout(ctx, "session/list", params, nil, a.opts.NewSessionTimeout)
		if err != nil {
			return nil, a.describe(err)
		}
		var page struct {
			Sessions   []SessionInfo `json:"sessions"`
			NextCursor string        `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("session/list: the agent's answer does not decode: %w", err)
		}
		for _, s := range page.Sessions {
			if s.SessionID != "" && len(out) < maxListed {
				out = append(out, s)
			}
		}
		if len(out) >= maxListed {
			return out, nil
		}
		if page.NextCursor == "" || page.NextCursor == cursor {
			return out, nil
		}
		cursor = page.NextCursor
	}
	return out, nil
}

// extraDirs is cfg's additional directories when the agent takes them.
func (a *Agent) extraDirs(cfg *SessionConfig) []string {
	if len(cfg.AdditionalDirectories) == 0 || !a.Init.AgentCapabilities.CanAddDirectories() {
		return nil
	}
	return cfg.AdditionalDirectories
}
