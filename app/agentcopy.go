package app

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"

	"mnote/acp"
	"mnote/store"
)

// What mnote asks an agent to free, where the agent advertises it
// (issue 26): the agent's own copy of a session deleted in mnote
// (session/delete, sessions.delete with agentCopy) and its login
// (logout, agents.logout). session/close is sent by acp.Session.Close
// whenever mnote lets go of a session.

// AgentCaps are the lifecycle methods an agent advertised the last time
// mnote started it (Agent.capabilities): the page offers "also delete the
// agent's copy" and "Sign out" only where they are true.
type AgentCaps struct {
	Close  bool `json:"close"`
	Delete bool `json:"delete"`
	Logout bool `json:"logout"`
}

func capsOf(c acp.AgentCapabilities) AgentCaps {
	return AgentCaps{Close: c.CanClose(), Delete: c.CanDelete(), Logout: c.CanLogout()}
}

// capsFile keeps the capabilities across restarts, so that the page can
// offer them before the agent runs again.
func (s *Services) capsFile() string {
	return filepath.Join(s.paths.StateDir, "agent-capabilities.json")
}

// agentCaps returns the known capabilities of every agent (read from the
// file once).
func (s *Services) agentCaps() map[string]AgentCaps {
	s.capsMu.Lock()
	defer s.capsMu.Unlock()
	if s.caps == nil {
		s.caps = map[string]AgentCaps{}
		if b, err := os.ReadFile(s.capsFile()); err == nil {
			if err := json.Unmarshal(b, &s.caps); err != nil {
				s.log.Warn("agent capabilities file unreadable; it is rewritten", "err", err)
				s.caps = map[string]AgentCaps{}
			}
		}
	}
	return maps.Clone(s.caps)
}

// noteCaps records what an agent that just started advertised.
func (s *Services) noteCaps(name string, c acp.AgentCapabilities) {
	caps := capsOf(c)
	if old, ok := s.agentCaps()[name]; ok && old == caps {
		return
	}
	s.capsMu.Lock()
	defer s.capsMu.Unlock()
	s.caps[name] = caps
	b, _ := json.MarshalIndent(s.caps, "", "  ")
	if err := os.MkdirAll(s.paths.StateDir, 0o700); err == nil {
		err = writeFileAtomic(s.capsFile(), append(b, '\n'))
		if err != nil {
			s.log.Warn("agent capabilities not saved", "err", err)
		}
	}
}

type deleteArgs struct {
	ID string `json:"id"`
	// AgentCopy also deletes the agent's own copy (session/delete) of
	// the session's last agent session.
	AgentCopy bool `json:"agentCopy"`
}

// deleteAgentCopy asks the agent of the session's last binding to delete
// its own copy, in the session's folder. It runs before mnote's copy goes
// to the trash: when it fails, nothing is deleted.
func (s *Services) deleteAgentCopy(ctx context.Context, id string) *Error {
	sum, e := s.summary(ctx, id)
	if e != nil {
		return e
	}
	_, runtime, asid, e := s.forkSource(ctx, sum)
	if e != nil {
		return e
	}
	if runtime == "" || asid == "" {
		return badRequest("the session %s never had an agent session to delete", id).why(ReasonNoAgentCopy)
	}
	rt, e := s.runtime(runtime)
	if e != nil {
		return e
	}
	res, e := s.resolve(rt)
	if e != nil {
		return e
	}
	cwd, e := workspaceDir(sum.Workspace)
	if e != nil {
		return e
	}
	ag, err := s.pool.acquire(ctx, rt, res, cwd)
	if err != nil {
		s.noteAgent(rt.Name, err)
		return s.bindError(rt, nil, err)
	}
	defer s.pool.release(ag)
	if err := ag.DeleteSession(ctx, asid); err != nil {
		if errors.Is(err, acp.ErrNotOffered) {
			return badRequest("%s does not delete its sessions (no sessionCapabilities.delete)", rt.Title).why(ReasonAgentCannotDeleteSessions, "agent", rt.Title)
		}
		return s.bindError(rt, ag, err)
	}
	return nil
}

// agentsLogout starts the agent and runs ACP logout: it forgets its
// login, so that its next start asks the user to sign in (the agent is
// marked needs_login at once). Agents already running for sessions keep
// going until they stop.
func (s *Services) agentsLogout(ctx context.Context, a nameArgs) (any, *Error) {
	rt, res, e := s.found(a.Name)
	if e != nil {
		return nil, e
	}
	ag, err := s.startAgent(ctx, rt, res, s.defaultCwd(), s.initTimeout(rt))
	if err != nil {
		s.noteAgent(rt.Name, err)
		return nil, s.bindError(rt, nil, err)
	}
	defer ag.Stop()
	if err := ag.Logout(ctx); err != nil {
		if errors.Is(err, acp.ErrNotOffered) {
			return nil, badRequest("%s has no sign-out (no agentCapabilities.auth.logout)", rt.Title).why(ReasonAgentCannotLogout, "agent", rt.Title)
		}
		return nil, s.bindError(rt, ag, err)
	}
	s.noteAgent(rt.Name, (&Error{Code: CodeNeedsAuth, Message: rt.Title + " is signed out"}).why(ReasonAgentNeedsAuth, "agent", rt.Title))
	return s.listAgents()
}

// trashSession moves a session's transcript to the trash and drops it
// from the index and the thread cache.
func (s *Services) trashSession(ctx context.Context, id string) *Error {
	if err := store.MoveToTrash(s.paths, id); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return notFound(id, err)
		}
		return errorFrom("delete session "+id, err)
	}
	if err := s.ix.Remove(ctx, id); err != nil {
		s.log.Warn("session not removed from the index", "session", id, "err", err)
	}
	store.RemoveThreadCache(s.paths, id)
	return nil
}
