package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"mnote/acp"
	"mnote/acp/runtimes"
)

// Agent statuses.
const (
	AgentReady      = "ready"
	AgentMissing    = "missing"
	AgentNeedsLogin = "needs_login"
	AgentFailed     = "failed"
)

// Agent is one agent the user can pick (API.md "Agent").
type Agent struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Builtin bool     `json:"builtin"`
	Status  string   `json:"status"`
	Path    string   `json:"path,omitempty"`
	Hint    string   `json:"hint,omitempty"`
	// InstallNote says more on installing it (when missing), in English;
	// InstallNoteKey and LoginHintKey name those words in the page's
	// catalogue (frontend/messages/agents), which has them in every
	// language: the page shows the catalogue's (a preset's fixed text),
	// the English only for a key it does not know.
	InstallNote    string `json:"installNote,omitempty"`
	InstallNoteKey string `json:"installNoteKey,omitempty"`
	// NPMPackage is the pinned package agents.install puts into mnote's
	// own folder; "" when the hint is a command for the user to run.
	NPMPackage string `json:"npmPackage,omitempty"`
	// Error is why it cannot start (English); ErrorReason and ErrorParams
	// name the case for the page to word (reasons.go, like an Error's).
	Error       string            `json:"error,omitempty"`
	ErrorReason string            `json:"errorReason,omitempty"`
	ErrorParams map[string]string `json:"errorParams,omitempty"`
	StderrTail  string            `json:"stderrTail,omitempty"`
	// LoginHint says how to log in; KeyEnv are the variables that can
	// carry its key; Keys the ones mnote keeps for it (names only).
	LoginHint    string   `json:"loginHint,omitempty"`
	LoginHintKey string   `json:"loginHintKey,omitempty"`
	KeyEnv       []string `json:"keyEnv,omitempty"`
	Keys         []string `json:"keys,omitempty"`
	// NotesTools says the agent gets mnote's notes tools over MCP
	// (agents.setNotesTools; config.json "notes_tools").
	NotesTools bool `json:"notesTools"`
	// Capabilities are the lifecycle methods it advertised the last time
	// it started (agentcopy.go); absent until it has.
	Capabilities *AgentCaps `json:"capabilities,omitempty"`
	// Registry names the ACP Registry agent and version it was installed
	// from (agents.registryInstall); nil for the others.
	Registry *runtimes.RegistrySource `json:"registry,omitempty"`
}

// AuthMethod is one way to log in to an agent.
type AuthMethod struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Command is the exact command of a terminal method (run it in a
	// terminal: agents.openTerminal does); EnvVars the variables of a key
	// method (give them with agents.setKey).
	Command string   `json:"command,omitempty"`
	EnvVars []string `json:"envVars,omitempty"`
}

// AgentCheck is what agents.check found (API.md "AgentCheck").
type AgentCheck struct {
	Name         string       `json:"name"`
	AgentName    string       `json:"agentName"`
	AgentVersion string       `json:"agentVersion"`
	Protocol     int          `json:"protocol"`
	LoadSession  bool         `json:"loadSession"`
	AuthMethods  []AuthMethod `json:"authMethods"`
	StartMs      int64        `json:"startMs"`
}

// AgentStatusEvent is the data of agent:status. Error is English;
// ErrorReason and ErrorParams name the case (as Agent's).
type AgentStatusEvent struct {
	Name        string            `json:"name"`
	Status      string            `json:"status"`
	Error       string            `json:"error,omitempty"`
	ErrorReason string            `json:"errorReason,omitempty"`
	ErrorParams map[string]string `json:"errorParams,omitempty"`
}

// agentState is what starting an agent last showed (detection alone
// cannot tell that an agent needs a login or crashes at start).
type agentState struct {
	status, err, stderrTail, reason string
	params                          map[string]string
}

// same reports whether st shows what o shows.
func (st agentState) same(o agentState) bool {
	return st.status == o.status && st.err == o.err && st.stderrTail == o.stderrTail &&
		st.reason == o.reason && maps.Equal(st.params, o.params)
}

// errorWhy is the reason and params an event or an agent's listing gives
// for a failure (errorReason, errorParams): e's (classified like the API
// errors), else fallback, with the agent's title.
func errorWhy(e *Error, fallback, title string) (string, map[string]string) {
	if e == nil {
		return "", nil
	}
	reason := e.Reason
	if reason == "" {
		reason = fallback
	}
	if reason == "" {
		return "", nil
	}
	return reason, addParams(maps.Clone(e.Params), "agent", title)
}

