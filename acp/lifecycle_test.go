package acp_test

import (
	"context"
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

// The fs handlers serve the session's folder and refuse paths outside it.
func TestFSConfined(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	s, dir := newSession(t, a, h, nil)
	outside := filepath.Join(t.TempDir(), "secret.md")
	os.WriteFile(outside, []byte("secret"), 0o600)
	os.WriteFile(filepath.Join(dir, "note.md"), []byte("one\ntwo\nthree\n"), 0o640)
	os.Symlink(outside, filepath.Join(dir, "link.md"))
	note := filepath.Join(dir, "note.md")
	prompt(t, s, acptest.Steps(
		`{"readFile":{"path":`+strconv.Quote(note)+`,"line":2,"limit":1}}`,
		`{"writeFile":{"path":`+strconv.Quote(note)+`,"content":"changed\n"}}`,
		`{"readFile":{"path":`+strconv.Quote(outside)+`}}`,
		`{"readFile":{"path":`+strconv.Quote(filepath.Join(dir, "..", filepath.Base(filepath.Dir(outside)), "secret.md"))+`}}`,
		`{"readFile":{"path":`+strconv.Quote(filepath.Join(dir, "link.md"))+`}}`,
		`{"writeFile":{"path":`+strconv.Quote(outside)+`,"content":"pwned"}}`,
		`{"readFile":{"path":"note.md"}}`,
	))
	text := h.Text()
	for _, want := range []string{"read: two\n", "write: ok", "read error: -32602 path is outside the workspace", "read error: -32602 path leads outside the workspace", "write error: -32602", "read error: -32602 path must be absolute"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in %q", want, text)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "secret" {
		t.Fatalf("file outside the workspace changed: %q", b)
	}
	b, _ := os.ReadFile(note)
	st, _ := os.Stat(note)
	if string(b) != "changed\n" || st.Mode().Perm() != 0o640 {
		t.Fatalf("note %q mode %v", b, st.Mode())
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
