package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/internal/testenv"
)

func TestMain(m *testing.M) { acptest.Main(m) }

// harness runs the real mnote binary against the test agent, with all of
// mnote's data in a temporary MNOTE_HOME.
type harness struct {
	t     *testing.T
	bin   string
	agent string
	home  string
	ws    string
	state string
	env   []string // mnote's whole environment when set (else the test's, with MNOTE_HOME)
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, bin: acptest.Mnote(t), agent: acptest.TestAgent(t), home: t.TempDir(), ws: t.TempDir(), state: t.TempDir()}
	return h
}

func (h *harness) cmd(args ...string) *exec.Cmd {
	c := exec.CommandContext(h.t.Context(), h.bin, args...)
	c.Env = append(os.Environ(), "MNOTE_HOME="+h.home)
	if h.env != nil {
		c.Env = h.env
	}
	c.Dir = h.ws
	return c
}

// agentCmd is the --agent-cmd value for the test agent.
func (h *harness) agentCmd(scenario string) string {
	s := h.agent + " --state " + h.state
	if scenario != "" {
		s += " --scenario-json '" + scenario + "'"
	}
	return s
}

type run struct {
	code   int
	stdout string
	stderr string
	lines  []map[string]any
}

func (h *harness) run(args ...string) run {
	h.t.Helper()
	c := h.cmd(args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	r := run{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("run mnote %v: %v", args, err)
	}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			r.lines = append(r.lines, m)
		}
	}
	return r
}

func (r run) ofType(typ string) []map[string]any {
	var out []map[string]any
	for _, l := range r.lines {
		if l["type"] == typ {
			out = append(out, l)
		}
	}
	return out
}

func (r run) last() map[string]any {
	if len(r.lines) == 0 {
		return nil
	}
	return r.lines[len(r.lines)-1]
}

func (r run) text() string {
	var b strings.Builder
	for _, l := range r.ofType("message_chunk") {
		b.WriteString(l["text"].(string))
	}
	return b.String()
}

func TestPromptJSON(t *testing.T) {
	h := newHarness(t)
	r := h.run("prompt", "--json", "--approve", "all", "--agent-cmd", h.agentCmd(""), acptest.Steps(
		`{"thought":"thinking hard"}`,
		`{"message":"Hello, world","chunk":5}`,
		`{"toolCall":{"toolCallId":"t1","title":"Edit note","kind":"edit","status":"pending","content":[{"type":"diff","path":"/n.md","oldText":"a","newText":"b"}]}}`,
		`{"permission":{"toolCall":{"toolCallId":"t1"}}}`,
		`{"toolCallUpdate":{"toolCallId":"t1","status":"completed"}}`,
		`{"plan":[{"content":"step","priority":"high","status":"completed"}]}`,
		`{"usage":{"used":1200,"size":128000,"cost":{"amount":0.01,"currency":"USD"}}}`,
	))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := r.text(); got != "Hello, worldpermission: selected allow" {
		t.Fatalf("text %q", got)
	}
	for _, typ := range []string{"session", "thought_chunk", "tool_call", "tool_call_update", "plan", "usage", "permission", "stop"} {
		if len(r.ofType(typ)) == 0 {
			t.Errorf("no %q line in\n%s", typ, r.stdout)
		}
	}
	stop := r.last()
	if stop["type"] != "stop" || stop["stopReason"] != "end_turn" || stop["updates"].(float64) != 9 {
		t.Fatalf("stop line %v", stop)
	}
	if stop["sessionId"] != r.lines[0]["sessionId"] {
		t.Fatalf("session ids differ: %v %v", stop, r.lines[0])
	}
	// The transcript says the policy decided, not a person.
	b, err := os.ReadFile(filepath.Join(h.home, "data", "transcripts", stop["sessionId"].(string)+".jsonl"))
	if err != nil || !strings.Contains(string(b), `"kind":"permission_decided","data":{"by":"auto"`) {
		t.Errorf("permission_decided record: %v\n%s", err, b)
	}
}

func TestPromptExitCodes(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"usage: no text", []string{"prompt", "--agent-cmd", h.agent}, 2, "usage"},
		{"usage: bad approve", []string{"prompt", "--approve", "maybe", "--agent-cmd", h.agent, "x"}, 2, "--approve"},
		{"usage: unknown agent", []string{"prompt", "--agent", "nope", "x"}, 2, "no agent named"},
		{"agent missing", []string{"prompt", "--agent-cmd", "/nonexistent/agent", "x"}, 3, "nonexistent"},
		{"crash", []string{"prompt", "--agent-cmd", h.agent, acptest.Steps(`{"stderr":"boom"}`, `{"crash":9}`)}, 3, "exited with code 9"},
		{"refusal is an answer", []string{"prompt", "--agent-cmd", h.agent, acptest.Steps(`{"stop":"refusal"}`)}, 0, ""},
		{"auth", []string{"prompt", "--agent-cmd", h.agentCmd(`{"authRequired":true,"authMethods":[{"id":"login","name":"Log in"}]}`), "x"}, 5, "authentication"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.run(tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr+r.stdout, tc.want) {
				t.Fatalf("exit %d (want %d), output %q %q", r.code, tc.code, r.stdout, r.stderr)
			}
		})
	}
	// The agent's stderr is kept in a log file under the state folder.
	b, err := os.ReadFile(filepath.Join(h.home, "logs", "agent-custom.log"))
	if err != nil || !strings.Contains(string(b), "boom") || !strings.Contains(string(b), "crashing with 9") {
		t.Errorf("agent log: %q %v", b, err)
	}
}

