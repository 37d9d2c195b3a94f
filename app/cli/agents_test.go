package cli_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mnote/acp/acptest"
)

// saveConfig writes MNOTE_HOME/config.json with one custom agent entry.
func (h *harness) saveConfig(name, entry string) {
	h.t.Helper()
	doc := fmt.Sprintf(`{"agent_servers":{%q:%s}}`, name, entry)
	if err := os.WriteFile(filepath.Join(h.home, "config.json"), []byte(doc), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// A key given with --set-key is kept in a private file, reaches the agent's
// environment, and is written nowhere else: not in the transcript, the
// index, the logs, or mnote's output.
func TestSetKeyReachesAgentOnly(t *testing.T) {
	h := newHarness(t)
	h.saveConfig("Key Agent", fmt.Sprintf(`{"command":%q}`, h.agent))
	const value = "sk-live-0123456789abcdef"

	c := h.cmd("agents", "--set-key", "key agent", "MY_API_KEY")
	c.Stdin = strings.NewReader(value + "\n")
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "MY_API_KEY kept in") || strings.Contains(string(out), value) {
		t.Fatalf("set-key: %v\n%s", err, out)
	}
	secrets := filepath.Join(h.home, "secrets.json")
	for path, want := range map[string]os.FileMode{secrets: 0o600, h.home: 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", path, fi.Mode().Perm(), want, err)
		}
	}

	r := h.run("prompt", "--json", "--agent", "Key Agent", acptest.Steps(`{"envSha256":"MY_API_KEY"}`))
	sum := sha256.Sum256([]byte(value))
	if r.code != 0 || r.text() != "env MY_API_KEY sha256: "+hex.EncodeToString(sum[:]) {
		t.Fatalf("exit %d, agent saw %q\n%s", r.code, r.text(), r.stderr)
	}
	list := h.run("agents", "--json")
	if list.code != 0 || !strings.Contains(list.stdout, `"MY_API_KEY"`) {
		t.Errorf("agents --json does not list the key's name: %s", list.stdout)
	}
	for _, o := range []string{r.stdout, r.stderr, list.stdout, list.stderr} {
		if strings.Contains(o, value) {
			t.Errorf("mnote printed the key: %s", o)
		}
	}
	// Nothing under MNOTE_HOME but secrets.json holds it (transcripts,
	// mnote.db and its WAL, agent logs).
	n := 0
	filepath.WalkDir(h.home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == secrets {
			return err
		}
		n++
		if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(value)) {
			t.Errorf("%s holds the key", path)
		}
		return nil
	})
	if n < 3 {
		t.Errorf("only %d files checked; the transcript and index should be there", n)
	}

	// An empty line removes the key; the agent no longer has it.
	c = h.cmd("agents", "--set-key", "Key Agent", "MY_API_KEY")
	c.Stdin = strings.NewReader("\n")
	if out, err := c.CombinedOutput(); err != nil || !strings.Contains(string(out), "removed") {
		t.Fatalf("remove: %v %s", err, out)
	}
	if r := h.run("prompt", "--json", "--agent", "Key Agent", acptest.Steps(`{"envSha256":"MY_API_KEY"}`)); r.text() != "env MY_API_KEY: unset" {
		t.Errorf("after removal the agent saw %q", r.text())
	}
	// Bad names and mnote's own secrets are refused.
	for _, name := range []string{"MNOTE_SYNC_TOKEN", "1X"} {
		c := h.cmd("agents", "--set-key", "Key Agent", name)
		c.Stdin = strings.NewReader("v\n")
		if err := c.Run(); err == nil {
			t.Errorf("--set-key %s accepted", name)
		}
	}
}

// --check shows each auth method and, for terminal methods, the exact
// command to run; env_var methods and preset key variables say how to
// give a key.
func TestCheckShowsHowToLogIn(t *testing.T) {
	h := newHarness(t)
	methods := `[{"id":"reasonix-setup","name":"Reasonix setup","type":"terminal","args":["setup"]},` +
		`{"id":"openai","name":"Use OpenAI API key","_meta":{"type":"terminal","args":["--auth-type=openai"]}},` +
		`{"id":"key","name":"API key","type":"env_var","vars":[{"name":"ACME_API_KEY"}]}]`
	h.saveConfig("qwen", fmt.Sprintf(`{"command":%q,"args":["--scenario-json",%q]}`, h.agent, `{"authMethods":`+methods+`}`))
	r := h.run("agents", "--check", "qwen")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"in a terminal, run: " + h.agent + " setup",
		"in a terminal, run: " + h.agent + " --auth-type=openai",
		"give ACME_API_KEY: mnote agents --set-key qwen ACME_API_KEY",
		"to log in: run `qwen` once",
		"or a key: mnote agents --set-key qwen OPENAI_API_KEY",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in\n%s", want, r.stdout)
		}
	}
	// Under a Chinese locale the hints are in Chinese, the preset's too.
	h.env = append(os.Environ(), "MNOTE_HOME="+h.home, "LC_ALL=zh_CN.UTF-8")
	z := h.run("agents", "--check", "qwen")
	h.env = nil
	for _, want := range []string{
		"在终端中运行：" + h.agent + " setup",
		"提供 ACME_API_KEY：mnote agents --set-key qwen ACME_API_KEY",
		"登录方法：运行一次 `qwen` 并用 /auth 登录",
		"或者提供密钥：mnote agents --set-key qwen OPENAI_API_KEY",
	} {
		if !strings.Contains(z.stdout, want) {
			t.Errorf("zh-CN: missing %q in\n%s", want, z.stdout)
		}
	}
	j := h.run("agents", "--check", "qwen", "--json")
	if j.code != 0 || !strings.Contains(j.stdout, `"command": "`+h.agent+` setup"`) || !strings.Contains(j.stdout, `"loginHint"`) {
		t.Errorf("--check --json: %s", j.stdout)
	}
}

