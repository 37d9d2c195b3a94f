package acp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"mnote/acp"
	"mnote/acp/acptest"
	"mnote/internal/testenv"
	"mnote/thread"
)

// termHandler is a SessionHandler and TerminalObserver that keeps the
// agent's messages one by one and what the terminals did.
type termHandler struct {
	mu       sync.Mutex
	messages []string
	updates  []string // tool call content, raw
	started  []acp.TerminalInfo
	output   map[string]string
	exits    map[string]acp.TerminalExit
	released []string
	refused  []string
}

func newTermHandler() *termHandler {
	return &termHandler{output: map[string]string{}, exits: map[string]acp.TerminalExit{}}
}

func (h *termHandler) Update(u *thread.Update, _ []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch u.SessionUpdate {
	case thread.KindAgentMessageChunk:
		var b thread.ContentBlock
		if json.Unmarshal(u.Content, &b) == nil {
			h.messages = append(h.messages, b.Text)
		}
	case thread.KindToolCall, thread.KindToolCallUpdate:
		h.updates = append(h.updates, string(u.Content))
	}
}
func (h *termHandler) Line(acp.Dir, string, []byte)                 {}
func (h *termHandler) Notification(string, json.RawMessage, []byte) {}
func (h *termHandler) Bad(error, []byte)                            {}
func (h *termHandler) TerminalStarted(t acp.TerminalInfo) {
	h.lock(func() { h.started = append(h.started, t) })
}
func (h *termHandler) TerminalOutput(id string, data []byte) {
	h.lock(func() { h.output[id] += string(data) })
}
func (h *termHandler) TerminalExited(id string, e acp.TerminalExit) {
	h.lock(func() { h.exits[id] = e })
}
func (h *termHandler) TerminalReleased(id string) {
	h.lock(func() { h.released = append(h.released, id) })
}
func (h *termHandler) TerminalRefused(command, cwd, reason string) {
	h.lock(func() { h.refused = append(h.refused, command+" "+cwd+": "+reason) })
}
func (h *termHandler) lock(f func()) { h.mu.Lock(); defer h.mu.Unlock(); f() }

// said returns the agent message that starts with prefix, without it.
func (h *termHandler) said(t *testing.T, prefix string) string {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.messages {
		if rest, ok := strings.CutPrefix(m, prefix); ok {
			return rest
		}
	}
	t.Fatalf("the agent never said %q; it said %q", prefix, h.messages)
	return ""
}

type outputResult struct {
	Output     string `json:"output"`
	Truncated  bool   `json:"truncated"`
	ExitStatus *struct {
		ExitCode *int    `json:"exitCode"`
		Signal   *string `json:"signal"`
	} `json:"exitStatus"`
}

type exitResult struct {
	ExitCode *int    `json:"exitCode"`
	Signal   *string `json:"signal"`
}

func decode[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return v
}

