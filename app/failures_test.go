package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
	"mnote/thread"
)

// An agent that crashes mid-turn: a notice with its stderr tail, the turn
// ended with an error, the session failed; the next prompt restarts it.
func TestAgentCrashMidTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(`{"message":"partial answer"}`, `{"stderr":"boom: the model went away"}`, `{"crash":3}`))
	var n app.NoticePayload
	h.waitEvent(sum.ID, from, app.EvNotice, func(p json.RawMessage) bool { return json.Unmarshal(p, &n) == nil && n.Level == "error" })
	if !strings.Contains(n.Details, "boom: the model went away") || !strings.Contains(n.Details, "crashing with 3") ||
		n.Action != "restart" || !strings.Contains(n.Message, "code 3") {
		t.Fatalf("notice: %+v", n)
	}
	tp := h.waitTurnEnded(sum.ID, from, 1)
	// The notice tells the failure; the turn's end does not repeat it.
	if tp.Error != "" || tp.StopReason != "error" {
		t.Fatalf("turn: %+v", tp)
	}
	var list []app.SessionSummary
	if err := eventually(testWait, func() bool {
		h.mustCall("sessions.list", map[string]any{}, &list)
		return len(list) == 1 && list[0].Status == app.StatusFailed
	}); err != nil {
		t.Fatalf("after the crash: %+v", list)
	}
	snap := h.open(sum.ID)
	if !hasText(snap.Thread.Entries, thread.EntryAssistantMessage, "partial answer") || snap.Thread.StopReason != "error" {
		t.Fatalf("thread after the crash: %+v", snap.Thread)
	}

	// The next prompt starts the agent again and continues the session.
	from = h.rec.Len()
	if turn := h.prompt(sum.ID, "again"); turn != 2 {
		t.Fatalf("turn %d", turn)
	}
	if tp := h.waitTurnEnded(sum.ID, from, 2); tp.StopReason != "end_turn" {
		t.Fatalf("turn 2: %+v\n%s", tp, h.dump(sum.ID))
	}
	snap = h.open(sum.ID)
	if !hasText(snap.Thread.Entries, thread.EntryAssistantMessage, "echo: again") || snap.Session.Status != app.StatusReady {
		t.Fatalf("after the restart: %q, %s", texts(snap.Thread.Entries, thread.EntryAssistantMessage), snap.Session.Status)
	}
}

// An agent that needs a login: sessions.create fails with needs_auth and
// the agent's auth methods; no session is left behind.
func TestAgentNeedsAuth(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.saveAgent("locked", acptest.Scenario(`{"authRequired":true,"authMethods":[{"id":"browser","name":"Log in with a browser","description":"opens a page"},{"id":"key","name":"API key"}]}`)...)
	from := h.rec.Len()
	e := h.call("sessions.create", map[string]any{"agent": "locked"}, nil)
	if codeOf(e) != app.CodeNeedsAuth || !strings.Contains(e.Message, "Log in with a browser") ||
		!strings.Contains(e.Details, "browser: Log in with a browser — opens a page") || !strings.Contains(e.Details, "key: API key") {
		t.Fatalf("create: %+v", e)
	}
	var st app.AgentStatusEvent
	if _, _, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool {
		return ev.Name == app.EventAgentStatus && json.Unmarshal(ev.Data, &st) == nil && st.Name == "locked"
	}); err != nil || st.Status != app.AgentNeedsLogin {
		t.Fatalf("agent:status %+v %v", st, err)
	}
	var agents []app.Agent
	h.mustCall("agents.list", map[string]any{}, &agents)
	found := false
	for _, a := range agents {
		if a.Name == "locked" {
			found = a.Status == app.AgentNeedsLogin && !a.Builtin
		}
	}
	if !found {
		t.Fatalf("agents.list: %+v", agents)
	}
	var list []app.SessionSummary
	h.mustCall("sessions.list", map[string]any{}, &list)
	if len(list) != 0 {
		t.Fatalf("a failed create left sessions: %+v", list)
	}

	// Missing agents and unknown names.
	if e := h.call("sessions.create", map[string]any{"agent": "no-such-agent"}, nil); codeOf(e) != app.CodeAgentMissing {
		t.Fatalf("unknown agent: %+v", e)
	}
	h.mustCall("agents.saveCustom", map[string]any{"name": "gone", "command": "/nonexistent/agent-binary"}, nil)
	if e := h.call("sessions.create", map[string]any{"agent": "gone"}, nil); codeOf(e) != app.CodeAgentMissing {
		t.Fatalf("missing binary: %+v", e)
	}
	// An agent that fails at start: agent_failed with its stderr.
	h.saveAgent("broken", acptest.Scenario(`{"stderrAtStart":"no config file","stopReadingAfter":"initialize","exitOnStdinClose":true}`)...)
	h.saveAgent("dies", "--no-such-flag")
	if e := h.call("sessions.create", map[string]any{"agent": "dies"}, nil); codeOf(e) != app.CodeAgentFailed || e.Details == "" {
		t.Fatalf("agent that exits at start: %+v", e)
	}
	var check app.AgentCheck
	h.mustCall("agents.check", map[string]any{"name": "test"}, &check)
	if check.AgentName != "mnote-testagent" || check.Protocol != 1 || !check.LoadSession {
		t.Fatalf("check: %+v", check)
	}
	h.mustCall("agents.removeCustom", map[string]any{"name": "broken"}, &agents)
	for _, a := range agents {
		if a.Name == "broken" {
			t.Fatal("removed agent still listed")
		}
	}
	if e := h.call("agents.removeCustom", map[string]any{"name": "broken"}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("removing twice: %+v", e)
	}
}
