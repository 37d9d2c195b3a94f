package agents_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/acp/acptest/fakemodel"
	"mnote/internal/testenv"
)

func TestMain(m *testing.M) { acptest.Main(m) }

const (
	notePath = "notes/hello.md"
	prompt1  = "Add a line 'hi' to notes/hello.md"
	prompt2  = "Add a line 'hi' to notes/hello.md again"
	prompt3  = "[stall] Think about notes/hello.md for a long while"
	answer   = `Done: I added a line "hi" to notes/hello.md.`
	// nsPort is the fake model's port inside a private network namespace
	// (every agent process has its own, so one port serves all).
	nsPort = 18080
)

// agentSpec is how to set up and drive one published agent.
type agentSpec struct {
	name    string   // mnote runtime name (a preset)
	command string   // the command in the agents' bin folder
	args    []string // its ACP arguments
	// setup writes the agent's own configuration under h.agentHome and
	// returns the environment it needs (besides its key).
	setup func(h *harness) map[string]string
	// keyVar, when set, is the variable that carries the model key, given
	// with `mnote agents --set-key` (so the key reaches the agent only
	// through mnote's secrets); otherwise setup wrote the key itself.
	keyVar string
	// options are --option flags for every turn.
	options []string
	// models is the shape in which its session/new and session/load
	// results offer models: "config" (a config option of category
	// "model"), "legacy" (the "models" field) or "both".
	models string
	// writesItself: the agent also edits the file on disk itself, not
	// only through the client's fs/write_text_file (OpenCode).
	writesItself bool
	// bin, when set, is the agent's command (the test agent standing in
	// for a published one that is not installed) instead of command in
	// the agents' bin folder.
	bin string
}

// harness is one agent's world: its HOME, mnote's MNOTE_HOME, a workspace,
// and the fake model's request log.
type harness struct {
	t                  *testing.T
	spec               agentSpec
	root               string // every file of this harness is under it
	mnote, agentBin    string
	agentHome, mnoteHm string
	ws, modelLog       string
	netns              bool
	port               int
	apiKey             string
}

var (
	netnsOnce sync.Once
	netnsOK   bool
	netnsWhy  string
)

// canUnshare reports whether `unshare -rn` with a loopback works here.
func canUnshare() (bool, string) {
	netnsOnce.Do(func() {
		if os.Getenv("MNOTE_E2E_NO_NETNS") == "1" {
			netnsWhy = "MNOTE_E2E_NO_NETNS=1"
			return
		}
		unshare, err := exec.LookPath("unshare")
		if err != nil {
			netnsWhy = "unshare not found"
			return
		}
		if _, err := exec.LookPath("ip"); err != nil {
			netnsWhy = "ip (iproute2) not found"
			return
		}
		out, err := exec.Command(unshare, testenv.UnshareNet(), "sh", "-c", "ip link set lo up").CombinedOutput()
		if err != nil {
			netnsWhy = fmt.Sprintf("unshare %s failed: %v %s", testenv.UnshareNet(), err, bytes.TrimSpace(out))
			return
		}
		netnsOK = true
	})
	return netnsOK, netnsWhy
}

// requireNetns reports whether the agents run in a private network
// namespace. Where none can be made they run on the host's loopback, where
// nothing stops them from reaching the network. Under MNOTE_E2E_AGENTS=1
// or MNOTE_REQUIRE_ALL=1 (`make test` sets both) that fails the test
// unless MNOTE_E2E_NO_NETNS=1 asks for it; otherwise it is logged.
func requireNetns(t *testing.T) bool {
	t.Helper()
	ok, why := canUnshare()
	if ok {
		return true
	}
	msg := "no private network namespace for the agent (" + why + "): it would run on the host's loopback and could reach the network"
	if os.Getenv("MNOTE_E2E_NO_NETNS") != "1" && (os.Getenv("MNOTE_E2E_AGENTS") == "1" || testenv.Required()) {
		t.Fatal(msg + " (MNOTE_E2E_AGENTS=1 or " + testenv.RequireAllEnv + "=1, as in `make test`; MNOTE_E2E_NO_NETNS=1 allows it)")
	}
	t.Log(msg)
	return false
}