// termSession starts the test agent and a session whose terminals run in
// a fresh folder.
func termSession(t *testing.T, allow func() error) (*acp.Session, *termHandler, string) {
	t.Helper()
	a := startAgent(t, "", acp.Options{})
	h := newTermHandler()
	dir := t.TempDir()
	s, err := a.NewSession(t.Context(), acp.SessionConfig{Cwd: dir, Handler: h,
		Terminals: &acp.TerminalConfig{Observer: h, Allow: allow}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	t.Cleanup(s.Close)
	return s, h, dir
}

func terminalStep(t *testing.T, fields map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"terminal": fields})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTerminalAdvertised(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	var init struct {
		Params struct {
			ClientCapabilities struct {
				Terminal bool `json:"terminal"`
				Auth     struct {
					Terminal bool `json:"terminal"`
				} `json:"auth"`
			} `json:"clientCapabilities"`
		} `json:"params"`
	}
	if err := json.Unmarshal(a.InitLines[0], &init); err != nil {
		t.Fatal(err)
	}
	if c := init.Params.ClientCapabilities; !c.Terminal || !c.Auth.Terminal {
		t.Fatalf("initialize offers %s", a.InitLines[0])
	}
}

// A coloured printf: the escape sequences arrive as the program wrote
// them, through a real terminal (\n becomes \r\n), and the exit code is 0;
// a command exiting 3 reports 3.
func TestTerminalOutputAndExitCode(t *testing.T) {
	s, h, dir := termSession(t, nil)
	prompt(t, s, acptest.Steps(
		terminalStep(t, map[string]any{"name": "p", "command": "printf", "args": []string{`\033[31mred\033[0m %s\n`, "plain"}, "toolCallId": "call-1"}),
		`{"terminalWait":"p"}`, `{"terminalOutput":"p"}`, `{"terminalRelease":"p"}`,
		terminalStep(t, map[string]any{"name": "three", "command": "sh", "args": []string{"-c", `test -t 1 && printf '%s' "$PWD|$GREETING"; exit 3`},
			"env": []map[string]string{{"name": "GREETING", "value": "hi"}}}),
		`{"terminalWait":"three"}`, `{"terminalOutput":"three"}`, `{"terminalRelease":"three"}`,
	))
	ex := decode[exitResult](t, h.said(t, "terminal p exit: "))
	if ex.ExitCode == nil || *ex.ExitCode != 0 || ex.Signal != nil {
		t.Fatalf("printf exit %+v", ex)
	}
	out := decode[outputResult](t, h.said(t, "terminal p output: "))
	if out.Output != "\x1b[31mred\x1b[0m plain\r\n" || out.Truncated || out.ExitStatus == nil || *out.ExitStatus.ExitCode != 0 {
		t.Fatalf("printf output %+v", out)
	}
	h.said(t, "terminal p: released")
	ex = decode[exitResult](t, h.said(t, "terminal three exit: "))
	if ex.ExitCode == nil || *ex.ExitCode != 3 {
		t.Fatalf("exit 3 reported as %+v", ex)
	}
	// Its own terminal (test -t), the session's folder, the request's env.
	if out := decode[outputResult](t, h.said(t, "terminal three output: ")); out.Output != dir+"|hi" {
		t.Fatalf("output %q, want %q", out.Output, dir+"|hi")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.started) != 2 || h.started[0].Command != "printf" || h.started[0].Cwd != dir || len(h.released) != 2 {
		t.Fatalf("observer: started %+v released %v", h.started, h.released)
	}
	if got := h.output[h.started[0].ID]; got != "\x1b[31mred\x1b[0m plain\r\n" {
		t.Fatalf("observer output %q", got)
	}
	if !strings.Contains(strings.Join(h.updates, " "), `"terminalId":"`+h.started[0].ID+`"`) {
		t.Fatalf("tool call content %v", h.updates)
	}
}

// terminal/kill of a sleep reports the signal and no exit code; the
// terminal stays usable for terminal/output until released.
func TestTerminalKillReportsSignal(t *testing.T) {
	s, h, _ := termSession(t, nil)
	prompt(t, s, acptest.Steps(
		terminalStep(t, map[string]any{"command": "sleep", "args": []string{"100"}}),
		`{"terminalKill":"t"}`, `{"terminalWait":"t"}`, `{"terminalOutput":"t"}`, `{"terminalRelease":"t"}`, `{"terminalOutput":"t"}`,
	))
	h.said(t, "terminal t: killed")
	ex := decode[exitResult](t, h.said(t, "terminal t exit: "))
	if ex.ExitCode != nil || ex.Signal == nil || *ex.Signal != "SIGKILL" {
		t.Fatalf("killed sleep: %+v", ex)
	}
	out := decode[outputResult](t, h.said(t, "terminal t output: "))
	if out.ExitStatus == nil || out.ExitStatus.Signal == nil || *out.ExitStatus.Signal != "SIGKILL" {
		t.Fatalf("output after kill: %+v", out)
	}
	// After release the id is gone.
	if e := h.said(t, "terminal t error: "); !strings.HasPrefix(e, "-32602 ") {
		t.Fatalf("output after release: %q", e)
	}
}

// outputByteLimit keeps the last bytes, cut at a character boundary:
// ten 3-byte characters with a limit of 10 keep the last three (9 bytes).
func TestTerminalOutputLimitUTF8(t *testing.T) {
	s, h, _ := termSession(t, nil)
	prompt(t, s, acptest.Steps(
		terminalStep(t, map[string]any{"command": "printf", "args": []string{"%s", "一二三四五六七八九十"}, "outputByteLimit": 10}),
		`{"terminalWait":"t"}`, `{"terminalOutput":"t"}`, `{"terminalRelease":"t"}`,
	))
	out := decode[outputResult](t, h.said(t, "terminal t output: "))
	if out.Output != "八九十" || !out.Truncated || !utf8.ValidString(out.Output) {
		t.Fatalf("limited output %q truncated %v", out.Output, out.Truncated)
	}
}

// Release kills a command that still runs, and nothing of it is left.
func TestTerminalReleaseKillsRunning(t *testing.T) {
	s, h, _ := termSession(t, nil)
	prompt(t, s, acptest.Steps(
		terminalStep(t, map[string]any{"command": "sleep", "args": []string{"100"}}),
		`{"terminalRelease":"t"}`,
	))
	h.said(t, "terminal t: released")
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.started) != 1 {
		t.Fatalf("started %+v", h.started)
	}
	id, pid := h.started[0].ID, h.started[0].Pid
	if e, ok := h.exits[id]; !ok || e.Signal != "SIGKILL" {
		t.Fatalf("exit %+v", h.exits)
	}
	if left := groupMembers(t, pid); len(left) > 0 {
		t.Fatalf("processes left in group %d: %v", pid, left)
	}
}

