package cli_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/acptest"
)

// keyEnv is a clean environment for mnote holding two providers' keys
// (and nothing else that looks like one), in locale loc.
func (h *harness) keyEnv(loc string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.t.TempDir(), "MNOTE_HOME=" + h.home, "LC_ALL=" + loc,
		"ANTHROPIC_API_KEY=sk-ant-from-shell", "OPENAI_API_KEY=sk-openai-from-shell"}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// A newcomer with provider keys exported: the Claude Code preset (the test
// agent in its place, config.json overriding only its command) gets
// ANTHROPIC_API_KEY and not OPENAI_API_KEY, Codex the other way round.
func TestPresetGetsItsOwnProvidersKey(t *testing.T) {
	h := newHarness(t)
	entry := fmt.Sprintf(`{"command":%q,"args":["--state",%q]}`, h.agent, h.state)
	doc := `{"agent_servers":{"claude-code":` + entry + `,"codex":` + entry + `}}`
	if err := os.WriteFile(filepath.Join(h.home, "config.json"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	steps := acptest.Steps(`{"envSha256":"ANTHROPIC_API_KEY"}`, `{"message":"; "}`, `{"envSha256":"OPENAI_API_KEY"}`)
	h.env = h.keyEnv("C")
	for agent, want := range map[string]string{
		"claude-code": "env ANTHROPIC_API_KEY sha256: " + sha("sk-ant-from-shell") + "; env OPENAI_API_KEY: unset",
		"codex":       "env ANTHROPIC_API_KEY: unset; env OPENAI_API_KEY sha256: " + sha("sk-openai-from-shell"),
	} {
		r := h.run("prompt", "--json", "--agent", agent, steps)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", agent, r.code, r.stderr)
		}
		if got := r.text(); got != want {
			t.Errorf("%s saw %q, want %q", agent, got, want)
		}
	}
}

// An agent that asks to log in while mnote held back a key from it: mnote
// prompt exits 5 and says which variable it did not get and how to give
// it (in the system's language); a key the agent did get is not named.
// --json's error line lists them.
func TestNeedsAuthHintNamesHeldBackKey(t *testing.T) {
	h := newHarness(t)
	entry := fmt.Sprintf(`{"command":%q,"args":["--scenario-json","{\"authRequired\":true}"]}`, h.agent)
	if err := os.WriteFile(filepath.Join(h.home, "config.json"), []byte(`{"agent_servers":{"claude-code":`+entry+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	prompt := func(loc string, args ...string) run {
		h.env = h.keyEnv(loc)
		return h.run(append(append([]string{"prompt", "--agent", "claude-code"}, args...), "hello")...)
	}
	r := prompt("C")
	if r.code != 5 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"the agent needs authentication",
		"Claude Code did not get these variables of your environment (mnote gives an agent only its own provider's keys): OPENAI_API_KEY.",
		"mnote agents --set-key claude-code OPENAI_API_KEY", "config.json"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "ANTHROPIC_API_KEY") || strings.Contains(r.stderr, "sk-") {
		t.Errorf("stderr names a key the agent got, or a value:\n%s", r.stderr)
	}

	zh := prompt("zh_CN.UTF-8")
	if zh.code != 5 || !strings.Contains(zh.stderr, "Claude Code 没有拿到你环境中的这些变量") || !strings.Contains(zh.stderr, "mnote agents --set-key claude-code OPENAI_API_KEY") {
		t.Errorf("in Chinese: exit %d\n%s", zh.code, zh.stderr)
	}

	j := prompt("C", "--json")
	last := j.last()
	if j.code != 5 || last["type"] != "error" || fmt.Sprint(last["heldBack"]) != "[OPENAI_API_KEY]" {
		t.Errorf("--json: exit %d, last line %v", j.code, last)
	}
}
