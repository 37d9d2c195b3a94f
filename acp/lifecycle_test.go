package acp_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"mnote/acp"
	"mnote/acp/acptest"
)

// 8a. Cancel sends session/cancel, answers a pending permission request
// cancelled, waits for the prompt's own reply and reports cancelled.
func TestCancelWithPendingPermission(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	asked := make(chan struct{})
	var brokerErr atomic.Value
	b := brokerFunc(func(ctx context.Context, req *acp.PermissionRequest) (acp.PermissionDecision, error) {
		close(asked)
		<-ctx.Done() // the user never answers
		brokerErr.Store(ctx.Err())
		return acp.PermissionDecision{}, ctx.Err()
	})
	s, _ := newSession(t, a, h, b)
	go func() {
		<-asked
		s.Cancel()
	}()
	res := prompt(t, s, acptest.Steps(`{"permission":{}}`, `{"message":"must not run"}`))
	if res.StopReason != acp.StopCancelled || res.Killed {
		t.Fatalf("result %+v", res)
	}
	if brokerErr.Load() == nil {
		t.Fatal("the broker's context was not cancelled")
	}
	if got := h.Text(); got != "permission: cancelled" {
		t.Fatalf("agent saw %q", got)
	}
	if !contains(h.lines, "out session/cancel") {
		t.Fatalf("no session/cancel sent: %v", h.lines)
	}
	// The session is usable for the next turn.
	if res := prompt(t, s, acptest.Steps(`{"message":"next"}`)); res.StopReason != acp.StopEndTurn {
		t.Fatalf("next turn: %+v", res)
	}
}

// 8b. Cancelling through the prompt's context works the same way.
func TestCancelByContext(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	s, _ := newSession(t, a, newRecorder(), nil)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	res, err := s.Prompt(ctx, textPrompt(acptest.Steps(`{"message":"x"}`, `{"waitForCancel":true}`)))
	if err != nil || res.StopReason != acp.StopCancelled {
		t.Fatalf("res %+v err %v", res, err)
	}
}

// 8c. An agent that ignores cancel is killed after the grace period.
func TestIgnoredCancelKills(t *testing.T) {
	a := startAgent(t, `{"ignoreCancel":true}`, acp.Options{CancelGrace: 500 * time.Millisecond})
	s, _ := newSession(t, a, newRecorder(), nil)
	go func() {
		time.Sleep(200 * time.Millisecond)
		s.Cancel()
	}()
	res, err := s.Prompt(t.Context(), textPrompt(acptest.Steps(`{"waitForCancel":true}`)))
	if err != nil || res.StopReason != acp.StopCancelled || !res.Killed {
		t.Fatalf("res %+v err %v", res, err)
	}
	select {
	case <-a.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("agent still running")
	}
}

// A graceful stop escalates: stdin closed, then SIGTERM, then SIGKILL.
func TestStopEscalates(t *testing.T) {
	for _, tc := range []struct{ name, scenario, want string }{
		{"exits on EOF", `{}`, ""},
		{"needs SIGTERM", `{"exitOnStdinClose":false}`, "terminated"},
		{"needs SIGKILL", `{"exitOnStdinClose":false,"ignoreSigterm":true}`, "killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := startAgent(t, tc.scenario, acp.Options{StopGrace: 300 * time.Millisecond})
			a.Stop()
			ee := a.ExitError()
			if ee == nil {
				t.Fatal("agent still running after Stop")
			}
			if tc.want == "" && (ee.Code != 0 || ee.Signal != "") {
				t.Fatalf("exit %+v", ee)
			}
			if tc.want != "" && ee.Signal != tc.want {
				t.Fatalf("exit %+v, want signal %s", ee, tc.want)
			}
		})
	}
}