// 50 terminals created and released leave no process behind.
func TestTerminalManyCyclesLeaveNothing(t *testing.T) {
	s, h, _ := termSession(t, nil)
	var steps []string
	for i := range 50 {
		name := "c" + strconv.Itoa(i)
		steps = append(steps, terminalStep(t, map[string]any{"name": name, "command": "sh", "args": []string{"-c", `trap "" HUP; sleep 100 & sleep 100`}}),
			`{"terminalRelease":"`+name+`"}`)
	}
	prompt(t, s, acptest.Steps(steps...))
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.started) != 50 || len(h.released) != 50 {
		t.Fatalf("started %d released %d; agent said %q", len(h.started), len(h.released), h.messages)
	}
	for _, st := range h.started {
		if left := groupMembers(t, st.Pid); len(left) > 0 {
			t.Fatalf("terminal %s: processes left in group %d: %v", st.ID, st.Pid, left)
		}
	}
}

// A command that leaves a background child behind and exits: its exit is
// reported, and release kills the child with the rest of the group (the
// child ignores SIGHUP, so closing the terminal alone would not end it).
func TestTerminalReleaseKillsBackgroundChild(t *testing.T) {
	s, h, dir := termSession(t, nil)
	prompt(t, s, acptest.Steps(
		terminalStep(t, map[string]any{"command": "sh", "args": []string{"-c", `trap "" HUP; sleep 100 & echo $! > child.pid`}}),
		`{"terminalWait":"t"}`, `{"terminalRelease":"t"}`,
	))
	if ex := decode[exitResult](t, h.said(t, "terminal t exit: ")); ex.ExitCode == nil || *ex.ExitCode != 0 {
		t.Fatalf("exit %+v", ex)
	}
	b, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if alive(child) {
		t.Fatalf("background child %d still runs after release", child)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if left := groupMembers(t, h.started[0].Pid); len(left) > 0 {
		t.Fatalf("processes left: %v", left)
	}
}

// A working directory outside the session's folder is refused (an
// absolute path elsewhere, "..", a symlink out), and so is a file; a
// subfolder is fine.
func TestTerminalCwdConfined(t *testing.T) {
	s, h, dir := termSession(t, nil)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cwds := map[string]string{"abs": outside, "root": "/", "dotdot": filepath.Join(dir, ".."), "rel": "../", "link": filepath.Join(dir, "out"),
		"linkrel": "out", "file": filepath.Join(dir, "file")}
	var steps []string
	for name, cwd := range cwds {
		steps = append(steps, terminalStep(t, map[string]any{"name": name, "command": "pwd", "cwd": cwd}))
	}
	steps = append(steps, terminalStep(t, map[string]any{"name": "sub", "command": "pwd", "cwd": filepath.Join(dir, "sub")}),
		`{"terminalWait":"sub"}`, `{"terminalOutput":"sub"}`, `{"terminalRelease":"sub"}`)
	prompt(t, s, acptest.Steps(steps...))
	for name := range cwds {
		if e := h.said(t, "terminal "+name+" error: "); !strings.HasPrefix(e, "-32602 refused: ") {
			t.Errorf("%s: %q", name, e)
		}
	}
	if out := decode[outputResult](t, h.said(t, "terminal sub output: ")); out.Output != filepath.Join(dir, "sub")+"\r\n" {
		t.Errorf("pwd in sub: %q", out.Output)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.refused) != len(cwds) || len(h.started) != 1 {
		t.Fatalf("refused %v started %+v", h.refused, h.started)
	}
}

// Allow refuses terminal/create (a read-only mode); a session without
// terminals refuses them all.
func TestTerminalRefusals(t *testing.T) {
	s, h, _ := termSession(t, func() error { return errReadOnly })
	prompt(t, s, acptest.Steps(terminalStep(t, map[string]any{"command": "true"})))
	if e := h.said(t, "terminal t error: "); e != "-32602 refused: "+errReadOnly.Error() {
		t.Fatalf("read-only: %q", e)
	}
	a := startAgent(t, "", acp.Options{})
	h2 := newTermHandler()
	s2, err := a.NewSession(t.Context(), acp.SessionConfig{Cwd: t.TempDir(), Handler: h2})
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, s2, acptest.Steps(terminalStep(t, map[string]any{"command": "true"}), `{"terminalOutput":"nope"}`))
	if e := h2.said(t, "terminal t error: "); !strings.HasPrefix(e, "-32602 refused: ") {
		t.Fatalf("no terminals: %q", e)
	}
}

