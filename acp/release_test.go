package acp_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mnote/acp"
)

// callsSeen reads the test agent's <state>/calls.log.
func callsSeen(t *testing.T, state string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(state, "calls.log"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// Closing a session sends session/close (once, for that session) to an
// agent that advertises it, and nothing to one that does not.
func TestCloseSendsSessionClose(t *testing.T) {
	for _, tc := range []struct {
		name, scenario string
		want           bool
	}{
		{"advertised", `{"close":true}`, true},
		{"not advertised", `{}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			a := startAgent(t, tc.scenario, acp.Options{}, "--state", state)
			if a.Init.AgentCapabilities.CanClose() != tc.want {
				t.Fatalf("CanClose = %v", !tc.want)
			}
			keep, _ := newSession(t, a, newRecorder(), nil)
			h := newRecorder()
			s, _ := newSession(t, a, h, nil)
			prompt(t, s, "hello")
			s.Close()
			s.Close() // a second close sends nothing more
			got := callsSeen(t, state)
			if !tc.want {
				if len(got) != 0 {
					t.Fatalf("agent without close saw %v", got)
				}
				if contains(h.lines, "out session/close") {
					t.Fatalf("session/close sent: %v", h.lines)
				}
				return
			}
			if want := "session/close " + s.ID(); strings.Join(got, " | ") != want {
				t.Fatalf("agent saw %v, want %v (other session %s)", got, want, keep.ID())
			}
			if !contains(h.lines, "out session/close") || !contains(h.lines, "in response") {
				t.Fatalf("the close is not in the session's lines: %v", h.lines)
			}
			// The other session goes on.
			if res := prompt(t, keep, "still here"); res.StopReason != acp.StopEndTurn {
				t.Fatalf("other session: %+v", res)
			}
		})
	}
}

// A session whose agent has exited is let go of without a call.
func TestCloseAfterExitSendsNothing(t *testing.T) {
	state := t.TempDir()
	a := startAgent(t, `{"close":true}`, acp.Options{}, "--state", state)
	s, _ := newSession(t, a, newRecorder(), nil)
	a.Kill()
	<-a.Done()
	s.Close()
	if got := callsSeen(t, state); len(got) != 0 {
		t.Fatalf("agent saw %v", got)
	}
}

// session/delete and logout are sent only where advertised; delete
// removes the agent's copy (its session/list no longer shows it).
func TestDeleteSessionAndLogout(t *testing.T) {
	state := t.TempDir()
	plain := startAgent(t, `{}`, acp.Options{}, "--state", t.TempDir())
	if err := plain.DeleteSession(t.Context(), "ta-0000000000000000"); !errors.Is(err, acp.ErrNotOffered) {
		t.Fatalf("delete without the capability: %v", err)
	}
	if err := plain.Logout(t.Context()); !errors.Is(err, acp.ErrNotOffered) {
		t.Fatalf("logout without the capability: %v", err)
	}

	a := startAgent(t, `{"delete":true,"logout":true}`, acp.Options{}, "--state", state)
	if !a.Init.AgentCapabilities.CanDelete() || !a.Init.AgentCapabilities.CanLogout() || a.Init.AgentCapabilities.CanClose() {
		t.Fatalf("capabilities: %s", a.Init.Raw)
	}
	s, dir := newSession(t, a, newRecorder(), nil)
	prompt(t, s, "hello")
	id := s.ID()
	if err := a.DeleteSession(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	list, err := a.ListSessions(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, si := range list {
		if si.SessionID == id {
			t.Fatalf("deleted session still listed: %+v", list)
		}
	}
	// An unknown (or already deleted) session is the agent's error.
	if err := a.DeleteSession(t.Context(), id); err == nil {
		t.Fatal("deleting it twice succeeded")
	}
	if err := a.Logout(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(callsSeen(t, state), " | "); got != "session/delete "+id+" | session/delete "+id+" | logout" {
		t.Fatalf("agent saw %q", got)
	}
}

// An agent that does not answer session/close does not hold mnote up
// beyond the stop grace.
func TestCloseUnansweredIsBounded(t *testing.T) {
	a := startAgent(t, `{"close":true,"stopReadingAfter":"session/prompt","exitOnStdinClose":false}`, acp.Options{StopGrace: 300 * time.Millisecond})
	h := newRecorder()
	s, _ := newSession(t, a, h, nil)
	prompt(t, s, "hello")
	done := make(chan struct{})
	go func() {
		s.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Close waits for an agent that never answers")
	}
	if !contains(h.lines, "out session/close") {
		t.Fatalf("session/close not sent: %v", h.lines)
	}
	a.Kill()
}
