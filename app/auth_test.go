package app_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
)

// Logging in: the check shows a terminal method's exact command and a key
// method's variables; a key given in the app reaches the agent's
// environment, is kept 0600 and never shown again.
func TestAgentLogin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.saveAgent("locked", acptest.Scenario(`{"authMethods":[`+
		`{"id":"tty","name":"Log in","type":"terminal","args":["login","--device"]},`+
		`{"id":"key","name":"API key","type":"env_var","vars":[{"name":"LOCKED_API_KEY"}]}]}`)...)
	var chk app.AgentCheck
	h.mustCall("agents.check", map[string]any{"name": "locked"}, &chk)
	if len(chk.AuthMethods) != 2 || !strings.HasSuffix(chk.AuthMethods[0].Command, "mnote-testagent login --device") ||
		chk.AuthMethods[1].Command != "" || len(chk.AuthMethods[1].EnvVars) != 1 || chk.AuthMethods[1].EnvVars[0] != "LOCKED_API_KEY" {
		t.Fatalf("auth methods: %+v", chk.AuthMethods)
	}

	const key = "sk-test-9f8e7d6c5b4a"
	var agents []app.Agent
	h.mustCall("agents.setKey", map[string]any{"name": "locked", "var": "LOCKED_API_KEY", "value": key}, &agents)
	for _, a := range agents {
		if a.Name == "locked" && (len(a.Keys) != 1 || a.Keys[0] != "LOCKED_API_KEY") {
			t.Fatalf("keys of the agent: %+v", a)
		}
	}
	sum := h.create("locked")
	h.turnDone(sum.ID, `{"envSha256":"LOCKED_API_KEY"}`)
	want := sha256.Sum256([]byte(key))
	if got := strings.Join(h.answers(sum.ID), "\n"); !strings.Contains(got, hex.EncodeToString(want[:])) {
		t.Fatalf("the agent's env: %q", got)
	}
	// Kept 0600, and nowhere else.
	var found []string
	filepath.Walk(filepath.Dir(h.paths.ConfigFile), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
				found = append(found, p)
				if info.Mode().Perm() != 0o600 {
					t.Errorf("%s holds the key with mode %v", p, info.Mode().Perm())
				}
			}
		}
		return nil
	})
	if len(found) != 1 || !strings.HasSuffix(found[0], "secrets.json") {
		t.Fatalf("the key is in %v", found)
	}
	// Removing it.
	agents = nil
	h.mustCall("agents.setKey", map[string]any{"name": "locked", "var": "LOCKED_API_KEY", "value": ""}, &agents)
	for _, a := range agents {
		if a.Name == "locked" && len(a.Keys) != 0 {
			t.Fatalf("after removing: %+v", a)
		}
	}
	if e := h.call("agents.setKey", map[string]any{"name": "locked", "var": "MNOTE_SYNC_TOKEN", "value": "x"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("mnote's own secret as an agent key: %v", e)
	}
}

// Sign-in: ACP authenticate runs with the method the user picked; a method
// the agent did not offer is refused before anything is sent; after it the
// agent is ready and a session starts (the agent keeps its login, as real
// ones do, in a file).
func TestAgentAuthenticate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	authFile := filepath.Join(t.TempDir(), "login")
	h.saveAgent("locked", acptest.Scenario(`{"authRequired":true,"authFile":`+q(authFile)+`,"authMethods":[`+
		`{"id":"browser","name":"Sign in with a browser"},{"id":"tty","name":"Log in","type":"terminal","args":["login"]}]}`)...)
	if e := h.call("sessions.create", map[string]any{"agent": "locked"}, nil); codeOf(e) != app.CodeNeedsAuth {
		t.Fatalf("a session before the sign-in: %v", e)
	}
	if a := agentNamed(t, h, "locked"); a.Status != app.AgentNeedsLogin {
		t.Fatalf("before the sign-in: %+v", a)
	}
	for _, bad := range []string{"", "nope"} {
		if e := h.call("agents.authenticate", map[string]any{"name": "locked", "method": bad}, nil); codeOf(e) != app.CodeBadRequest {
			t.Fatalf("authenticate with method %q: %v", bad, e)
		}
	}
	if _, err := os.Stat(authFile); err == nil {
		t.Fatal("the agent was authenticated with a method it does not offer")
	}
	var agents []app.Agent
	h.mustCall("agents.authenticate", map[string]any{"name": "locked", "method": "browser"}, &agents)
	if b, err := os.ReadFile(authFile); err != nil || string(b) != "browser\n" {
		t.Fatalf("the agent's login: %q, %v", b, err)
	}
	for _, a := range agents {
		if a.Name == "locked" && a.Status != app.AgentReady {
			t.Fatalf("after the sign-in: %+v", a)
		}
	}
	sum := h.create("locked")
	h.turnDone(sum.ID, `{"message":"in"}`)
}