var errReadOnly = errorString("the session is in a read-only mode")

type errorString string

func (e errorString) Error() string { return string(e) }

// Closing the session releases its terminals.
func TestTerminalSessionCloseReleases(t *testing.T) {
	s, h, _ := termSession(t, nil)
	prompt(t, s, acptest.Steps(terminalStep(t, map[string]any{"command": "sleep", "args": []string{"100"}})))
	s.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.started) != 1 || len(h.released) != 1 {
		t.Fatalf("started %+v released %v", h.started, h.released)
	}
	if left := groupMembers(t, h.started[0].Pid); len(left) > 0 {
		t.Fatalf("processes left: %v", left)
	}
}

// groupMembers lists the live (not zombie) processes of group pgid, from
// /proc.
func groupMembers(t *testing.T, pgid int) []string {
	t.Helper()
	if pgid <= 0 {
		t.Fatalf("no process group")
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var left []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(st)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			left = append(left, e.Name()+" "+s[:i+1])
		}
	}
	return left
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(st)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// session is the session id of process pid, 0 when it is gone.
func session(pid int) int {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(st)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 4 {
		return 0
	}
	sid, _ := strconv.Atoi(f[3])
	return sid
}

// A child that leaves the session (setsid) but keeps the terminal open
// does not make release hang; release cannot kill it (it left the session
// and its parent is gone), so the test does.
func TestTerminalReleaseWithEscapedChild(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		testenv.SkipOrFail(t, "no setsid(1)")
	}
	s, h, dir := termSession(t, nil)
	prompt(t, s, acptest.Steps(
		terminalStep(t, map[string]any{"command": "sh", "args": []string{"-c", `/usr/bin/setsid sh -c 'echo $$ > escaped.pid; trap "" HUP; exec sleep 100' & while [ ! -s escaped.pid ]; do :; done`}}),
		`{"terminalWait":"t"}`, `{"terminalRelease":"t"}`,
	))
	b, err := os.ReadFile(filepath.Join(dir, "escaped.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	h.said(t, "terminal t: released")
}

// Release while the command runs takes the whole session, stopped first: a
// job in a process group of its own (set -m) and a child that left the
// session (setsid) while its parent runs are killed with the rest.
func TestTerminalReleaseKillsSessionAndEscapedChild(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		testenv.SkipOrFail(t, "no setsid(1)")
	}
	s, h, dir := termSession(t, nil)
	// setsid(1) in a background job (not a group leader) calls setsid()
	// and execs: $! is the escaped process.
	script := `set -m; sh -c 'trap "" HUP; exec sleep 100' & echo $! > job.pid; set +m
/usr/bin/setsid sh -c 'trap "" HUP; exec sleep 100' & echo $! > escaped.pid
echo ready; exec sleep 100`
	prompt(t, s, acptest.Steps(
		terminalStep(t, map[string]any{"command": "sh", "args": []string{"-c", script}}),
		`{"terminalOutput":"t"}`,
	))
	deadline := time.Now().Add(10 * time.Second)
	ready := func() (ok bool) {
		h.lock(func() {
			for _, out := range h.output {
				ok = ok || strings.Contains(out, "ready")
			}
		})
		return ok
	}
	for !ready() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	pids := map[string]int{}
	for _, name := range []string{"job", "escaped"} {
		b, err := os.ReadFile(filepath.Join(dir, name+".pid"))
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		pids[name] = pid
	}
	// setsid(1) may not have called setsid() yet.
	for session(pids["escaped"]) != pids["escaped"] && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if session(pids["escaped"]) != pids["escaped"] {
		t.Fatalf("the escaped child never left the session")
	}
	prompt(t, s, acptest.Steps(`{"terminalRelease":"t"}`))
	h.said(t, "terminal t: released")
	for name, pid := range pids {
		if alive(pid) {
			t.Errorf("the %s (%d) still runs after release", name, pid)
		}
	}
}