// agentsBin is the folder with the agents' commands.
func agentsBin() string {
	if d := os.Getenv("MNOTE_AGENTS_BIN"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", ".cache", "agents", "bin")
}

// newHarness finds the agent (skipping or failing when it is missing),
// builds mnote and the fake model, and lays out the folders.
func newHarness(t *testing.T, spec agentSpec) *harness {
	t.Helper()
	switch os.Getenv("MNOTE_E2E_AGENTS") {
	case "0":
		t.Skip("MNOTE_E2E_AGENTS=0: the end-to-end tests with published agents are off")
	}
	bin := filepath.Join(agentsBin(), spec.command)
	if spec.bin != "" {
		bin = spec.bin
	}
	if _, err := os.Stat(bin); err != nil {
		msg := fmt.Sprintf("%s is not installed (%s missing): run scripts/agents.sh first", spec.name, bin)
		if os.Getenv("MNOTE_E2E_AGENTS") == "1" {
			t.Fatal(msg + " (MNOTE_E2E_AGENTS=1 makes a missing agent a failure)")
		}
		t.Skip(msg + " (MNOTE_E2E_AGENTS=1 makes this a failure)")
	}
	netns := requireNetns(t)
	root := t.TempDir()
	h := &harness{
		t: t, spec: spec, agentBin: bin, root: root,
		mnote:     acptest.Mnote(t),
		agentHome: filepath.Join(root, "agent-home"),
		mnoteHm:   filepath.Join(root, "mnote-home"),
		ws:        filepath.Join(root, "notes-folder"),
		modelLog:  filepath.Join(root, "model-requests.jsonl"),
		apiKey:    "sk-fake-" + spec.name + "-4f1c9e",
	}
	for _, d := range []string{h.agentHome, h.mnoteHm, filepath.Join(h.ws, "notes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(h.ws, notePath), []byte("# Hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.netns = netns
	h.port = nsPort
	if !h.netns {
		h.port = freePort(t)
	}
	h.writeConfig()
	return h
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// modelURL is the fake model's base URL as the agent sees it.
func (h *harness) modelURL() string { return fmt.Sprintf("http://127.0.0.1:%d", h.port) }

// writeConfig makes the agent's preset run the agent under the fake model
// launcher (in a private network namespace when possible), with the
// agent's environment, and gives its key through mnote's secrets.
func (h *harness) writeConfig() {
	t := h.t
	fake := acptest.FakeModel(t)
	// The script (with the key the server requires) is a file outside
	// MNOTE_HOME: the agent's command line is recorded in transcripts and
	// logs, and the key must reach the agent only through mnote's secrets.
	script, _ := json.Marshal(fakemodel.Script{Dir: h.ws, APIKey: h.apiKey, Notes: notesScript})
	scriptFile := filepath.Join(filepath.Dir(h.modelLog), "model-script.json")
	if err := os.WriteFile(scriptFile, script, 0o600); err != nil {
		t.Fatal(err)
	}
	// The prompt cache outlives an agent process (as DeepSeek's does):
	// the next process's fake model starts with it.
	launch := []string{fake, "--addr", fmt.Sprintf("127.0.0.1:%d", h.port), "--log", h.modelLog, "--script", scriptFile,
		"--cache-file", filepath.Join(filepath.Dir(h.modelLog), "model-cache.json")}
	if dir := os.Getenv("MNOTE_E2E_MODEL_BODIES"); dir != "" {
		// For finding out what an agent sends: whole request bodies,
		// the log copied to DIR when the test ends.
		launch = append(launch, "--log-bodies")
		t.Cleanup(func() {
			if b, err := os.ReadFile(h.modelLog); err == nil {
				_ = os.WriteFile(filepath.Join(dir, t.Name()+".jsonl"), b, 0o600)
			}
			logs, _ := filepath.Glob(filepath.Join(h.mnoteHm, "logs", "*"))
			for _, l := range logs {
				if b, err := os.ReadFile(l); err == nil {
					_ = os.WriteFile(filepath.Join(dir, t.Name()+"-"+filepath.Base(l)), b, 0o600)
				}
			}
		})
	}
	launch = append(launch, "--")
	launch = append(append(launch, h.agentBin), h.spec.args...)
	command, args := launch[0], launch[1:]
	if h.netns {
		unshare, _ := exec.LookPath("unshare")
		command = unshare
		args = append([]string{testenv.UnshareNet(), "sh", "-c", `ip link set lo up && exec "$0" "$@"`}, launch...)
	}
	env := h.spec.setup(h)
	entry := map[string]any{"command": command, "args": args, "env": env}
	doc, _ := json.Marshal(map[string]any{"agent_servers": map[string]any{h.spec.name: entry}})
	if err := os.WriteFile(filepath.Join(h.mnoteHm, "config.json"), doc, 0o600); err != nil {
		t.Fatal(err)
	}
	if h.spec.keyVar != "" {
		c := h.cmd(t.Context(), "agents", "--set-key", h.spec.name, h.spec.keyVar)
		c.Stdin = strings.NewReader(h.apiKey + "\n")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("mnote agents --set-key: %v\n%s", err, out)
		}
	}
}

func (h *harness) write(rel, content string) {
	h.t.Helper()
	p := filepath.Join(h.agentHome, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) cmd(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, h.mnote, args...)
	c.Env = append(os.Environ(), "MNOTE_HOME="+h.mnoteHm)
	c.Dir = h.ws
	c.WaitDelay = 5 * time.Second
	return c
}

// result is one `mnote prompt --json` run.
type result struct {
	code          int
	stdout        string
	stderr        string
	lines         []map[string]any
	took          time.Duration
	toSession     time.Duration // until the session line (agent started, session bound)
	toStop        time.Duration // until the stop line (turn over)
	before, after int           // the model's request count before and after
}

func (r *result) ofType(typ string) []map[string]any {
	var out []map[string]any
	for _, l := range r.lines {
		if l["type"] == typ {
			out = append(out, l)
		}
	}
	return out
}

func (r *result) text() string {
	var b strings.Builder
	for _, l := range r.ofType("message_chunk") {
		b.WriteString(l["text"].(string))
	}
	return b.String()
}

func (r *result) session() map[string]any {
	if s := r.ofType("session"); len(s) > 0 {
		return s[0]
	}
	return map[string]any{}
}

func (r *result) stop() map[string]any {
	if s := r.ofType("stop"); len(s) > 0 {
		return s[len(s)-1]
	}
	return map[string]any{}
}

// promptArgs are the arguments of one turn.
func (h *harness) promptArgs(session, text string) []string {
	args := []string{"prompt", "--json", "--approve", "all", "--timeout", "2m"}
	if session == "" {
		args = append(args, "--agent", h.spec.name, "--cwd", h.ws)
	} else {
		args = append(args, "--session", session)
	}
	for _, o := range h.spec.options {
		args = append(args, "--option", o)
	}
	return append(args, text)
}

// prompt runs one turn in a fresh mnote process. With cancelOn set, it
// sends SIGINT (Ctrl+C) once a line of that type comes out.
func (h *harness) prompt(session, text, cancelOn string) *result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), 3*time.Minute)
	defer cancel()
	r := &result{before: len(h.requests())}
	c := h.cmd(ctx, h.promptArgs(session, text)...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		h.t.Fatal(err)
	}
	var stdout strings.Builder
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	signalled := false
	for sc.Scan() {
		line := sc.Text()
		stdout.WriteString(line + "\n")
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			r.lines = append(r.lines, m)
			switch m["type"] {
			case "session":
				r.toSession = time.Since(start)
			case "stop":
				r.toStop = time.Since(start)
			}
			if cancelOn != "" && !signalled && m["type"] == cancelOn {
				signalled = true
				_ = c.Process.Signal(syscall.SIGINT)
			}
		}
	}
	err = c.Wait()
	r.took = time.Since(start)
	r.stdout, r.stderr = stdout.String(), stderr.String()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		h.t.Fatalf("mnote prompt: %v\n%s", err, r.stderr)
	}
	r.after = len(h.requests())
	h.noLeftovers()
	h.t.Logf("%s: %q: exit %d, %d model requests; session bound after %s, turn over after %s, mnote exited after %s",
		h.spec.name, text, r.code, r.after-r.before, r.toSession.Round(time.Millisecond), r.toStop.Round(time.Millisecond), r.took.Round(time.Millisecond))
	return r
}

