package runtimes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// contextServersKey is the top-level key of config.json holding the
// user's own MCP servers, in Zed's shape:
//
//	"context_servers": {
//	  "web":   {"command": "web-mcp", "args": ["--stdio"], "env": {"K": "V"}},
//	  "old":   {"command": {"path": "x", "args": [], "env": {}}},
//	  "cloud": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer …"}},
//	  "off":   {"command": "y", "enabled": false}
//	}
//
// mnote passes them to every agent session (a url only to agents that
// take HTTP MCP servers). The key is kept verbatim by SaveConfig.
const contextServersKey = "context_servers"

// ContextServerSecretsName is the name the secrets of a context server
// are kept under in secrets.json (SetSecret(path,
// ContextServerSecretsName(name), VAR, value)): like agents' keys, they
// reach the server's environment and are never written to config.json,
// logged or recorded.
func ContextServerSecretsName(name string) string { return "context_server:" + name }

// ContextServer is one of the user's MCP servers: a command (stdio) or a
// URL (streamable HTTP).
type ContextServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

type contextServerFields struct {
	Command json.RawMessage   `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Enabled *bool             `json:"enabled"`
}

// ContextServers are the enabled entries of "context_servers", sorted by
// name, with their kept secrets merged into Env.
func (c Config) ContextServers() ([]ContextServer, error) {
	raw, ok := c.extra[contextServersKey]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var entries map[string]*contextServerFields
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("%s: %w", contextServersKey, err)
	}
	var out []ContextServer
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		f := entries[name]
		if f == nil || (f.Enabled != nil && !*f.Enabled) {
			continue
		}
		cs := ContextServer{Name: name, Args: f.Args, Env: f.Env, URL: f.URL, Headers: f.Headers}
		if cmd := bytes.TrimSpace(f.Command); len(cmd) > 0 && cmd[0] == '{' {
			var old struct { // Zed's older shape
				Path string            `json:"path"`
				Args []string          `json:"args"`
				Env  map[string]string `json:"env"`
			}
			if err := json.Unmarshal(cmd, &old); err != nil {
				return nil, fmt.Errorf("%s[%q].command: %w", contextServersKey, name, err)
			}
			cs.Command, cs.Args, cs.Env = old.Path, old.Args, old.Env
		} else if len(cmd) > 0 && string(cmd) != "null" {
			if err := json.Unmarshal(cmd, &cs.Command); err != nil {
				return nil, fmt.Errorf("%s[%q].command: %w", contextServersKey, name, err)
			}
		}
		if (cs.Command == "") == (cs.URL == "") {
			return nil, fmt.Errorf("%s[%q]: give either a command or a url", contextServersKey, name)
		}
		if kept := c.secrets.For(ContextServerSecretsName(name)); len(kept) > 0 {
			if cs.Env == nil {
				cs.Env = map[string]string{}
			}
			maps.Copy(cs.Env, kept)
		}
		out = append(out, cs)
	}
	return out, nil
}
