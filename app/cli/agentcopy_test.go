package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/acptest"
)

// calls are the lifecycle calls the test agent noted in its state folder.
func (h *harness) calls() string {
	b, _ := os.ReadFile(filepath.Join(h.state, "calls.log"))
	return strings.TrimSpace(string(b))
}

// The text output says what the turn and the session cost (in the
// terminal's language), mnote show too; mnote sessions delete
// --agent-copy has the agent delete its own copy first, and an agent that
// does not offer it leaves the session where it was.
func TestCLICostAndAgentCopy(t *testing.T) {
	h := newHarness(t)
	h.env = append(os.Environ(), "MNOTE_HOME="+h.home, "LC_ALL=C")
	h.saveConfig("Deleter", fmt.Sprintf(`{"command":%q,"args":["--state",%q,"--scenario-json","{\"delete\":true}"]}`, h.agent, h.state))
	r := h.run("prompt", "--json", "--agent", "deleter", acptest.Steps(`{"usage":{"used":1,"size":10,"cost":{"amount":0.01,"currency":"USD"}}}`, `{"message":"hi"}`))
	if r.code != 0 {
		t.Fatalf("prompt: %d %s", r.code, r.stderr)
	}
	id, _ := r.ofType("session")[0]["sessionId"].(string)
	asid, _ := r.ofType("session")[0]["agentSessionId"].(string)
	r = h.run("prompt", "--session", id, "--agent", "deleter", acptest.Steps(`{"usage":{"used":2,"size":10,"cost":{"amount":0.0342,"currency":"USD"}}}`, `{"message":"again"}`))
	if r.code != 0 || !strings.Contains(r.stderr, "Cost: $0.0242 this turn, $0.0342 in this session.") {
		t.Fatalf("prompt text: %d %q", r.code, r.stderr)
	}
	h.env = append(os.Environ(), "MNOTE_HOME="+h.home, "LC_ALL=zh_CN.UTF-8")
	r = h.run("show", id)
	if r.code != 0 || !strings.Contains(r.stdout, "花费：本轮 US$0.0242，本会话共 US$0.0342。") {
		t.Fatalf("show: %d %q %q", r.code, r.stdout, r.stderr)
	}
	h.env = append(os.Environ(), "MNOTE_HOME="+h.home, "LC_ALL=C")

	r = h.run("sessions", "delete", "--agent-copy", id)
	if r.code != 0 || !strings.Contains(r.stdout, asid) {
		t.Fatalf("sessions delete: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if got := h.calls(); got != "session/delete "+asid {
		t.Fatalf("agent saw %q", got)
	}
	if _, err := os.Stat(filepath.Join(h.state, asid+".jsonl")); !os.IsNotExist(err) {
		t.Fatalf("the agent's copy is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.home, "data", "trash", id+".jsonl")); err != nil {
		t.Fatalf("not in the trash: %v", err)
	}

	// An agent without session/delete: refused, nothing deleted.
	r = h.run("prompt", "--json", "--agent-cmd", h.agentCmd(""), "hi")
	plain, _ := r.ofType("session")[0]["sessionId"].(string)
	r = h.run("rm", "--agent-copy", plain)
	if r.code == 0 || !strings.Contains(r.stderr, "does not delete its own sessions") {
		t.Fatalf("rm --agent-copy without the capability: %d %q", r.code, r.stderr)
	}
	r = h.run("sessions", "--json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 || rows[0]["id"] != plain {
		t.Fatalf("sessions after a refused delete: %v %s", err, r.stdout)
	}
}

// mnote agents --logout signs out of an agent that offers it; its next
// session needs a login again.
func TestCLILogout(t *testing.T) {
	h := newHarness(t)
	h.env = append(os.Environ(), "MNOTE_HOME="+h.home, "LC_ALL=C")
	auth := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(auth, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, _ := json.Marshal(fmt.Sprintf(`{"logout":true,"authRequired":true,"authMethods":[{"id":"x","name":"X"}],"authFile":%q}`, auth))
	h.saveConfig("Signed", fmt.Sprintf(`{"command":%q,"args":["--state",%q,"--scenario-json",%s]}`, h.agent, h.state, sc))
	r := h.run("agents", "--check", "signed")
	if r.code != 0 || !strings.Contains(r.stdout, "close: false, delete: false, logout: true") {
		t.Fatalf("check: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = h.run("agents", "--logout", "signed")
	if r.code != 0 || !strings.Contains(r.stdout, "signed out") || h.calls() != "logout" {
		t.Fatalf("logout: %d %q %q calls %q", r.code, r.stdout, r.stderr, h.calls())
	}
	if _, err := os.Stat(auth); !os.IsNotExist(err) {
		t.Fatalf("still signed in: %v", err)
	}
	if r := h.run("prompt", "--agent", "signed", "hi"); r.code == 0 {
		t.Fatalf("a prompt after logout succeeded: %q", r.stdout)
	}
	h.saveConfig("Plain", fmt.Sprintf(`{"command":%q}`, h.agent))
	if r := h.run("agents", "--logout", "plain"); r.code == 0 || !strings.Contains(r.stderr, "no way to sign out") {
		t.Fatalf("logout without the capability: %d %q", r.code, r.stderr)
	}
}
