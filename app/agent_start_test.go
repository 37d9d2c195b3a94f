package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/app"
)

// waitStart waits for the agent:start event of name in phase.
func waitStart(t *testing.T, h *harness, from int, name, phase string) (int, app.AgentStartEvent) {
	t.Helper()
	var se app.AgentStartEvent
	i, _, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool {
		if ev.Name != app.EventAgentStart {
			return false
		}
		var e app.AgentStartEvent
		if json.Unmarshal(ev.Data, &e) != nil || e.Name != name || e.Phase != phase {
			return false
		}
		se = e
		return true
	})
	if err != nil {
		t.Fatalf("no agent:start %s of %s: %v", phase, name, err)
	}
	return i, se
}

// An agent that does not answer initialize: the page hears it is
// starting (since when, for how long at most), and Cancel kills it at
// once; the call that started it fails.
func TestAgentStartCancel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.saveAgent("slow", acptest.Scenario(`{"initializeDelayMs":600000}`)...)
	before := time.Now().UnixMilli()
	done := make(chan *app.Error, 1)
	go func() { done <- h.call("sessions.create", map[string]any{"agent": "slow"}, nil) }()
	i, st := waitStart(t, h, 0, "slow", app.StartStarting)
	if st.Title != "slow" || st.StartedAt < before || st.TimeoutMs != 20000 {
		t.Fatalf("starting: %+v", st)
	}
	var n map[string]int
	h.mustCall("agents.cancelStart", map[string]any{"name": "slow"}, &n)
	if n["cancelled"] != 1 {
		t.Fatalf("cancelled %v", n)
	}
	e := <-done
	if codeOf(e) != app.CodeAgentFailed || !strings.Contains(e.Message, "cancelled") {
		t.Fatalf("the cancelled start: %+v", e)
	}
	waitStart(t, h, i, "slow", app.StartCancelled)
	var running []app.RunningAgent
	h.mustCall("agents.running", struct{}{}, &running)
	if len(running) != 0 {
		t.Fatalf("running after the cancel: %+v", running)
	}
	h.mustCall("agents.cancelStart", map[string]any{"name": "slow"}, &n)
	if n["cancelled"] != 0 {
		t.Fatalf("cancelled with nothing starting: %v", n)
	}
}

// On timeout the page gets the agent's stderr tail with the failure (and
// agents.list keeps it), to show where the user looks.
func TestAgentStartTimeoutStderr(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, func(cfg *app.Config) { cfg.InitTimeout = 300 * time.Millisecond })
	h.saveAgent("stuck", acptest.Scenario(`{"initializeDelayMs":600000,"stderrAtStart":"stuck: cannot reach the model server"}`)...)
	if e := h.call("sessions.create", map[string]any{"agent": "stuck"}, nil); codeOf(e) != app.CodeAgentFailed {
		t.Fatalf("create: %v", e)
	}
	_, st := waitStart(t, h, 0, "stuck", app.StartFailed)
	if !strings.Contains(st.StderrTail, "cannot reach the model server") || !strings.Contains(st.Error, "no answer within") {
		t.Fatalf("failed start: %+v", st)
	}
	if a := agentNamed(t, h, "stuck"); a.Status != app.AgentFailed || !strings.Contains(a.StderrTail, "cannot reach the model server") {
		t.Fatalf("agents.list: %+v", a)
	}
}