// agentTitle is the title of a named agent (its name when the
// configuration cannot tell).
func (s *Services) agentTitle(name string) string {
	cfg, err := runtimes.LoadConfig(s.paths.ConfigFile)
	if err != nil {
		return name
	}
	if rt, ok := runtimes.Lookup(cfg.Runtimes(), name); ok && rt.Title != "" {
		return rt.Title
	}
	return name
}

// noteAgent remembers how starting an agent went and tells the page.
func (s *Services) noteAgent(name string, err error) {
	st := agentState{status: AgentReady}
	if err != nil {
		e := errorFrom("", err)
		if e.Code == CodeNeedsAuth {
			if rt, re := s.runtime(name); re == nil {
				e = e.heldBack(rt.Name, s.det.HeldBack(rt))
			}
		}
		st = agentState{status: AgentFailed, err: e.Message, stderrTail: e.Details}
		switch e.Code {
		case CodeNeedsAuth:
			st.status = AgentNeedsLogin
		case CodeAgentMissing:
			st.status = AgentMissing
		}
		st.reason, st.params = errorWhy(e, ReasonAgentStartFailed, s.agentTitle(name))
	}
	s.mu.Lock()
	old, had := s.agentSt[name]
	if st.status == AgentReady {
		delete(s.agentSt, name)
	} else {
		s.agentSt[name] = st
	}
	s.mu.Unlock()
	if !had && st.status == AgentReady || had && old.same(st) {
		return
	}
	s.emit(EventAgentStatus, AgentStatusEvent{Name: name, Status: st.status, Error: st.err,
		ErrorReason: st.reason, ErrorParams: st.params})
}

func (s *Services) config() (runtimes.Config, *Error) {
	cfg, err := runtimes.LoadConfig(s.paths.ConfigFile)
	if err != nil {
		return runtimes.Config{}, newError(CodeBadRequest, "%w", err).why(ReasonConfigInvalid)
	}
	return cfg, nil
}

// runtime finds a named agent.
func (s *Services) runtime(name string) (runtimes.Runtime, *Error) {
	if strings.TrimSpace(name) == "" {
		return runtimes.Runtime{}, badRequest("which agent? give its name (see agents.list)").why(ReasonAgentRequired)
	}
	cfg, e := s.config()
	if e != nil {
		return runtimes.Runtime{}, e
	}
	rt, ok := runtimes.Lookup(cfg.Runtimes(), name)
	if !ok {
		return runtimes.Runtime{}, (&Error{Code: CodeAgentMissing, Message: fmt.Sprintf("there is no agent named %q", name)}).why(ReasonAgentUnknown, "agent", name)
	}
	return rt, nil
}

// resolve finds the agent's executable.
func (s *Services) resolve(rt runtimes.Runtime) (runtimes.Resolved, *Error) {
	res, err := s.det.Resolve(rt)
	if err != nil {
		e := errorFrom("", err).with("agent", rt.Title)
		if e.Code == CodeAgentMissing {
			e.Details = rt.InstallHint
		}
		return runtimes.Resolved{}, e
	}
	return res, nil
}

// startAgent starts an agent process in dir and runs initialize; the page
// sees it starting (agent:start) and may cancel it (agents.cancelStart).
func (s *Services) startAgent(ctx context.Context, rt runtimes.Runtime, res runtimes.Resolved, dir string, initTimeout time.Duration) (*acp.Agent, error) {
	spec := acp.ProcSpec{
		Path: res.Path, Args: res.Args, Env: res.Env, Dir: dir,
		LogFile: filepath.Join(s.paths.LogDir, runtimes.LogFileName(rt.Name)),
	}
	opts := acp.Options{
		InitTimeout: initTimeout, NewSessionTimeout: initTimeout, CancelGrace: s.cfg.CancelGrace,
		ClientVersion: s.cfg.ClientVersion, Logger: s.log,
	}
	ctx, end := s.beginStart(ctx, rt, initTimeout)
	a, err := acp.Start(ctx, spec, opts)
	if err = end(a, err); err != nil {
		return nil, fmt.Errorf("%s did not start: %w", rt.Title, err)
	}
	s.noteCaps(rt.Name, a.Init.AgentCapabilities)
	return a, nil
}

func (s *Services) agentsList(_ context.Context, _ struct{}) (any, *Error) {
	return s.listAgents()
}

