package acp

import (
	"encoding/json"

	"mnote/thread"
)

// ProtocolVersion is the ACP schema version this client speaks.
const ProtocolVersion = 1

// InitializeResult is the agent's answer to initialize. It is decoded
// leniently (unknown fields and shapes never fail it); Raw keeps all of it.
type InitializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentInfo         *Implementation   `json:"agentInfo,omitempty"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AuthMethods       []AuthMethod      `json:"authMethods"`
	Raw               json.RawMessage   `json:"-"`
}

// Implementation names a program and its version.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// AgentCapabilities are what the agent says it supports. The session
// capabilities are objects on the wire; present means supported.
type AgentCapabilities struct {
	LoadSession        bool `json:"loadSession"`
	PromptCapabilities struct {
		Image           bool `json:"image"`
		Audio           bool `json:"audio"`
		EmbeddedContext bool `json:"embeddedContext"`
	} `json:"promptCapabilities"`
	SessionCapabilities struct {
		List   json.RawMessage `json:"list,omitempty"`
		Resume json.RawMessage `json:"resume,omitempty"`
		Close  json.RawMessage `json:"close,omitempty"`
		Delete json.RawMessage `json:"delete,omitempty"`
		Fork   json.RawMessage `json:"fork,omitempty"`
		// AdditionalDirectories: the agent takes extra roots besides
		// cwd (session/new, load, resume and list).
		AdditionalDirectories json.RawMessage `json:"additionalDirectories,omitempty"`
	} `json:"sessionCapabilities"`
	McpCapabilities struct {
		HTTP bool `json:"http"`
		SSE  bool `json:"sse"`
	} `json:"mcpCapabilities"`
	Auth struct {
		Logout json.RawMessage `json:"logout,omitempty"`
	} `json:"auth"`
}

func present(r json.RawMessage) bool { return len(r) > 0 && string(r) != "null" }

// CanResume reports the session/resume capability.
func (c AgentCapabilities) CanResume() bool { return present(c.SessionCapabilities.Resume) }

// CanList reports the session/list capability.
func (c AgentCapabilities) CanList() bool { return present(c.SessionCapabilities.List) }

// CanAddDirectories reports the additionalDirectories capability.
func (c AgentCapabilities) CanAddDirectories() bool {
	return present(c.SessionCapabilities.AdditionalDirectories)
}

// AuthMethod is one way to authenticate with the agent. Type is "agent"
// (the default: the client calls authenticate), "terminal" (the user runs
// the agent's binary with Args in a terminal) or "env_var" (the user gives
// the values of Vars); agents also put a terminal method's type and args
// in _meta, or a {"terminal-auth": {command, args, env}} object there.
// Everything but id, name and description stays raw so that an odd shape
// never fails initialize.
type AuthMethod struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Type        string          `json:"type,omitempty"`
	Args        json.RawMessage `json:"args,omitempty"`
	Env         json.RawMessage `json:"env,omitempty"`
	Vars        json.RawMessage `json:"vars,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// TerminalAuth is how to run a terminal auth method: Command (empty: the
// agent's own executable) with Args and Env.
type TerminalAuth struct {
	Command string
	Args    []string
	Env     map[string]string
}

// Terminal reports whether the method is a terminal method, and how to run
// it.
func (m AuthMethod) Terminal() (TerminalAuth, bool) {
	var meta struct {
		Type         string          `json:"type"`
		Args         json.RawMessage `json:"args"`
		Env          json.RawMessage `json:"env"`
		TerminalAuth *struct {
			Command string          `json:"command"`
			Args    json.RawMessage `json:"args"`
			Env     json.RawMessage `json:"env"`
		} `json:"terminal-auth"`
	}
	if present(m.Meta) {
		_ = json.Unmarshal(m.Meta, &meta) // free-form: an unknown shape is no terminal method
	}
	switch {
	case m.Type == "terminal":
		return TerminalAuth{Args: stringList(m.Args), Env: stringMap(m.Env)}, true
	case meta.TerminalAuth != nil:
		ta := meta.TerminalAuth
		return TerminalAuth{Command: ta.Command, Args: stringList(ta.Args), Env: stringMap(ta.Env)}, true
	case m.Type == "" && meta.Type == "terminal":
		return TerminalAuth{Args: stringList(meta.Args), Env: stringMap(meta.Env)}, true
	}
	return TerminalAuth{}, false
}

// EnvVars are the variables of an env_var method (their names).
func (m AuthMethod) EnvVars() []string {
	if m.Type != "env_var" {
		return nil
	}
	var vars []struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(m.Vars, &vars)
	var out []string
	for _, v := range vars {
		if v.Name != "" {
			out = append(out, v.Name)
		}
	}
	return out
}

func stringList(raw json.RawMessage) []string {
	var out []string
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

func stringMap(raw json.RawMessage) map[string]string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		} else if b, err := json.Marshal(v); err == nil {
			out[k] = string(b)
		}
	}
	return out
}

// SessionSetup is what session/new and session/load may return besides the
// id: modes, models and config options, kept raw for the UI.
type SessionSetup struct {
	SessionID     string          `json:"sessionId,omitempty"`
	Modes         json.RawMessage `json:"modes,omitempty"`
	Models        json.RawMessage `json:"models,omitempty"`
	ConfigOptions json.RawMessage `json:"configOptions,omitempty"`
}

// PromptResult is how a turn ended.
type PromptResult struct {
	StopReason string          `json:"stopReason"`
	Usage      json.RawMessage `json:"usage,omitempty"`
	// Killed is set when the agent ignored a cancel and was killed.
	Killed bool `json:"-"`
}

// Stop reasons.
const (
	StopEndTurn   = "end_turn"
	StopCancelled = "cancelled"
)

// PermissionOption is one of the choices an agent offers.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// PermissionRequest is a session/request_permission call.
type PermissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  json.RawMessage    `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
	// Decoded from ToolCall for convenience.
	ToolCallID string `json:"-"`
	Title      string `json:"-"`
	Kind       string `json:"-"`
}

// PermissionDecision is the user's answer. An empty OptionID means the
// request was cancelled.
type PermissionDecision struct {
	OptionID string
	// By says who decided, for the record: "user" (the default), "rule"
	// (a remembered choice) or "auto" (a policy such as --approve all).
	By string
}

type promptParams struct {
	SessionID string                `json:"sessionId"`
	Prompt    []thread.ContentBlock `json:"prompt"`
}

type sessionParams struct {
	SessionID             string            `json:"sessionId,omitempty"`
	Cwd                   string            `json:"cwd"`
	McpServers            []json.RawMessage `json:"mcpServers"`
	AdditionalDirectories []string          `json:"additionalDirectories,omitempty"`
}

type sessionIDParams struct {
	SessionID string `json:"sessionId"`
}
