package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A user's MCP server keeps its secrets like an agent's key: --set-key
// context_server:NAME VAR puts them in secrets.json (not config.json),
// and no agent of that name is needed.
func TestSetKeyForAContextServer(t *testing.T) {
	h := newHarness(t)
	const value = "sk-mcp-0123456789"
	c := h.cmd("agents", "--set-key", "context_server:web", "WEB_KEY")
	c.Stdin = strings.NewReader(value + "\n")
	if out, err := c.CombinedOutput(); err != nil || !strings.Contains(string(out), "WEB_KEY kept in") {
		t.Fatalf("set-key: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(h.home, "secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Agents map[string]map[string]string }
	if err := json.Unmarshal(b, &f); err != nil || f.Agents["context_server:web"]["WEB_KEY"] != value {
		t.Fatalf("secrets.json: %s (%v)", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.home, "config.json")); strings.Contains(string(b), value) {
		t.Error("config.json holds the secret")
	}
}

// `mnote mcp` is for agents mnote starts: without its socket and token it
// says so and fails.
func TestMCPNeedsItsEnvironment(t *testing.T) {
	h := newHarness(t)
	r := h.run("mcp")
	if r.code == 0 || !strings.Contains(r.stderr, "MNOTE_MCP_SOCKET") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}
