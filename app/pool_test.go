package app_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/app"
)

func (h *harness) running() []app.RunningAgent {
	h.t.Helper()
	var rs []app.RunningAgent
	h.mustCall("agents.running", struct{}{}, &rs)
	return rs
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// answer prompts the session and waits for the turn's echo.
func (h *harness) answer(id, text string) {
	h.t.Helper()
	from := h.rec.Len()
	turn := h.prompt(id, acptest.Steps(`{"message":"`+text+`"}`))
	if tp := h.waitTurnEnded(id, from, turn); tp.StopReason != "end_turn" {
		h.t.Fatalf("turn %d of %s: %+v", turn, id, tp)
	}
	h.waitEvent(id, from, app.EvEntry, func(p json.RawMessage) bool { return strings.Contains(string(p), text) })
}

// Sessions of one agent in one folder share a process; each gets its own
// answers; the process stops once no session uses it and the idle time
// has passed.
func TestAgentProcessShared(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, func(c *app.Config) { c.AgentIdle = 300 * time.Millisecond })
	a, b := h.create("test"), h.create("test")
	rs := h.running()
	if len(rs) != 1 || rs[0].Sessions != 2 || rs[0].Runtime != "test" {
		t.Fatalf("two sessions of one agent: %+v", rs)
	}
	pid := rs[0].Pid
	h.answer(a.ID, "for a")
	h.answer(b.ID, "for b")
	// Nothing crossed over.
	for id, other := range map[string]string{a.ID: "for b", b.ID: "for a"} {
		for _, e := range h.open(id).Thread.Entries {
			if strings.Contains(e.Text, other) {
				t.Fatalf("session %s shows the other session's answer %q", id, e.Text)
			}
		}
	}

	h.mustCall("sessions.close", map[string]any{"id": a.ID}, nil)
	if rs := h.running(); len(rs) != 1 || rs[0].Sessions != 1 || rs[0].Pid != pid {
		t.Fatalf("after closing one session: %+v", rs)
	}
	h.answer(b.ID, "still here")
	h.mustCall("sessions.close", map[string]any{"id": b.ID}, nil)
	if rs := h.running(); len(rs) != 1 || rs[0].Sessions != 0 {
		t.Fatalf("after closing both, the process idles first: %+v", rs)
	}
	if err := eventually(testWait, func() bool { return len(h.running()) == 0 && !alive(pid) }); err != nil {
		t.Fatalf("the idle agent (pid %d) was not stopped: %+v alive=%v", pid, h.running(), alive(pid))
	}
	// The next prompt starts a process again (session/load continues it).
	h.answer(a.ID, "back again")
	if rs := h.running(); len(rs) != 1 || rs[0].Pid == pid {
		t.Fatalf("after reopening: %+v (old pid %d)", rs, pid)
	}
}

// The cap: with one session per process and two processes at most, a
// third session is refused with a clear message until one is closed; its
// idle process is then stopped to make room.
func TestAgentProcessCap(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, func(c *app.Config) {
		c.MaxAgents, c.SessionsPerAgent, c.AgentIdle = 2, 1, time.Hour
	})
	a, _ := h.create("test"), h.create("test")
	if rs := h.running(); len(rs) != 2 || rs[0].Pid == rs[1].Pid {
		t.Fatalf("one session a process: %+v", rs)
	}
	var sum app.SessionSummary
	e := h.call("sessions.create", map[string]any{"agent": "test"}, &sum)
	if codeOf(e) != app.CodeBusy || !strings.Contains(e.Message, "close or stop a session") {
		t.Fatalf("a third process: %v", e)
	}
	h.mustCall("sessions.close", map[string]any{"id": a.ID}, nil)
	idle := 0
	for _, r := range h.running() {
		if r.Sessions == 0 {
			idle = r.Pid
		}
	}
	if idle == 0 {
		t.Fatalf("closing a session leaves its process idle: %+v", h.running())
	}
	// An idle process of the same agent is taken as it is...
	b := h.create("test")
	if rs := h.running(); len(rs) != 2 || !(rs[0].Pid == idle || rs[1].Pid == idle) {
		t.Fatalf("the idle process %d should have been reused: %+v", idle, rs)
	}
	// ...one of another agent is stopped to make room.
	h.mustCall("sessions.close", map[string]any{"id": b.ID}, nil)
	h.saveAgent("other")
	c := h.create("other")
	rs := h.running()
	if len(rs) != 2 {
		t.Fatalf("after making room: %+v", rs)
	}
	for _, r := range rs {
		if r.Pid == idle || r.Sessions != 1 {
			t.Fatalf("the idle process %d should have made room: %+v", idle, rs)
		}
	}
	if err := eventually(testWait, func() bool { return !alive(idle) }); err != nil {
		t.Fatalf("the idle process %d still runs", idle)
	}
	h.answer(c.ID, "room made")
}