// auth_required (-32000) in the middle of a session, on session/prompt,
// is the "log in" exit code 5, with the agent's message.
func TestPromptAuthRequiredOnPrompt(t *testing.T) {
	h := newHarness(t)
	r := h.run("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(`{"error":{"code":-32000,"message":"Authentication required: run agent login"}}`))
	if r.code != 5 || !strings.Contains(r.stderr, "needs authentication") || !strings.Contains(r.stderr, "run agent login") {
		t.Fatalf("exit %d (want 5): %s", r.code, r.stderr)
	}
}

// Reasonix's cache figures (its vendor notification) come out as a usage
// line of --json and stay in the transcript, which `mnote show` reads.
func TestPromptCacheUsageLine(t *testing.T) {
	h := newHarness(t)
	status := `{"notify":{"method":"_reasonix.io/session/status_update","params":{"sessionId":"%s","status":{"usage":` +
		`{"turn":{"cacheHitTokens":2521,"cacheMissTokens":1341,"cacheHitRatio":0.6527},"cumulative":{"cacheHitTokens":2521,"cacheMissTokens":1341,"cacheHitRatio":null}}}}}}`
	// The test agent's session ids are random: a notification for no
	// session is not routed, so take the id from a first run.
	first := h.run("prompt", "--json", "--agent-cmd", h.agentCmd(""), "hello")
	if first.code != 0 {
		t.Fatalf("exit %d: %s", first.code, first.stderr)
	}
	sid, agentSID := first.lines[0]["sessionId"].(string), first.lines[0]["agentSessionId"].(string)
	r := h.run("prompt", "--json", "--session", sid, acptest.Steps(fmt.Sprintf(status, agentSID), `{"message":"done"}`))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var cache map[string]any
	for _, l := range r.ofType("usage") {
		if c, ok := l["cache"].(map[string]any); ok {
			cache = c
		}
	}
	turn, _ := cache["turn"].(map[string]any)
	session, _ := cache["session"].(map[string]any)
	if turn["hitTokens"] != 2521.0 || turn["missTokens"] != 1341.0 || turn["hitRatio"] != 0.6527 || session["hitRatio"].(float64) < 0.65 {
		t.Fatalf("usage line cache = %v\n%s", cache, r.stdout)
	}
	b, err := os.ReadFile(filepath.Join(h.home, "data", "transcripts", sid+".jsonl"))
	if err != nil || !bytes.Contains(b, []byte(`"kind":"_reasonix.io/session/status_update"`)) {
		t.Errorf("transcript lacks the status notification: %v", err)
	}
}

// --option sets a session config option (session/set_config_option)
// before the turn, like Reasonix's tool_approval; an agent's
// init_timeout_secs bounds its start.
func TestPromptOptionAndInitTimeout(t *testing.T) {
	h := newHarness(t)
	setup := `{"sessionNewResult":{"configOptions":[{"id":"tool_approval","name":"Permissions","category":"tool_approval","type":"select",` +
		`"currentValue":"workspace-write","options":[{"value":"read-only","name":"Read only"},{"value":"workspace-write","name":"Workspace access"}]}]}}`
	r := h.run("prompt", "--json", "--option", "tool_approval=read-only", "--agent-cmd", h.agentCmd(setup), "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(h.home, "data", "transcripts", r.lines[0]["sessionId"].(string)+".jsonl"))
	if err != nil || !bytes.Contains(b, []byte(`"method":"session/set_config_option","params":{"configId":"tool_approval"`)) ||
		!bytes.Contains(b, []byte(`"currentValue":"read-only"`)) {
		t.Errorf("set_config_option not in the transcript: %v", err)
	}
	if r := h.run("prompt", "--option", "no-equals", "--agent-cmd", h.agent, "x"); r.code != 2 {
		t.Errorf("--option without = : exit %d", r.code)
	}

	h.saveConfig("slow", fmt.Sprintf(`{"command":%q,"args":["--scenario-json","{\"initializeDelayMs\":60000}"],"init_timeout_secs":1}`, h.agent))
	start := time.Now()
	r = h.run("prompt", "--agent", "slow", "x")
	if r.code != 3 || !strings.Contains(r.stderr, "no answer within 1s") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("took %s with init_timeout_secs 1", el)
	}
}
