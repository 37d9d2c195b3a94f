package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/app"
)

// notices are the session's notice events from event index from on.
func (h *harness) notices(id string, from int) []app.NoticePayload {
	var out []app.NoticePayload
	for _, ev := range h.rec.Events()[from:] {
		te, ok := decodeThreadEvent(ev)
		if !ok || te.SessionID != id || te.Type != app.EvNotice {
			continue
		}
		var n app.NoticePayload
		if err := json.Unmarshal(te.Payload, &n); err != nil {
			h.t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// A turn whose agent crashes gives exactly one notice (no second banner
// from the turn's end, nor from the agent's exit), worded by its reason
// and params. Three times, as the agent's exit and the turn's end race.
func TestOneNoticePerFailedTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for i := 1; i <= 3; i++ {
		sum := h.create("test")
		turn := 1
		from := h.rec.Len()
		if got := h.prompt(sum.ID, acptest.Steps(`{"message":"partial"}`, `{"stderr":"boom"}`, `{"crash":3}`)); got != turn {
			t.Fatalf("turn %d, want %d", got, turn)
		}
		tp := h.waitTurnEnded(sum.ID, from, turn)
		if tp.StopReason != "error" || tp.Error != "" {
			t.Fatalf("turn %d ended %+v: the failure is the notice's, not repeated in the turn\n%s", turn, tp, h.dump(sum.ID))
		}
		// The agent's watcher runs on its own: give a late notice time.
		if err := eventually(testWait, func() bool {
			var list []app.SessionSummary
			h.mustCall("sessions.list", map[string]any{}, &list)
			return slices.ContainsFunc(list, func(s app.SessionSummary) bool { return s.ID == sum.ID && s.Status == app.StatusFailed })
		}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
		ns := h.notices(sum.ID, from)
		if len(ns) != 1 {
			t.Fatalf("turn %d: %d notices, want 1: %+v\n%s", turn, len(ns), ns, h.dump(sum.ID))
		}
		n := ns[0]
		if n.Level != "error" || n.Code != app.CodeAgentFailed || n.Reason != app.ReasonAgentExited ||
			n.Params["code"] != "3" || n.Action != "restart" || !strings.Contains(n.Details, "boom") || !strings.Contains(n.Message, "code 3") {
			t.Fatalf("turn %d: notice %+v", turn, n)
		}
	}
}

// An agent that exits between turns is told once, as agent_exited.
func TestAgentExitBetweenTurnsNotice(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	h.answer(sum.ID, "hello")
	rs := h.running()
	if len(rs) != 1 {
		t.Fatalf("running: %+v", rs)
	}
	from := h.rec.Len()
	if err := syscall.Kill(rs[0].Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = h.waitEvent(sum.ID, from, app.EvNotice, nil)
	time.Sleep(200 * time.Millisecond)
	ns := h.notices(sum.ID, from)
	if len(ns) != 1 || ns[0].Reason != app.ReasonAgentExited || ns[0].Params["signal"] == "" || ns[0].Action != "restart" {
		t.Fatalf("notices: %+v\n%s", ns, h.dump(sum.ID))
	}
}

// Failed calls carry the reason and its params; checkpoint failures name
// the turn by its number, never by mnote's internal turn id.
func TestErrorReasons(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if e := h.call("sessions.create", map[string]any{"agent": "no-such-agent"}, nil); e == nil ||
		e.Code != app.CodeAgentMissing || e.Reason != app.ReasonAgentUnknown || e.Params["agent"] != "no-such-agent" {
		t.Fatalf("unknown agent: %+v", e)
	}
	if e := h.call("no.such", map[string]any{}, nil); e == nil || e.Reason != app.ReasonUnknownMethod || e.Params["method"] != "no.such" {
		t.Fatalf("unknown method: %+v", e)
	}
	if e := h.call("files.open", map[string]any{"path": "/etc/passwd"}, nil); e == nil ||
		e.Code != app.CodeBadRequest || e.Reason != app.ReasonOutsideFolder || e.Params["path"] == "" {
		t.Fatalf("outside the folder: %+v", e)
	}
	if err := os.WriteFile(filepath.Join(h.ws, "bin.md"), []byte{0xff, 0xfe, 0, 1}, 0o644); err != nil {
		t.Fatal(err)
	}
	if e := h.call("files.open", map[string]any{"path": "bin.md"}, nil); e == nil || e.Reason != app.ReasonNotUTF8 || e.Params["path"] != "bin.md" {
		t.Fatalf("not UTF-8: %+v", e)
	}

	sum := h.create("test")
	if e := h.call("sessions.prompt", map[string]any{"id": sum.ID, "text": "  "}, nil); e == nil || e.Reason != app.ReasonPromptEmpty {
		t.Fatalf("empty prompt: %+v", e)
	}
	real, _ := filepath.EvalSymlinks(h.ws)
	if err := os.WriteFile(filepath.Join(h.ws, "b.md"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.turnDone(sum.ID, `{"writeFile":{"path":`+q(filepath.Join(real, "b.md"))+`,"content":"agent b\n"}}`)
	if err := os.WriteFile(filepath.Join(h.ws, "b.md"), []byte("mine since\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := h.call("checkpoints.revert", map[string]any{"sessionId": sum.ID, "turn": 1}, nil)
	if codeOf(e) != app.CodeConflict || e.Reason != app.ReasonRevertConflict || e.Params["turn"] != "1" ||
		e.Params["files"] != "b.md" || e.Params["count"] != "1" || strings.Contains(e.Message, sum.ID) || !strings.Contains(e.Message, "turn 1") {
		t.Fatalf("revert conflict: %+v", e)
	}
	e = h.call("checkpoints.changes", map[string]any{"sessionId": sum.ID, "turn": 7}, nil)
	if e == nil || e.Reason != app.ReasonCheckpointNotFound || e.Params["turn"] != "7" || strings.Contains(e.Message, sum.ID) {
		t.Fatalf("no checkpoint: %+v", e)
	}
}