func (s *Services) listAgents() ([]Agent, *Error) {
	cfg, e := s.config()
	if e != nil {
		return nil, e
	}
	if err := cfg.Validate(); err != nil {
		s.log.Warn("agent config", "err", err)
	}
	statuses := s.det.Status(cfg.Runtimes())
	// The names of the keys kept for each agent (read now: the detector's
	// statuses may be older than the last agents.setKey).
	var keys map[string][]string
	if sec, err := runtimes.SecretsFor(s.paths.ConfigFile); err == nil {
		keys = sec.Names()
	} else {
		s.log.Warn("agent keys", "err", err)
	}
	s.mu.Lock()
	known := maps.Clone(s.agentSt)
	s.mu.Unlock()
	caps := s.agentCaps()
	out := make([]Agent, 0, len(statuses))
	for _, st := range statuses {
		rt := st.Runtime
		a := Agent{Name: rt.Name, Title: rt.Title, Command: rt.Command, Args: rt.Args, Builtin: rt.Builtin,
			Path: st.Path, Hint: st.Hint, NPMPackage: rt.NPMPackage, Error: st.Error, LoginHint: rt.LoginHint, KeyEnv: rt.KeyEnv, Keys: keys[rt.Name],
			LoginHintKey: rt.LoginHintKey, NotesTools: !rt.NoNotesTools, Registry: rt.Registry}
		if a.Args == nil {
			a.Args = []string{}
		}
		if c, ok := caps[rt.Name]; ok {
			a.Capabilities = &c
		}
		switch {
		case st.Installed:
			a.Status = AgentReady
			if k, ok := known[rt.Name]; ok && k.status != AgentMissing {
				a.Status, a.Error, a.StderrTail = k.status, k.err, k.stderrTail
				a.ErrorReason, a.ErrorParams = k.reason, maps.Clone(k.params)
			}
		case st.Error != "":
			a.Status = AgentFailed
			// The detector keeps only the sentence: an agent without a
			// command, else one whose command cannot be resolved.
			a.ErrorReason = ReasonAgentStartFailed
			if strings.TrimSpace(rt.Command) == "" {
				a.ErrorReason = ReasonAgentNoCommand
			}
			a.ErrorParams = addParams(nil, "agent", rt.Title)
		default:
			a.Status = AgentMissing
			a.InstallNote, a.InstallNoteKey = rt.InstallNote, rt.InstallNoteKey
		}
		out = append(out, a)
	}
	return out, nil
}

type nameArgs struct {
	Name string `json:"name"`
}

// found is a named agent and its executable.
func (s *Services) found(name string) (runtimes.Runtime, runtimes.Resolved, *Error) {
	rt, e := s.runtime(name)
	if e != nil {
		return rt, runtimes.Resolved{}, e
	}
	res, e := s.resolve(rt)
	return rt, res, e
}

func (s *Services) agentsCheck(ctx context.Context, a nameArgs) (any, *Error) {
	rt, res, e := s.found(a.Name)
	if e != nil {
		return nil, e
	}
	start := time.Now()
	ag, err := s.startAgent(ctx, rt, res, s.defaultCwd(), min(s.initTimeout(rt), 60*time.Second))
	if err != nil {
		s.noteAgent(rt.Name, err)
		return nil, errorFrom("", err)
	}
	elapsed := time.Since(start)
	ag.Stop()
	in := ag.Init
	out := AgentCheck{Name: rt.Name, Protocol: in.ProtocolVersion, LoadSession: in.AgentCapabilities.LoadSession,
		AuthMethods: authMethods(in.AuthMethods, res.Path), StartMs: elapsed.Milliseconds()}
	if in.AgentInfo != nil {
		out.AgentName, out.AgentVersion = in.AgentInfo.Name, in.AgentInfo.Version
	}
	if st := s.agentStatus(rt.Name); st.status != AgentNeedsLogin {
		s.noteAgent(rt.Name, nil)
	}
	return out, nil
}

func (s *Services) agentStatus(name string) agentState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agentSt[name]
}

// authMethods describes an agent's login methods; agentPath is its
// executable (a terminal method without a command of its own runs it).
func authMethods(in []acp.AuthMethod, agentPath string) []AuthMethod {
	out := make([]AuthMethod, 0, len(in))
	for _, m := range in {
		am := AuthMethod{ID: m.ID, Name: m.Name, Description: m.Description, EnvVars: m.EnvVars()}
		if t, ok := m.Terminal(); ok {
			cmd := t.Command
			if cmd == "" {
				cmd = agentPath
			}
			if cmd != "" {
				am.Command = envPrefix(t.Env) + runtimes.CommandLine(cmd, t.Args)
			}
		}
		out = append(out, am)
	}
	return out
}

// envPrefix is "A=1 B=2 " for a command line.
func envPrefix(env map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(env)) {
		b.WriteString(k + "=" + runtimes.CommandLine(env[k], nil) + " ")
	}
	return b.String()
}

// initTimeout is the agent's start timeout: its own (config.json
// init_timeout_secs; slow first starts), else the app's.
func (s *Services) initTimeout(rt runtimes.Runtime) time.Duration {
	if rt.InitTimeoutSecs > 0 {
		return time.Duration(rt.InitTimeoutSecs) * time.Second
	}
	return s.cfg.InitTimeout
}

