package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"mnote/acp/runtimes"
)

// AgentSession is one session an agent keeps itself (session/list), that
// sessions.import can bring into mnote.
type AgentSession struct {
	AgentSessionID string `json:"agentSessionId"`
	Cwd            string `json:"cwd"`
	Title          string `json:"title"`
	UpdatedAt      string `json:"updatedAt"`
}

// AgentSessions is agents.listSessions' answer. CanImport is false when
// the agent lists sessions but cannot load them (nothing can be imported).
type AgentSessions struct {
	Agent     string         `json:"agent"`
	Cwd       string         `json:"cwd"`
	CanImport bool           `json:"canImport"`
	Sessions  []AgentSession `json:"sessions"`
}

type listAgentSessionsArgs struct {
	Agent string `json:"agent"`
	Cwd   string `json:"cwd"` // "" the open workspace
}

// agentsListSessions asks an agent that offers session/list for its
// sessions in the folder (the open workspace by default).
func (s *Services) agentsListSessions(ctx context.Context, a listAgentSessionsArgs) (any, *Error) {
	cwd := a.Cwd
	if cwd == "" {
		cwd = s.defaultCwd()
	}
	cwd, e := workspaceDir(cwd)
	if e != nil {
		return nil, e
	}
	rt, e := s.runtime(a.Agent)
	if e != nil {
		return nil, e
	}
	res, e := s.resolve(rt)
	if e != nil {
		return nil, e
	}
	ag, err := s.pool.acquire(ctx, rt, res, cwd)
	if err != nil {
		s.noteAgent(rt.Name, err)
		return nil, s.bindError(rt, nil, err)
	}
	defer s.pool.release(ag)
	caps := ag.Init.AgentCapabilities
	if !caps.CanList() {
		return nil, badRequest("%s does not list its sessions (no sessionCapabilities.list)", rt.Title).why(ReasonAgentCannotListSessions, "agent", rt.Title)
	}
	list, err := ag.ListSessions(ctx, cwd)
	if err != nil {
		return nil, s.bindError(rt, ag, err)
	}
	out := AgentSessions{Agent: rt.Name, Cwd: cwd, CanImport: caps.LoadSession, Sessions: make([]AgentSession, 0, len(list))}
	for _, si := range list {
		out.Sessions = append(out.Sessions, AgentSession{AgentSessionID: si.SessionID, Cwd: si.Cwd, Title: si.Title, UpdatedAt: si.UpdatedAt})
	}
	return out, nil
}

type importArgs struct {
	Agent          string `json:"agent"`
	AgentSessionID string `json:"agentSessionId"`
	Cwd            string `json:"cwd"`   // "" the open workspace
	Title          string `json:"title"` // "" until the agent names it
}

// sessionsImport brings one of an agent's sessions into mnote: a new
// session bound to it by session/load, its history replayed into the
// thread and recorded like any other session's.
func (s *Services) sessionsImport(ctx context.Context, a importArgs) (any, *Error) {
	if strings.TrimSpace(a.AgentSessionID) == "" {
		return nil, badRequest("which session? give agentSessionId")
	}
	cwd := a.Cwd
	if cwd == "" {
		cwd = s.defaultCwd()
	}
	cwd, e := workspaceDir(cwd)
	if e != nil {
		return nil, e
	}
	l, e := s.createLiveFrom(ctx, a.Agent, cwd, a.AgentSessionID, a.Title)
	if e != nil {
		return nil, e
	}
	s.emitChanged(l.id)
	return s.summary(ctx, l.id)
}

// extraDirs is the agent's allow-list of additional directories
// (config.json additional_directories): the folders that exist, minus
// mnote's own folders and anything inside or around them.
func (s *Services) extraDirs(rt runtimes.Runtime) []string {
	var out []string
	for _, d := range rt.AdditionalDirectories {
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() {
			s.log.Warn("additional directory skipped", "agent", rt.Name, "dir", d, "err", err)
			continue
		}
		if s.touchesOwnDirs(d) {
			s.log.Warn("additional directory skipped: it holds mnote's own data", "agent", rt.Name, "dir", d)
			continue
		}
		out = append(out, d)
	}
	return out
}

// touchesOwnDirs reports a folder that is, holds or lies inside one of
// mnote's own folders (links resolved).
func (s *Services) touchesOwnDirs(dir string) bool {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return true
	}
	for _, own := range s.ownDirs() {
		if own == "" || own == "." {
			continue
		}
		o, err := filepath.EvalSymlinks(own)
		if err != nil {
			o = filepath.Clean(own)
		}
		if within(real, o) || within(o, real) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or beneath it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
