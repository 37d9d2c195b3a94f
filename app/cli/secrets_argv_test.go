package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mnote/cloudsync/cloudsynctest"
)

// No secret in any child's command line (DESIGN.md §7): every local user
// reads /proc/PID/cmdline. mnote serve runs with sync on (a control plane
// token), an agent that has a key kept with `mnote agents --set-key`, and
// a browser launcher; a turn starts mnote's notes tools (`mnote mcp`, the
// agent's child) and a terminal. While they all run, the command line of
// every descendant of mnote holds none of: the one-time codes (printed and
// launched), the session token, the notes tools' token, the control
// plane token, the agent's key.
func TestNoSecretInChildCommandLines(t *testing.T) {
	h := newHarness(t)

	// The agent, and its key.
	const apiKey = "sk-canary-7f3a9c51d2e84b60a1c2d3e4f5a6b7c8"
	h.saveConfig("Key Agent", fmt.Sprintf(`{"command":%q,"args":["--state",%q]}`, h.agent, h.state))
	if r := h.runIn(apiKey+"\n", "agents", "--set-key", "Key Agent", "MY_API_KEY"); r.code != 0 {
		t.Fatalf("set-key: %d %s", r.code, r.stderr)
	}
	// Sync on, against a real control plane.
	cp := cloudsynctest.New(t)
	cpToken := cp.AddUser("alice")
	if r := h.runIn(cpToken+"\n", "sync", "set", "--url", cp.URL, "--token-stdin"); r.code != 0 {
		t.Fatalf("sync set: %d %s", r.code, r.stderr)
	}
	if r := h.run("sync", "on"); r.code != 0 {
		t.Fatalf("sync on: %d %s", r.code, r.stderr)
	}

	env, argvc := fakeLauncher(t)
	cmd, u, _, exited := startServe(t, h, env, "--workspace", h.ws)
	var launcher []string
	select {
	case launcher = <-argvc:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not run xdg-open")
	}
	// The launched code, from the page the launcher was given.
	var launchedCode string
	if len(launcher) == 2 {
		if b, err := os.ReadFile(launcher[1]); err == nil {
			if m := regexp.MustCompile(`[?&]code=([A-Za-z0-9_-]+)`).FindSubmatch(b); m != nil {
				launchedCode = string(m[1])
			}
		}
	}
	s := &served{t: t, base: "http://" + u.Host, host: u.Host}
	printedCode := u.Query().Get("code")
	st, token := s.exchange(printedCode)
	if st != http.StatusOK {
		t.Fatalf("exchange: %d", st)
	}
	s.token = token

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c, _, err := s.dial(ctx, s.base)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	var sum struct {
		ID string `json:"id"`
	}
	s.mustCall("sessions.create", map[string]any{"agent": "Key Agent"}, &sum)
	// The turn: the notes tools (their MCP server stays up for the
	// session), a terminal that keeps running, then it waits.
	steps := `[{"mcpCall":{"server":"mnote","tool":"list_notes","args":{}}},` +
		`{"terminal":{"command":"sleep","args":["120"]}},` +
		`{"envSha256":"MY_API_KEY"},` +
		`{"sleepMs":120000}]`
	s.mustCall("sessions.prompt", map[string]any{"id": sum.ID, "text": steps}, nil)
	// The agent's answer: an entry, then appended deltas.
	var said string
	readUntil(ctx, t, c, func(ev wsEvent) bool {
		var te struct {
			SessionID string `json:"sessionId"`
			Type      string `json:"type"`
			Payload   struct {
				Kind  string `json:"kind"`
				Text  string `json:"text"`
				Delta string `json:"delta"`
			} `json:"payload"`
		}
		if ev.Name != "thread:event" || json.Unmarshal(ev.Data, &te) != nil || te.SessionID != sum.ID {
			return false
		}
		switch {
		case te.Type == "entry" && te.Payload.Kind == "assistant_message":
			said = te.Payload.Text
		case te.Type == "append":
			said += te.Payload.Delta
		}
		return strings.Contains(said, "env MY_API_KEY sha256:")
	})
	if !strings.Contains(said, "mcp list_notes:") || !strings.Contains(said, "terminal t: created") {
		t.Fatalf("the turn did not start the notes tools and the terminal: %q", said)
	}

	procs := descendants(t, cmd.Process.Pid)
	var mcpToken string
	found := map[string]bool{}
	for _, p := range procs {
		switch {
		case p.has(h.agent):
			found["agent"] = true
		case len(p.argv) == 2 && p.argv[1] == "mcp":
			found["notes tools"] = true
			mcpToken = environ(t, p.pid)["MNOTE_MCP_TOKEN"]
		case strings.Contains(strings.Join(p.argv, " "), "sleep 120"):
			found["terminal"] = true
		case p.has("xdg-open"):
			found["browser launcher"] = true
		}
	}
	for _, want := range []string{"agent", "notes tools", "terminal", "browser launcher"} {
		if !found[want] {
			t.Errorf("no %s among mnote's %d descendants:\n%s", want, len(procs), listProcs(procs))
		}
	}
	if mcpToken == "" {
		t.Fatal("the notes tools' MCP server has no MNOTE_MCP_TOKEN in its environment")
	}
	secrets := map[string]string{
		"the printed one-time code":  printedCode,
		"the launched one-time code": launchedCode,
		"the session token":          token,
		"the notes tools' token":     mcpToken,
		"the control plane token":    cpToken,
		"the agent's key":            apiKey,
	}
	for _, p := range procs {
		for what, v := range secrets {
			if v != "" && p.has(v) {
				t.Errorf("%s is in the command line of pid %d: %q", what, p.pid, p.argv)
			}
		}
		// Whatever the value: no URL with a code or a token.
		if p.has("code=") || p.has("token=") {
			t.Errorf("a URL with a code or token is in the command line of pid %d: %q", p.pid, p.argv)
		}
	}
	for what, v := range secrets {
		if len(v) < 16 {
			t.Errorf("%s is %q: too short to look for", what, v)
		}
	}
	t.Logf("%d descendants of mnote serve checked:\n%s", len(procs), listProcs(procs))

	// A graceful stop ends the agent, its MCP server and the terminal.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
}

// proc is one process: its pid and command line.
type proc struct {
	pid  int
	argv []string
}

// has reports whether s is anywhere in the command line.
func (p proc) has(s string) bool { return strings.Contains(strings.Join(p.argv, "\x00"), s) }

// descendants are every process below pid (children, theirs, …), read
// from /proc: each one's parent from /proc/PID/stat, its command line
// from /proc/PID/cmdline.
func descendants(t *testing.T, pid int) []proc {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	children := map[int][]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		rest := b[bytes.LastIndexByte(b, ')')+1:]
		f := strings.Fields(string(rest))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	var out []proc
	queue := children[pid]
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		queue = append(queue, children[p]...)
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
		if err != nil || len(b) == 0 {
			continue // gone, or a zombie
		}
		out = append(out, proc{pid: p, argv: strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")})
	}
	return out
}

// environ is the environment of pid.
func environ(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

func listProcs(ps []proc) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %d %q\n", p.pid, p.argv)
	}
	return b.String()
}
