package acp_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"mnote/acp"
	"mnote/acp/acptest"
)

// The auth method shapes real agents send (recorded from Reasonix 1.38.11,
// Qwen Code 0.24.4 and OpenCode 1.18.33), Zed's terminal-auth _meta, and
// an env_var method.
func TestAuthMethodShapes(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		term       *acp.TerminalAuth
		vars       []string
	}{
		{"reasonix", `{"id":"reasonix-setup","name":"Reasonix setup","description":"Configure Reasonix providers and credentials in a terminal","type":"terminal","args":["setup"]}`,
			&acp.TerminalAuth{Args: []string{"setup"}}, nil},
		{"qwen", `{"id":"openai","name":"Use OpenAI API key","description":"Requires setting the OPENAI_API_KEY environment variable","_meta":{"type":"terminal","args":["--auth-type=openai"]}}`,
			&acp.TerminalAuth{Args: []string{"--auth-type=openai"}}, nil},
		{"opencode", `{"description":"Run opencode auth login in the terminal","name":"Login with opencode","id":"opencode-login"}`, nil, nil},
		{"zed terminal-auth", `{"id":"login","name":"Log in","_meta":{"terminal-auth":{"command":"/usr/bin/agent-login","args":["--device"],"env":{"MODE":"tty","N":2},"label":"Log in"}}}`,
			&acp.TerminalAuth{Command: "/usr/bin/agent-login", Args: []string{"--device"}, Env: map[string]string{"MODE": "tty", "N": "2"}}, nil},
		{"env var", `{"id":"key","name":"API key","type":"env_var","vars":[{"name":"OPENAI_API_KEY","label":"Key"},{"name":"OPENAI_BASE_URL","optional":true}]}`,
			nil, []string{"OPENAI_API_KEY", "OPENAI_BASE_URL"}},
		{"odd shapes do not fail", `{"id":"x","name":"X","args":"not a list","_meta":"nope","vars":{"a":1}}`, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m acp.AuthMethod
			if err := json.Unmarshal([]byte(tc.json), &m); err != nil {
				t.Fatal(err)
			}
			term, ok := m.Terminal()
			if ok != (tc.term != nil) || (ok && !reflect.DeepEqual(term, *tc.term)) {
				t.Errorf("Terminal() = %+v, %v; want %+v", term, ok, tc.term)
			}
			if got := m.EnvVars(); !reflect.DeepEqual(got, tc.vars) {
				t.Errorf("EnvVars() = %v, want %v", got, tc.vars)
			}
		})
	}
}

// auth_required (-32000) on session/prompt is ErrAuthRequired, as it is on
// session/new: the client shows "log in", not a crash.
func TestPromptAuthRequired(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	s, _ := newSession(t, a, newRecorder(), nil)
	_, err := s.Prompt(t.Context(), textPrompt(acptest.Steps(`{"error":{"code":-32000,"message":"Authentication required"}}`)))
	if !errors.Is(err, acp.ErrAuthRequired) {
		t.Fatalf("prompt error = %v, want ErrAuthRequired", err)
	}
	// The session is still usable once the user has logged in.
	if res := prompt(t, s, "hello"); res.StopReason != acp.StopEndTurn {
		t.Fatalf("next turn: %+v", res)
	}
}

// Agents whose provider refuses the key report it with a generic code;
// the message decides (Reasonix 1.38.11's text, recorded).
func TestRPCErrorIsAuth(t *testing.T) {
	for _, tc := range []struct {
		err  acp.RPCError
		auth bool
	}{
		{acp.RPCError{Code: -32000, Message: "Authentication required"}, true},
		{acp.RPCError{Code: -32603, Message: `session/prompt: authentication failed for provider "deepseek · Chat Completions" (HTTP 401): DEEPSEEK_API_KEY from Reasonix credentials (.env) is invalid or expired`}, true},
		{acp.RPCError{Code: -32603, Message: "Request failed: 401 Unauthorized"}, true},
		{acp.RPCError{Code: -32603, Message: "model overloaded, retry later"}, false},
		{acp.RPCError{Code: -32602, Message: "unauthorized path"}, false}, // only internal errors are read
	} {
		if got := tc.err.IsAuth(); got != tc.auth {
			t.Errorf("%+v: IsAuth = %v", tc.err, got)
		}
	}
}