// sessions:changed carries what changed: the page patches its list
// instead of fetching it again.
func TestSessionsChangedPayload(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	waitChanged := func(from int, match func(app.SessionsChanged) bool) app.SessionsChanged {
		t.Helper()
		var got app.SessionsChanged
		_, _, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool {
			var p app.SessionsChanged
			if ev.Name != app.EventSessionsChanged || json.Unmarshal(ev.Data, &p) != nil || !match(p) {
				return false
			}
			got = p
			return true
		})
		if err != nil {
			t.Fatalf("no matching sessions:changed: %v", err)
		}
		return got
	}
	from := h.rec.Len()
	sum := h.create("test")
	waitChanged(from, func(p app.SessionsChanged) bool {
		return len(p.Changed) == 1 && p.Changed[0].ID == sum.ID && p.Changed[0].Live && p.Changed[0].Agent == "test"
	})
	from = h.rec.Len()
	h.prompt(sum.ID, "Giraffes at dusk")
	// Running, then done with its first turn and title.
	waitChanged(from, func(p app.SessionsChanged) bool {
		return len(p.Changed) == 1 && p.Changed[0].Status == app.StatusRunning
	})
	waitChanged(from, func(p app.SessionsChanged) bool {
		c := p.Changed
		return len(c) == 1 && c[0].Status == app.StatusReady && c[0].Turns == 1 && c[0].Title == "Giraffes at dusk"
	})
	from = h.rec.Len()
	h.mustCall("sessions.rename", map[string]any{"id": sum.ID, "title": "Renamed"}, nil)
	waitChanged(from, func(p app.SessionsChanged) bool { return len(p.Changed) == 1 && p.Changed[0].Title == "Renamed" })
	from = h.rec.Len()
	h.mustCall("sessions.delete", map[string]any{"id": sum.ID}, nil)
	waitChanged(from, func(p app.SessionsChanged) bool {
		return len(p.Changed) == 0 && len(p.Removed) == 1 && p.Removed[0] == sum.ID
	})
}

// gone reports that no process has the pid any more (it exited and was
// reaped).
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// stubborn is a test agent that takes the whole graceful stop to go: it
// keeps running when its stdin closes and ignores SIGTERM, so only the
// final SIGKILL (after two grace periods) ends it.
const stubborn = `{"ignoreSigterm":true,"exitOnStdinClose":false}`

// Shutdown returns only once every agent process the pool started has
// exited: one being stopped after its idle time, one stopped to make room
// for another agent, the pooled ones, and one still starting.
func TestShutdownWaitsForAgentProcesses(t *testing.T) {
	t.Parallel()
	t.Run("reaped", func(t *testing.T) {
		t.Parallel()
		h := newHarnessWith(t, func(c *app.Config) { c.AgentIdle = 50 * time.Millisecond })
		h.saveAgent("stubborn", acptest.Scenario(stubborn)...)
		a := h.create("stubborn")
		pid := h.running()[0].Pid
		h.mustCall("sessions.close", map[string]any{"id": a.ID}, nil)
		if err := eventually(testWait, func() bool { return len(h.running()) == 0 }); err != nil {
			t.Fatalf("the idle agent was not reaped: %+v", h.running())
		}
		if !alive(pid) {
			t.Fatal("the stubborn agent stopped at once; the test needs it to be stopping during Shutdown")
		}
		h.svc.Shutdown()
		if !gone(pid) {
			t.Errorf("Shutdown returned while the reaped agent (pid %d) still runs", pid)
		}
	})
	t.Run("evicted", func(t *testing.T) {
		t.Parallel()
		h := newHarnessWith(t, func(c *app.Config) { c.MaxAgents, c.SessionsPerAgent, c.AgentIdle = 1, 1, time.Hour })
		h.saveAgent("stubborn", acptest.Scenario(stubborn)...)
		a := h.create("stubborn")
		victim := h.running()[0].Pid
		h.mustCall("sessions.close", map[string]any{"id": a.ID}, nil)
		h.create("test") // stops the idle stubborn process to make room
		rs := h.running()
		if len(rs) != 1 || rs[0].Pid == victim {
			t.Fatalf("the idle process %d should have made room: %+v", victim, rs)
		}
		other := rs[0].Pid
		if !alive(victim) {
			t.Fatal("the stubborn agent stopped at once; the test needs it to be stopping during Shutdown")
		}
		h.svc.Shutdown()
		for _, pid := range []int{victim, other} {
			if !gone(pid) {
				t.Errorf("Shutdown returned while agent pid %d still runs", pid)
			}
		}
	})
	t.Run("starting", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		marker := t.TempDir() // a unique argument, to find the process
		h.saveAgent("slow", append(acptest.Scenario(`{"initializeDelayMs":60000}`), "--state", marker)...)
		created := make(chan error, 1)
		go func() {
			_, err := h.svc.Bridge().Call("sessions.create", `{"agent":"slow"}`)
			created <- err
		}()
		var pid int
		if err := eventually(testWait, func() bool { pid = pidWithArg(t, marker); return pid != 0 }); err != nil {
			t.Fatal("the slow agent did not start")
		}
		h.svc.Shutdown()
		if !gone(pid) {
			t.Errorf("Shutdown returned while the agent being started (pid %d) still runs", pid)
		}
		if err := <-created; err == nil {
			t.Error("sessions.create succeeded during Shutdown")
		}
	})
}

// pidWithArg finds a process whose command line holds arg (0 if none).
func pidWithArg(t *testing.T, arg string) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && slices.Contains(strings.Split(string(cmdline), "\x00"), arg) {
			return pid
		}
	}
	return 0
}
