package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mnote/acp/acptest"
)

func TestMain(m *testing.M) { acptest.Main(m) }

// fakeWindow is the window's side of the link, without Wails: it records
// events and answers the native dialogs with pick.
type fakeWindow struct {
	pick string

	mu        sync.Mutex
	events    []string
	picked    int
	restarted chan struct{}
	failed    chan string
}

func newFakeWindow() *fakeWindow {
	return &fakeWindow{restarted: make(chan struct{}, 8), failed: make(chan string, 1)}
}

func (w *fakeWindow) Call(_ context.Context, method, _ string) (string, error) {
	if method != nativePickFolder {
		return "", errors.New("no such method " + method)
	}
	w.mu.Lock()
	w.picked++
	w.mu.Unlock()
	b, _ := json.Marshal(w.pick)
	return string(b), nil
}

func (w *fakeWindow) Event(name string, data json.RawMessage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, name+" "+string(data))
}

func (w *fakeWindow) servicesRestarted()           { w.restarted <- struct{}{} }
func (w *fakeWindow) servicesFailed(reason string) { w.failed <- reason }

// eventsWith returns the events so far whose text contains s.
func (w *fakeWindow) eventsWith(s string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, e := range w.events {
		if strings.Contains(e, s) {
			out = append(out, e)
		}
	}
	return out
}