// SIGINT cancels the turn cleanly: the agent gets session/cancel, the
// answer is stopReason cancelled, exit code 4.
func TestPromptSIGINT(t *testing.T) {
	h := newHarness(t)
	c := h.cmd("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(`{"message":"started"}`, `{"waitForCancel":true}`))
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), "started") {
			c.Process.Signal(syscall.SIGINT)
		}
	}
	err = c.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 4 {
		t.Fatalf("exit: %v; output %q", err, lines)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, `"stopReason":"cancelled"`) {
		t.Fatalf("last line %s", last)
	}
}

func TestPromptFloodCountsEveryUpdate(t *testing.T) {
	h := newHarness(t)
	const n = 50000
	r := h.run("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(fmt.Sprintf(`{"flood":%d,"mix":"bench"}`, n)))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if stop := r.last(); stop["updates"].(float64) != n {
		t.Fatalf("stop %v", stop)
	}
	if got := len(r.ofType("message_chunk")) + len(r.ofType("thought_chunk")) + len(r.ofType("tool_call")) + len(r.ofType("tool_call_update")); got != n {
		t.Fatalf("printed %d update lines, want %d", got, n)
	}
}

func TestPromptTextModeAndStdin(t *testing.T) {
	h := newHarness(t)
	c := h.cmd("prompt", "--agent-cmd", h.agent, "-")
	c.Stdin = strings.NewReader(acptest.Steps(`{"thought":"hmm"}`, `{"message":"The answer."}`))
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%v", err)
	}
	if !strings.Contains(string(out), "thinking: hmm") || !strings.Contains(string(out), "The answer.") || strings.Contains(string(out), "\x1b[") {
		t.Fatalf("output %q", out)
	}
}

func TestAgentsListAndCheck(t *testing.T) {
	h := newHarness(t)
	cfg := fmt.Sprintf(`{"agent_servers":{"Test Agent":{"command":%q,"args":["--scenario-json","{\"authMethods\":[{\"id\":\"key\",\"name\":\"API key\"}]}"]}}}`, h.agent)
	if err := os.WriteFile(filepath.Join(h.home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.run("agents")
	if r.code != 0 || !strings.Contains(r.stdout, "claude-code") || !strings.Contains(r.stdout, "Test Agent") || !strings.Contains(r.stdout, "detected (custom)") {
		t.Fatalf("agents: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = h.run("agents", "--check", "test agent")
	if r.code != 0 || !strings.Contains(r.stdout, "mnote-testagent 0.1.0") || !strings.Contains(r.stdout, "auth method:  key — API key") || !strings.Contains(r.stdout, "load session: true") {
		t.Fatalf("check: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = h.run("agents", "--check", "qwen")
	if r.code == 0 {
		t.Fatalf("check of a missing agent succeeded: %s", r.stdout)
	}
}

// wait polls cond until it holds or the deadline passes.
func wait(t *testing.T, d time.Duration, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// On a terminal, --approve ask (the default) asks, and the choice goes to
// the agent. `script` gives the command a pseudo-terminal.
func TestPromptAsksOnTerminal(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		testenv.SkipOrFail(t, "script (util-linux) not installed")
	}
	h := newHarness(t)
	steps := acptest.Steps(`{"permission":{"toolCall":{"toolCallId":"x","title":"Delete notes","kind":"delete"}}}`)
	c := exec.CommandContext(t.Context(), scriptBin, "-q", "-e", "-c", h.bin+" prompt --agent-cmd "+h.agent+" '"+steps+"'", "/dev/null")
	c.Env = append(os.Environ(), "MNOTE_HOME="+h.home, "LC_ALL=C")
	stdin, _ := c.StdinPipe()
	var out syncBuffer
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if !wait(t, 20*time.Second, func() bool { return strings.Contains(out.String(), "Choose a number") }) {
		c.Process.Kill()
		t.Fatalf("no question on the terminal: %q", out.String())
	}
	stdin.Write([]byte("3\n")) // Reject
	if err := c.Wait(); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	for _, want := range []string{"Delete notes [delete]", "3) Reject\r\n", "permission: selected reject"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in %q", want, out.String())
		}
	}
}

// syncBuffer is a strings.Builder safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A second SIGINT ends mnote at once, even if the first one's clean stop
// is still waiting (here: for an agent that ignores cancel).
func TestSecondSIGINTKills(t *testing.T) {
	h := newHarness(t)
	c := h.cmd("prompt", "--json", "--agent-cmd", h.agentCmd(`{"ignoreCancel":true}`), acptest.Steps(`{"message":"started"}`, `{"waitForCancel":true}`))
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() && !strings.Contains(sc.Text(), "started") {
	}
	c.Process.Signal(syscall.SIGINT)
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	c.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.Process.Kill()
		t.Fatal("a second SIGINT did not end mnote")
	}
	t.Logf("ended %s after the second SIGINT", time.Since(start))
}