// Start and stop 50 agents: no process is left, not even a zombie.
func TestNoZombies(t *testing.T) {
	bin := acptest.TestAgent(t)
	var pids []int
	for i := range 50 {
		scenario := `{}`
		if i%3 == 1 {
			scenario = `{"exitOnStdinClose":false}`
		}
		a, err := acp.Start(t.Context(), acp.ProcSpec{Path: bin, Args: acptest.Scenario(scenario)}, acp.Options{StopGrace: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, a.Pid())
		if i%5 == 4 {
			a.Kill()
		} else {
			a.Stop()
		}
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			state := procState(pid)
			t.Errorf("agent %d still exists (state %q)", pid, state)
		}
	}
	if kids := children(os.Getpid()); len(kids) > 0 {
		t.Errorf("child processes left: %v", kids)
	}
}

func procState(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	f := strings.Fields(string(b))
	if len(f) > 2 {
		return f[2]
	}
	return ""
}

// children lists the processes whose parent is pid (from /proc).
func children(pid int) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, e.Name()+" "+f[0])
		}
	}
	return out
}

// A session without a FileSystem refuses every fs/* request (there is no
// fallback confinement), and touches nothing.
func TestFSWithoutFileSystemRefused(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	s, dir := newSession(t, a, h, nil)
	note := filepath.Join(dir, "note.md")
	if err := os.WriteFile(note, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prompt(t, s, acptest.Steps(
		`{"readFile":{"path":`+strconv.Quote(note)+`}}`,
		`{"writeFile":{"path":`+strconv.Quote(note)+`,"content":"changed\n"}}`,
		`{"readFile":{"path":"/proc/self/environ"}}`,
	))
	text := h.Text()
	if strings.Count(text, "error: -32602 refused: this session gives the agent no file access") != 3 || strings.Contains(text, "read: ") {
		t.Fatalf("agent saw %q", text)
	}
	if b, _ := os.ReadFile(note); string(b) != "one\n" {
		t.Fatalf("note changed: %q", b)
	}
}

// fakeFS answers fs/* requests with fixed errors.
type fakeFS struct{ read, write error }

func (f fakeFS) ReadTextFile(context.Context, string, *int, *int) (string, error) {
	return "", f.read
}

func (f fakeFS) WriteTextFile(context.Context, string, string) error { return f.write }

// A FileSystem's errors reach the agent by kind: not found, refused
// (fs.ErrPermission) and invalid (fs.ErrInvalid) are the agent's, with the
// error's message; anything else is internal.
func TestFSErrorCodes(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x.md: %w", fs.ErrNotExist), "read error: -32002 x.md: file does not exist"},
		{fmt.Errorf("refused: x.md leads outside: %w", fs.ErrPermission), "read error: -32602 refused: x.md leads outside"},
		{fmt.Errorf("x.md is a FIFO: %w", fs.ErrInvalid), "read error: -32602 x.md is a FIFO"},
		{errors.New("disk on fire"), "read error: -32603 disk on fire"},
		{&acp.RPCError{Code: 7, Message: "own"}, "read error: 7 own"},
	} {
		a := startAgent(t, "", acp.Options{})
		h := newRecorder()
		s, err := a.NewSession(t.Context(), acp.SessionConfig{Cwd: t.TempDir(), Handler: h, FS: fakeFS{read: c.err}})
		if err != nil {
			t.Fatal(err)
		}
		prompt(t, s, acptest.Steps(`{"readFile":{"path":"/x.md"}}`))
		if got := h.Text(); !strings.Contains(got, c.want) {
			t.Errorf("%v: agent saw %q, want %q", c.err, got, c.want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A cancel right as the turn starts still reaches the agent after the
// prompt (never before it), so the turn ends cancelled without a kill.
func TestCancelImmediately(t *testing.T) {
	a := startAgent(t, "", acp.Options{CancelGrace: 20 * time.Second})
	s, _ := newSession(t, a, newRecorder(), nil)
	for range 20 {
		done := make(chan struct{})
		go func() { // cancel as early as the turn allows
			for {
				select {
				case <-done:
					return
				default:
					s.Cancel()
					time.Sleep(50 * time.Microsecond)
				}
			}
		}()
		res, err := s.Prompt(t.Context(), textPrompt(acptest.Steps(`{"waitForCancel":true}`)))
		close(done)
		if err != nil || res.StopReason != acp.StopCancelled || res.Killed {
			t.Fatalf("res %+v err %v", res, err)
		}
	}
}
