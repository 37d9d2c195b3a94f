package app_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
)

// agentCalls reads the lifecycle calls the test agent noted in its state
// folder (session/close ID, session/delete ID, logout).
func agentCalls(t *testing.T, state string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(state, "calls.log"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// agentSessionIDs are the sessions the test agent keeps in its state.
func agentSessionIDs(t *testing.T, state string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(state, "ta-*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range m {
		ids = append(ids, strings.TrimSuffix(filepath.Base(p), ".jsonl"))
	}
	return ids
}

func (h *harness) agentNamed(name string) app.Agent {
	h.t.Helper()
	var agents []app.Agent
	h.mustCall("agents.list", struct{}{}, &agents)
	for _, a := range agents {
		if a.Name == name {
			return a
		}
	}
	h.t.Fatalf("no agent %s", name)
	return app.Agent{}
}

// Closing a session's tab releases the agent's session with session/close
// when the agent advertises it (for that session only), and sends nothing
// to an agent that does not.
func TestSessionCloseReleasesAgentSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	state := t.TempDir()
	h.saveAgent("closer", append([]string{"--state", state}, acptest.Scenario(`{"close":true}`)...)...)

	other := h.create("closer")
	sum := h.create("closer")
	h.turnDone(sum.ID, `{"message":"hi"}`)
	h.turnDone(other.ID, `{"message":"hi"}`)
	before := agentSessionIDs(t, state)
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	calls := agentCalls(t, state)
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "session/close ta-") {
		t.Fatalf("agent saw %v", calls)
	}
	closed := strings.TrimPrefix(calls[0], "session/close ")
	found := false
	for _, id := range before {
		found = found || id == closed
	}
	if !found || len(before) != 2 {
		t.Fatalf("closed %s, agent sessions %v", closed, before)
	}
	// The other session goes on in the same process; the closed one
	// continues with session/load.
	h.turnDone(other.ID, `{"message":"still here"}`)
	if tp := h.turnDone(sum.ID, `{"message":"back"}`); tp.StopReason != "end_turn" {
		t.Fatalf("reopened turn: %+v", tp)
	}
	if c := h.agentNamed("closer").Capabilities; c == nil || !c.Close || c.Delete || c.Logout {
		t.Fatalf("capabilities: %+v", c)
	}

	// The default test agent does not advertise close: nothing is sent.
	plain := h.create("test")
	h.turnDone(plain.ID, `{"message":"hi"}`)
	h.mustCall("sessions.close", map[string]any{"id": plain.ID}, nil)
	if got := agentCalls(t, h.state); len(got) != 0 {
		t.Fatalf("agent without close saw %v", got)
	}
	if c := h.agentNamed("test").Capabilities; c == nil || c.Close {
		t.Fatalf("capabilities of the plain agent: %+v", c)
	}
}

// Deleting a session with agentCopy deletes the agent's own copy too
// (session/delete after session/close); an agent that does not offer it
// refuses before anything is deleted.
func TestSessionDeleteAgentCopy(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	state := t.TempDir()
	h.saveAgent("deleter", append([]string{"--state", state}, acptest.Scenario(`{"close":true,"delete":true}`)...)...)
	sum := h.create("deleter")
	h.turnDone(sum.ID, `{"message":"hi"}`)
	ids := agentSessionIDs(t, state)
	if len(ids) != 1 {
		t.Fatalf("agent sessions %v", ids)
	}
	h.mustCall("sessions.delete", map[string]any{"id": sum.ID, "agentCopy": true}, nil)
	if got := strings.Join(agentCalls(t, state), " | "); got != "session/close "+ids[0]+" | session/delete "+ids[0] {
		t.Fatalf("agent saw %q", got)
	}
	if left := agentSessionIDs(t, state); len(left) != 0 {
		t.Fatalf("agent still keeps %v", left)
	}
	var trash []app.TrashedSession
	h.mustCall("sessions.trash", struct{}{}, &trash)
	if len(trash) != 1 || trash[0].ID != sum.ID {
		t.Fatalf("trash %+v", trash)
	}

	// Without the capability: refused, nothing deleted.
	plain := h.create("test")
	h.turnDone(plain.ID, `{"message":"hi"}`)
	e := h.call("sessions.delete", map[string]any{"id": plain.ID, "agentCopy": true}, nil)
	if e == nil || e.Code != app.CodeBadRequest || e.Reason != app.ReasonAgentCannotDeleteSessions {
		t.Fatalf("delete without the capability: %+v", e)
	}
	if _, err := os.Stat(h.paths.TranscriptPath(plain.ID)); err != nil {
		t.Fatalf("the session was deleted: %v", err)
	}
	// A session never bound has no agent's copy.
	h.mustCall("sessions.delete", map[string]any{"id": plain.ID}, nil)
}

// Sign out: logout is sent to an agent that offers it; it is then
// needs_login and its next session asks to sign in again.
func TestAgentLogout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	auth := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(auth, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	h.saveAgent("signed", append([]string{"--state", state}, acptest.Scenario(`{"logout":true,"authRequired":true,`+
		`"authMethods":[{"id":"x","name":"X"}],"authFile":`+q(auth)+`}`)...)...)
	sum := h.create("signed") // signed in: the auth file is there
	h.turnDone(sum.ID, `{"message":"hi"}`)
	if c := h.agentNamed("signed").Capabilities; c == nil || !c.Logout {
		t.Fatalf("capabilities: %+v", c)
	}
	var agents []app.Agent
	h.mustCall("agents.logout", map[string]any{"name": "signed"}, &agents)
	if got := agentCalls(t, state); len(got) != 1 || got[0] != "logout" {
		t.Fatalf("agent saw %v", got)
	}
	if _, err := os.Stat(auth); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("still signed in: %v", err)
	}
	if a := h.agentNamed("signed"); a.Status != app.AgentNeedsLogin {
		t.Fatalf("status after logout: %+v", a)
	}
	if e := h.call("sessions.create", map[string]any{"agent": "signed"}, nil); e == nil || e.Code != app.CodeNeedsAuth {
		t.Fatalf("a new session after logout: %+v", e)
	}
	// An agent without logout refuses.
	h.mustCall("agents.check", map[string]any{"name": "test"}, nil)
	if e := h.call("agents.logout", map[string]any{"name": "test"}, nil); e == nil || e.Reason != app.ReasonAgentCannotLogout {
		t.Fatalf("logout without the capability: %+v", e)
	}
}