// noLeftovers checks that no process of the agent's is left once mnote
// has exited: the agent, its children, the fake model launcher and the
// namespace's shell all carry the harness's folders in their command line
// or environment. (Agents differ in whether they exit when stdin closes;
// mnote stops the whole process group.)
func (h *harness) noLeftovers() {
	h.t.Helper()
	var left []string
	for range 40 {
		left = left[:0]
		pids, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range pids {
			for _, f := range []string{"cmdline", "environ"} {
				b, err := os.ReadFile(filepath.Join(p, f))
				if err == nil && bytes.Contains(b, []byte(h.root)) {
					cmd, _ := os.ReadFile(filepath.Join(p, "cmdline"))
					left = append(left, filepath.Base(p)+": "+strings.ReplaceAll(string(bytes.TrimRight(cmd, "\x00")), "\x00", " "))
					break
				}
			}
		}
		if len(left) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.t.Errorf("processes left after mnote exited:\n%s", strings.Join(left, "\n"))
}

// requests reads the fake model's request log.
func (h *harness) requests() []fakemodel.Request {
	h.t.Helper()
	reqs, err := fakemodel.ReadLog(h.modelLog)
	if err != nil {
		h.t.Fatal(err)
	}
	return reqs
}

// show runs `mnote show ID --json` (a fresh process reading the
// transcript) and returns the thread and session info.
func (h *harness) show(id string) (thread map[string]any, info map[string]any) {
	h.t.Helper()
	out, err := h.cmd(h.t.Context(), "show", "--json", id).Output()
	if err != nil {
		h.t.Fatalf("mnote show: %v", err)
	}
	var v struct {
		Thread map[string]any `json:"thread"`
		Info   map[string]any `json:"info"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		h.t.Fatalf("mnote show output: %v\n%s", err, out)
	}
	return v.Thread, v.Info
}

func (h *harness) note() string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.ws, notePath))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// transcript reads a session's transcript records (kind and data).
func (h *harness) transcript(path string) []map[string]any {
	h.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			h.t.Fatalf("transcript line %s: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// modelShape says in which shape the result of the last `method` request
// in recs offers models: "config", "legacy", "both" or "".
func modelShape(recs []map[string]any, method string) string {
	var id any
	var result map[string]any
	for _, r := range recs {
		data, _ := r["data"].(map[string]any)
		switch {
		case r["dir"] == "out" && r["kind"] == method && data != nil:
			id, result = data["id"], nil
		case r["dir"] == "in" && r["kind"] == "response" && data != nil && id != nil && data["id"] == id:
			result, _ = data["result"].(map[string]any)
		}
	}
	models, _ := result["models"].(map[string]any)
	legacy := len(models) > 0
	config := false
	opts, _ := result["configOptions"].([]any)
	for _, o := range opts {
		if m, _ := o.(map[string]any); m["category"] == "model" && m["type"] == "select" {
			config = true
		}
	}
	switch {
	case config && legacy:
		return "both"
	case config:
		return "config"
	case legacy:
		return "legacy"
	}
	return ""
}

func kinds(recs []map[string]any) map[string]int {
	out := map[string]int{}
	for _, r := range recs {
		out[fmt.Sprint(r["dir"], " ", r["kind"])]++
	}
	return out
}