// startServices runs the real `mnote window-services` (the command line
// binary) with a home whose config has the test agent.
func startServices(t *testing.T, w *fakeWindow, tg target) *services {
	t.Helper()
	home := t.TempDir()
	config := `{"agent_servers": {"Test Agent": {"command": ` + jsonString(acptest.TestAgent(t)) + `}}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MNOTE_HOME", home)
	s := &services{cli: acptest.Mnote(t), log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), handler: w}
	if err := s.start(tg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mustCall(t *testing.T, s *services, method string, args any) json.RawMessage {
	t.Helper()
	b, _ := json.Marshal(args)
	res, err := s.call(method, string(b))
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return json.RawMessage(res)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The window's calls reach the services in the command line binary, a
// turn's events come back, and the native dialog goes the other way.
func TestTheWindowsServicesRunInTheCommandLine(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "todo.md"), []byte("# 待办\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := newFakeWindow()
	s := startServices(t, w, target{Dir: ws, File: filepath.Join(ws, "todo.md")})

	var info struct{ Dir, Select string }
	if err := json.Unmarshal(mustCall(t, s, "workspace.get", struct{}{}), &info); err != nil {
		t.Fatal(err)
	}
	if info.Dir != ws || info.Select != "todo.md" {
		t.Fatalf("workspace.get: %+v, want the folder and note given to the window", info)
	}

	var sum struct{ ID string }
	if err := json.Unmarshal(mustCall(t, s, "sessions.create", map[string]string{"agent": "Test Agent"}), &sum); err != nil || sum.ID == "" {
		t.Fatalf("sessions.create: %+v, %v", sum, err)
	}
	mustCall(t, s, "sessions.prompt", map[string]string{"id": sum.ID, "text": acptest.Steps(`{"say":"你好，窗口"}`)})
	waitFor(t, "the turn's answer and its end as events", func() bool {
		return len(w.eventsWith("你好，窗口")) > 0 && len(w.eventsWith(`"ended"`)) > 0
	})

	// workspace.pick: the services ask the window for its folder dialog.
	other := t.TempDir()
	w.pick = other
	var picked struct{ Dir string }
	if err := json.Unmarshal(mustCall(t, s, "workspace.pick", struct{}{}), &picked); err != nil || picked.Dir != other {
		t.Fatalf("workspace.pick: %+v, %v; want %s from the window's dialog", picked, err, other)
	}

	// A method error comes back as the services' error JSON, unchanged.
	_, err := s.call("sessions.open", `{"id":"no-such-session"}`)
	var e struct{ Code, Reason string }
	if err == nil || json.Unmarshal([]byte(err.Error()), &e) != nil || e.Reason == "" {
		t.Fatalf("an unknown session: %v, want the services' error JSON with a reason", err)
	}
}

// The page is served from the services' copy of the UI.
func TestThePageComesFromTheServices(t *testing.T) {
	s := startServices(t, newFakeWindow(), target{})
	h := assetHandler{s}
	name, want := "/.gitkeep", "text/plain"
	if _, err := os.Stat(filepath.Join("..", "frontend", "dist", "index.html.gz")); err == nil {
		name, want = "/", "text/html" // the UI is built (make test builds it first)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, name, nil))
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), want) {
		t.Fatalf("GET %s: %d %q, want 200 %s", name, rec.Code, rec.Header().Get("Content-Type"), want)
	}
	if want == "text/html" && !strings.Contains(rec.Body.String(), "<script") {
		t.Fatalf("GET /: not the UI's page: %.200s", rec.Body.String())
	}
	for _, bad := range []string{"/no/such/file.js", "/../../etc/passwd", "/%2e%2e/config.json"} {
		req := httptest.NewRequest(http.MethodGet, "/x", nil)
		req.URL.Path = bad
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404 (only the UI's files are served)", bad, rec.Code)
		}
	}
}

// Services that die are started again and the page reloads; calls made
// meanwhile fail with services_stopped; too many deaths and the window
// gives up. Closing the window stops the services and their agents.
func TestServicesThatDieAreRestartedThenGivenUp(t *testing.T) {
	w := newFakeWindow()
	s := startServices(t, w, target{})
	mustCall(t, s, "sessions.list", struct{}{})
	for i := range maxRestarts {
		s.mu.Lock()
		pid := s.cmd.Process.Pid
		s.mu.Unlock()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		select {
		case <-w.restarted:
		case reason := <-w.failed:
			t.Fatalf("death %d: gave up (%s), want a restart", i+1, reason)
		case <-time.After(30 * time.Second):
			t.Fatalf("death %d: no restart", i+1)
		}
		mustCall(t, s, "sessions.list", struct{}{}) // the new services answer
	}
	s.mu.Lock()
	pid := s.cmd.Process.Pid
	s.mu.Unlock()
	_ = syscall.Kill(pid, syscall.SIGKILL)
	select {
	case reason := <-w.failed:
		if !strings.Contains(reason, "killed") {
			t.Errorf("the reason given is %q, want the exit (signal: killed)", reason)
		}
	case <-w.restarted:
		t.Fatalf("restarted a %dth time within a minute", maxRestarts+1)
	case <-time.After(30 * time.Second):
		t.Fatal("did not give up")
	}
	_, err := s.call("sessions.list", "{}")
	if err == nil || !strings.Contains(err.Error(), `"reason":"services_stopped"`) {
		t.Fatalf("a call after the services failed: %v, want reason services_stopped", err)
	}
}

func TestClosingTheWindowStopsTheServicesAndTheirAgents(t *testing.T) {
	w := newFakeWindow()
	s := startServices(t, w, target{Dir: t.TempDir()})
	var sum struct{ ID string }
	if err := json.Unmarshal(mustCall(t, s, "sessions.create", map[string]string{"agent": "Test Agent"}), &sum); err != nil {
		t.Fatal(err)
	}
	var running []struct{ PID int }
	if err := json.Unmarshal(mustCall(t, s, "agents.running", struct{}{}), &running); err != nil || len(running) != 1 {
		t.Fatalf("agents.running: %+v, %v", running, err)
	}
	s.mu.Lock()
	svcPID := s.cmd.Process.Pid
	s.mu.Unlock()
	// The link is the services' alone: an agent (an untrusted program)
	// inherits no end of it, so it cannot call the window or the services.
	link := socketsOf(t, svcPID)
	if len(link) == 0 {
		t.Fatalf("the services (pid %d) hold no socket: where is the link?", svcPID)
	}
	for s := range socketsOf(t, running[0].PID) {
		if link[s] {
			t.Errorf("the agent holds the services' link to the window (%s)", s)
		}
	}
	s.stop()
	for _, pid := range []int{svcPID, running[0].PID} {
		waitFor(t, "process to exit", func() bool { return syscall.Kill(pid, 0) != nil })
	}
	select {
	case <-w.restarted:
		t.Fatal("services stopped by the window were restarted")
	case reason := <-w.failed:
		t.Fatalf("services stopped by the window were reported failed: %s", reason)
	default:
	}
}

// socketsOf is the set of sockets ("socket:[inode]") pid holds open.
func socketsOf(t *testing.T, pid int) map[string]bool {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			out[l] = true
		}
	}
	return out
}

func TestWindowTarget(t *testing.T) {
	dir := t.TempDir()
	note := filepath.Join(dir, "a b.md")
	if err := os.WriteFile(note, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   []string
		want   target
		window bool
	}{
		{nil, target{}, true},
		{[]string{dir}, target{Dir: dir}, true},
		{[]string{note}, target{Dir: dir, File: note}, true},
		{[]string{"--version"}, target{}, false},
		{[]string{"prompt", "hi"}, target{}, false},
		{[]string{filepath.Join(dir, "missing")}, target{}, false},
	} {
		got, window := windowTarget(c.args)
		if got != c.want || window != c.window {
			t.Errorf("windowTarget(%q) = %+v, %v; want %+v, %v", c.args, got, window, c.want, c.window)
		}
	}
}

func TestFindCLI(t *testing.T) {
	cli := filepath.Join(t.TempDir(), "mnote")
	if err := os.WriteFile(cli, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envCLI, cli)
	got, err := findCLI()
	if err != nil || got != cli {
		t.Fatalf("findCLI() = %q, %v; want $%s", got, err, envCLI)
	}
	if v, ok := os.LookupEnv(envCLI); ok {
		t.Errorf("$%s is still set (%q): the services and their agents would inherit it", envCLI, v)
	}
}