type customArgs struct {
	Name    string            `json:"name"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

func (s *Services) agentsSaveCustom(_ context.Context, a customArgs) (any, *Error) {
	name := strings.TrimSpace(a.Name)
	if name == "" || strings.ContainsAny(name, "\x00\n\r") {
		return nil, badRequest("the agent needs a name").why(ReasonAgentNameRequired)
	}
	if strings.TrimSpace(a.Command) == "" {
		return nil, badRequest("the agent %q needs a command", name).why(ReasonAgentCommandRequired, "agent", name)
	}
	for k := range a.Env {
		if runtimes.IsDeniedEnv(k) {
			return nil, badRequest("the variable %s is mnote's own secret and cannot be given to an agent", k).why(ReasonSecretVariable, "variable", k)
		}
	}
	cfg, e := s.config()
	if e != nil {
		return nil, e
	}
	if cfg.AgentServers == nil {
		cfg.AgentServers = map[string]runtimes.AgentServer{}
	}
	entry := cfg.AgentServers[name] // keeps keys mnote does not know
	entry.Command = a.Command
	entry.Args = slices.Clone(a.Args)
	if entry.Args == nil {
		entry.Args = []string{}
	}
	entry.Env = maps.Clone(a.Env)
	cfg.AgentServers[name] = entry
	if err := runtimes.SaveConfig(s.paths.ConfigFile, cfg); err != nil {
		return nil, newError(CodeWriteFailed, "%w", err).why(ReasonConfigWriteFailed)
	}
	s.noteAgent(name, nil)
	return s.listAgents()
}

func (s *Services) agentsRemoveCustom(_ context.Context, a nameArgs) (any, *Error) {
	cfg, e := s.config()
	if e != nil {
		return nil, e
	}
	entry, ok := cfg.AgentServers[a.Name]
	if !ok {
		return nil, (&Error{Code: CodeNotFound, Message: fmt.Sprintf("there is no custom agent named %q", a.Name)}).why(ReasonAgentUnknown, "agent", a.Name)
	}
	delete(cfg.AgentServers, a.Name)
	if err := runtimes.SaveConfig(s.paths.ConfigFile, cfg); err != nil {
		return nil, newError(CodeWriteFailed, "%w", err).why(ReasonConfigWriteFailed)
	}
	// An agent installed from the ACP Registry goes with its folder.
	if src := entry.Registry; src != nil {
		if err := RegistryInstaller(s.paths, s.det).Remove(src.ID, src.Version); err != nil {
			s.log.Warn("remove a registry agent's folder", "agent", a.Name, "err", err)
		}
	}
	return s.listAgents()
}

// needsAuthError describes an agent that wants the user to log in.
func needsAuthError(title, agentPath string, methods []acp.AuthMethod, err error) *Error {
	e := (&Error{Code: CodeNeedsAuth, cause: err}).why(ReasonAgentNeedsAuth, "agent", title)
	if len(methods) == 0 {
		e.Message = fmt.Sprintf("%s needs you to log in first (run it once in a terminal and log in).", title)
		return e
	}
	names := make([]string, len(methods))
	lines := make([]string, 0, len(methods))
	for i, m := range authMethods(methods, agentPath) {
		names[i] = m.Name
		line := m.ID + ": " + m.Name
		if m.Description != "" {
			line += " — " + m.Description
		}
		if m.Command != "" {
			line += "\n  run in a terminal: " + m.Command
		}
		if len(m.EnvVars) > 0 {
			line += "\n  or give its key: " + strings.Join(m.EnvVars, ", ")
		}
		lines = append(lines, line)
	}
	e.Message = fmt.Sprintf("%s needs you to log in first; it offers: %s.", title, strings.Join(names, ", "))
	e.with("methods", strings.Join(names, ", "))
	e.Details = strings.Join(lines, "\n")
	return e
}

// bindError turns a failure to start or bind an agent into an Error. An
// agent that wants a login is told of the keys mnote held back from it.
func (s *Services) bindError(rt runtimes.Runtime, a *acp.Agent, err error) *Error {
	if errors.Is(err, acp.ErrAuthRequired) {
		var methods []acp.AuthMethod
		if a != nil {
			methods = a.Init.AuthMethods
		}
		return needsAuthError(rt.Title, rt.Command, methods, err).heldBack(rt.Name, s.det.HeldBack(rt))
	}
	e := errorFrom("", err).with("agent", rt.Title)
	if e.Code == CodeInternal {
		e.Code = CodeAgentFailed
	}
	if e.Reason == "" {
		e.Reason = ReasonAgentStartFailed
	}
	if e.Details == "" && a != nil {
		e.Details = a.StderrTail(20)
	}
	return e
}
