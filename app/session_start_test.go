package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/app"
)

// startedSince reports whether an agent:start "started" of name came
// after event from.
func startedSince(h *harness, from int, name string) bool {
	for _, ev := range h.rec.Events()[from:] {
		var e app.AgentStartEvent
		if ev.Name == app.EventAgentStart && json.Unmarshal(ev.Data, &e) == nil && e.Name == name && e.Phase == app.StartStarted {
			return true
		}
	}
	return false
}

// An agent that answers initialize but hangs in session/new: the page
// sees one start, "starting" until session/new answers (not "started"
// after initialize), and Cancel ends it at once: the call fails, the
// process is stopped, no session is left.
func TestSessionNewStartCancel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.saveAgent("hangs", acptest.Scenario(`{"sessionNewDelayMs":600000}`)...)
	done := make(chan *app.Error, 1)
	go func() { done <- h.call("sessions.create", map[string]any{"agent": "hangs"}, nil) }()
	i, st := waitStart(t, h, 0, "hangs", app.StartStarting)
	if st.TimeoutMs != 20000 {
		t.Fatalf("starting: %+v", st)
	}
	// The process is up and initialized (pooled): session/new is what waits.
	var running []app.RunningAgent
	if err := eventually(testWait, func() bool {
		h.mustCall("agents.running", struct{}{}, &running)
		return len(running) == 1
	}); err != nil {
		t.Fatalf("the agent did not get past initialize: %+v", running)
	}
	time.Sleep(100 * time.Millisecond)
	if startedSince(h, i, "hangs") {
		t.Fatal(`"started" after initialize, while session/new still waits`)
	}
	select {
	case e := <-done:
		t.Fatalf("sessions.create returned while session/new hangs: %+v", e)
	default:
	}
	var n map[string]int
	h.mustCall("agents.cancelStart", map[string]any{"name": "hangs"}, &n)
	if n["cancelled"] != 1 {
		t.Fatalf("cancelled %v", n)
	}
	select {
	case e := <-done:
		if codeOf(e) != app.CodeAgentFailed || e.Reason != app.ReasonAgentStartCancelled {
			t.Fatalf("the cancelled start: %+v", e)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("sessions.create still waits 2 s after Cancel")
	}
	waitStart(t, h, i, "hangs", app.StartCancelled)
	if err := eventually(testWait, func() bool {
		h.mustCall("agents.running", struct{}{}, &running)
		return len(running) == 0
	}); err != nil {
		t.Fatalf("running after the cancel: %+v", running)
	}
	var list []app.SessionSummary
	h.mustCall("sessions.list", map[string]any{}, &list)
	if len(list) != 0 {
		t.Fatalf("a session was left: %+v", list)
	}
}

// session/new timing out: the start fails with the agent's stderr tail,
// on agent:start and in the error sessions.create returns.
func TestSessionNewTimeoutStderr(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, func(cfg *app.Config) { cfg.InitTimeout = 400 * time.Millisecond })
	h.saveAgent("stuck", acptest.Scenario(`{"sessionNewDelayMs":600000,"stderrAtStart":"stuck: the model server is not answering"}`)...)
	e := h.call("sessions.create", map[string]any{"agent": "stuck"}, nil)
	if codeOf(e) != app.CodeAgentFailed || !strings.Contains(e.Details, "the model server is not answering") {
		t.Fatalf("create: %+v", e)
	}
	_, st := waitStart(t, h, 0, "stuck", app.StartFailed)
	if !strings.Contains(st.StderrTail, "the model server is not answering") || !strings.Contains(st.Error, "no answer within") {
		t.Fatalf("failed start: %+v", st)
	}
	if startedSince(h, 0, "stuck") {
		t.Fatal(`a "started" although session/new never answered`)
	}
	var running []app.RunningAgent
	if err := eventually(testWait, func() bool {
		h.mustCall("agents.running", struct{}{}, &running)
		return len(running) == 0
	}); err != nil {
		t.Fatalf("the stuck agent still runs: %+v", running)
	}
}

// Continuing a closed session whose agent hangs in session/load: the
// turn shows the agent starting, and Cancel ends the turn at once.
func TestSessionLoadStartCancel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.saveAgent("slowload", append(acptest.Scenario(`{"load":[{"sleepMs":600000}]}`), "--state", t.TempDir())...)
	sum := h.create("slowload")
	from := h.rec.Len()
	h.prompt(sum.ID, "first")
	h.waitTurnEnded(sum.ID, from, 1)
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	// The next prompt binds again (the pool's idle process): session/load.
	from = h.rec.Len()
	h.prompt(sum.ID, "second")
	i, _ := waitStart(t, h, from, "slowload", app.StartStarting)
	time.Sleep(300 * time.Millisecond) // in session/load by now (initialize answers at once)
	if startedSince(h, i, "slowload") {
		t.Fatal(`"started" while session/load still waits`)
	}
	began := time.Now()
	h.mustCall("agents.cancelStart", map[string]any{"name": "slowload"}, nil)
	tp := h.waitTurnEnded(sum.ID, from, 2)
	if time.Since(began) > 2*time.Second || tp.StopReason != "cancelled" {
		t.Fatalf("the turn after Cancel (%s): %+v", time.Since(began), tp)
	}
	waitStart(t, h, i, "slowload", app.StartCancelled)
}
