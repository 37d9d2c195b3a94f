package app_test

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
	"mnote/thread"
)

// permissionStep asks permission for a tool call of the given kind.
func permissionStep(toolCallID, kind string) string {
	return `{"permission":{"toolCall":{"toolCallId":"` + toolCallID + `","title":"Run it","kind":"` + kind + `",` +
		`"content":[{"type":"diff","path":"a.md","oldText":"x","newText":"y"}]}}}`
}

// waitPermission waits for the session's next permission request.
func (h *harness) waitPermission(id string, from int) (int, app.PermissionRequest) {
	h.t.Helper()
	i, ev := h.waitEvent(id, from, app.EvPermission, nil)
	var req app.PermissionRequest
	if err := json.Unmarshal(ev.Payload, &req); err != nil {
		h.t.Fatal(err)
	}
	return i, req
}

// answers are the agent's messages of a session, from the events.
func (h *harness) answers(id string) []string {
	return texts(build(h.t, h.threadEvents(id)).list(), thread.EntryAssistantMessage)
}

func TestPermissionDecisions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")

	// Approve.
	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(permissionStep("t1", "edit")))
	_, req := h.waitPermission(sum.ID, from)
	if req.ToolCallID != "t1" || req.Kind != "edit" || len(req.Options) != 4 || req.RequestID == "" {
		t.Fatalf("request: %+v", req)
	}
	var tc struct {
		Content []thread.ToolCallContent `json:"content"`
	}
	if err := json.Unmarshal(req.ToolCall, &tc); err != nil || len(tc.Content) != 1 || tc.Content[0].Type != "diff" {
		t.Fatalf("raw toolCall %s", req.ToolCall)
	}
	snap := h.open(sum.ID)
	if !snap.Running || len(snap.Pending) != 1 || snap.Pending[0].RequestID != req.RequestID {
		t.Fatalf("snapshot while asking: running %v pending %+v", snap.Running, snap.Pending)
	}
	if e := h.call("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "nope"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("unknown option: %v", e)
	}
	h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "allow"}, nil)
	if tp := h.waitTurnEnded(sum.ID, from, 1); tp.StopReason != "end_turn" {
		t.Fatalf("turn 1: %+v", tp)
	}
	var res app.ResolvedPayload
	h.waitEvent(sum.ID, from, app.EvPermissionResolved, func(p json.RawMessage) bool { return json.Unmarshal(p, &res) == nil })
	if res.RequestID != req.RequestID || res.OptionID != "allow" {
		t.Fatalf("resolved: %+v", res)
	}
	if e := h.call("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "allow"}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("deciding twice: %v", e)
	}

	// Reject.
	from = h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(permissionStep("t2", "edit")))
	_, req = h.waitPermission(sum.ID, from)
	h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "reject"}, nil)
	h.waitTurnEnded(sum.ID, from, 2)
	snap = h.open(sum.ID)
	if !hasText(snap.Thread.Entries, thread.EntryAssistantMessage, "permission: selected allow") ||
		!hasText(snap.Thread.Entries, thread.EntryAssistantMessage, "permission: selected reject") {
		t.Fatalf("the agent did not see the decisions: %q", texts(snap.Thread.Entries, thread.EntryAssistantMessage))
	}
	if tc, ok := findTool(snap.Thread.Entries, "t2"); !ok || tc.Status != thread.StatusRejected || tc.Decision != "reject_once" {
		t.Fatalf("rejected tool call: %+v", tc)
	}

	// Always allow: remembered, it answers the next request by itself.
	from = h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(permissionStep("t3", "edit")))
	_, req = h.waitPermission(sum.ID, from)
	h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "allow-always"}, nil)
	h.waitTurnEnded(sum.ID, from, 3)
	from = h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(permissionStep("t4", "edit"), `{"message":" after"}`))
	h.waitTurnEnded(sum.ID, from, 4)
	for _, te := range h.threadEvents(sum.ID) {
		if te.Type == app.EvPermission && string(te.Payload) != "" {
			var r app.PermissionRequest
			_ = json.Unmarshal(te.Payload, &r)
			if r.ToolCallID == "t4" {
				t.Fatal("a remembered choice still asked")
			}
		}
	}
	if got := h.answers(sum.ID); got[len(got)-1] != "permission: selected allow-always after" {
		t.Fatalf("answers: %q", got)
	}
	// The transcript tells the remembered rule's decision from the user's.
	b, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil || !strings.Contains(string(b), `"by":"rule"`) || !strings.Contains(string(b), `"by":"user"`) {
		t.Fatalf("permission_decided records: %v", err)
	}
}

func findTool(entries []thread.Entry, id string) (thread.ToolCall, bool) {
	for _, e := range entries {
		if e.ToolCall != nil && e.ToolCall.ToolCallID == id {
			return *e.ToolCall, true
		}
	}
	return thread.ToolCall{}, false
}

// An always-choice also answers the matching requests already waiting,
// in other sessions too; other kinds keep waiting.
func TestAlwaysAnswersWaitingRequests(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, b, c := h.create("test"), h.create("test"), h.create("test")
	from := h.rec.Len()
	h.prompt(a.ID, acptest.Steps(permissionStep("ta", "execute")))
	h.prompt(b.ID, acptest.Steps(permissionStep("tb", "execute")))
	h.prompt(c.ID, acptest.Steps(permissionStep("tc", "delete")))
	_, ra := h.waitPermission(a.ID, from)
	h.waitPermission(b.ID, from)
	_, rc := h.waitPermission(c.ID, from)
	h.mustCall("permissions.decide", map[string]any{"sessionId": a.ID, "requestId": ra.RequestID, "optionId": "reject-always"}, nil)
	h.waitTurnEnded(a.ID, from, 1)
	h.waitTurnEnded(b.ID, from, 1)
	if got := h.answers(b.ID); len(got) != 1 || got[0] != "permission: selected reject-always" {
		t.Fatalf("the waiting request in b: %q", got)
	}
	if snap := h.open(c.ID); len(snap.Pending) != 1 || snap.Pending[0].RequestID != rc.RequestID {
		t.Fatalf("c should still wait: %+v", snap.Pending)
	}
	h.mustCall("permissions.decide", map[string]any{"sessionId": c.ID, "requestId": rc.RequestID, "optionId": "allow"}, nil)
	h.waitTurnEnded(c.ID, from, 1)
}

// Cancelling the turn or closing the session answers a waiting request
// cancelled; the agent sees it and the turn ends cancelled.
func TestPermissionCancelAndClose(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(permissionStep("t1", "edit"), `{"message":"not reached"}`))
	_, req := h.waitPermission(sum.ID, from)
	h.mustCall("sessions.cancel", map[string]any{"id": sum.ID}, nil)
	if tp := h.waitTurnEnded(sum.ID, from, 1); tp.StopReason != "cancelled" {
		t.Fatalf("turn: %+v", tp)
	}
	var res app.ResolvedPayload
	h.waitEvent(sum.ID, from, app.EvPermissionResolved, func(p json.RawMessage) bool { return json.Unmarshal(p, &res) == nil })
	if res.RequestID != req.RequestID || res.OptionID != "" {
		t.Fatalf("resolved: %+v", res)
	}
	if got := h.answers(sum.ID); len(got) != 1 || got[0] != "permission: cancelled" {
		t.Fatalf("the agent saw: %q", got)
	}
	if snap := h.open(sum.ID); snap.Running || len(snap.Pending) != 0 {
		t.Fatalf("after cancel: running %v pending %v", snap.Running, snap.Pending)
	}

	// Close with a request waiting.
	from = h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(permissionStep("t2", "edit"), `{"message":"not reached"}`))
	_, req = h.waitPermission(sum.ID, from)
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	if tp := h.waitTurnEnded(sum.ID, from, 2); tp.StopReason != "cancelled" {
		t.Fatalf("turn 2: %+v", tp)
	}
	h.waitEvent(sum.ID, from, app.EvPermissionResolved, func(p json.RawMessage) bool {
		return json.Unmarshal(p, &res) == nil && res.RequestID == req.RequestID && res.OptionID == ""
	})
	// Closed: the snapshot comes from the transcript.
	snap := h.open(sum.ID)
	if snap.Session.Live || snap.Running {
		t.Fatalf("closed session: %+v", snap.Session)
	}
	if got := texts(snap.Thread.Entries, thread.EntryAssistantMessage); len(got) != 2 || got[1] != "permission: cancelled" {
		t.Fatalf("transcript has: %q", got)
	}
	if tc, ok := findTool(snap.Thread.Entries, "t2"); !ok || tc.Status != thread.StatusCancelled {
		t.Fatalf("tool call after close: %+v", tc)
	}
	if e := h.call("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "allow"}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("decide after close: %v", e)
	}
}

// rawPermission is a session/request_permission the test agent writes
// verbatim (it does not wait for the answer), for a tool call id.
func rawPermission(rpcID, toolCallID string) string {
	line := `{"jsonrpc":"2.0","id":"` + rpcID + `","method":"session/request_permission","params":{` +
		`"toolCall":{"toolCallId":"` + toolCallID + `","title":"Edit ` + toolCallID + `","kind":"edit"},` +
		`"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}`
	b, _ := json.Marshal(map[string]string{"raw": line})
	return string(b)
}

// Requests sent back to back are asked in the order the agent sent them,
// one at a time: the second is shown once the first is answered.
func TestPermissionsAskedInArrivalOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	from := h.rec.Len()
	ids := []string{"first", "second", "third", "fourth"}
	steps := make([]string, len(ids))
	for i, id := range ids {
		steps[i] = rawPermission("q"+strconv.Itoa(i), id)
	}
	h.prompt(sum.ID, acptest.Steps(steps...))
	at := from
	for n, want := range ids {
		i, req := h.waitPermission(sum.ID, at)
		if req.ToolCallID != want {
			t.Fatalf("request %d shown: %q, want %q\n%s", n, req.ToolCallID, want, h.dump(sum.ID))
		}
		if snap := h.open(sum.ID); len(snap.Pending) != 1 || snap.Pending[0].RequestID != req.RequestID {
			t.Fatalf("pending while %q is asked: %+v", want, snap.Pending)
		}
		h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "allow"}, nil)
		at, _ = h.waitEvent(sum.ID, i, app.EvPermissionResolved, func(p json.RawMessage) bool {
			var res app.ResolvedPayload
			return json.Unmarshal(p, &res) == nil && res.RequestID == req.RequestID
		})
	}
	// Each was shown only after the one before it was answered.
	var order []string
	for _, te := range h.threadEvents(sum.ID) {
		switch te.Type {
		case app.EvPermission:
			var r app.PermissionRequest
			_ = json.Unmarshal(te.Payload, &r)
			order = append(order, "ask "+r.ToolCallID)
		case app.EvPermissionResolved:
			order = append(order, "answered")
		}
	}
	want := []string{"ask first", "answered", "ask second", "answered", "ask third", "answered", "ask fourth", "answered"}
	if !slices.Equal(order, want) {
		t.Fatalf("events %q, want %q", order, want)
	}
	// The transcript keeps the requests in wire order too.
	b, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for _, id := range ids {
		i := strings.Index(string(b), `\"toolCallId\":\"`+id+`\"`)
		if i < 0 {
			i = strings.Index(string(b), `"toolCallId":"`+id+`"`)
		}
		if i < last {
			t.Fatalf("transcript has %q before the request sent earlier", id)
		}
		last = i
	}
}

// The remembered always-choices are listed and can be revoked; a revoked
// kind asks again.
func TestPermissionRulesListAndRevoke(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	var rules []app.PermissionRule
	h.mustCall("permissions.rules", nil, &rules)
	if len(rules) != 0 {
		t.Fatalf("rules at start: %+v", rules)
	}
	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(permissionStep("t1", "execute")))
	_, req := h.waitPermission(sum.ID, from)
	h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "allow-always"}, nil)
	h.waitTurnEnded(sum.ID, from, 1)
	h.mustCall("permissions.rules", nil, &rules)
	if len(rules) != 1 || rules[0].Agent != "test" || rules[0].Workspace != h.ws || rules[0].ToolKind != "execute" ||
		rules[0].OptionKind != "allow_always" || rules[0].Decision != "allow" || rules[0].CreatedMs == 0 {
		t.Fatalf("rules: %+v (workspace %s)", rules, h.ws)
	}
	if e := h.call("permissions.revoke", map[string]any{"agent": "", "toolKind": "execute"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("revoke without agent: %v", e)
	}
	h.mustCall("permissions.revoke", map[string]any{"agent": "test", "workspace": rules[0].Workspace, "toolKind": "execute"}, nil)
	h.mustCall("permissions.rules", nil, &rules)
	if len(rules) != 0 {
		t.Fatalf("rules after revoke: %+v", rules)
	}
	// Asked again.
	from = h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(permissionStep("t2", "execute")))
	_, req = h.waitPermission(sum.ID, from)
	if req.ToolCallID != "t2" {
		t.Fatalf("request: %+v", req)
	}
	h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "reject"}, nil)
	h.waitTurnEnded(sum.ID, from, 2)
}

// A remembered rule follows the chosen option's kind, never its name: an
// allow_once named "Always allow" remembers nothing (the next request asks
// again), an allow_always named "Allow once" is remembered for good, and
// a kind ACP does not define is never taken for an always-choice.
func TestRememberedRuleFollowsKindNotName(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	lying := func(id string) string {
		return `{"permission":{"toolCall":{"toolCallId":"` + id + `","title":"Edit a.md","kind":"edit"},"options":[` +
			`{"optionId":"liar","name":"Allow once","kind":"allow_always"},` +
			`{"optionId":"shy","name":"Always allow","kind":"allow_once"},` +
			`{"optionId":"odd","name":"Always allow","kind":"allow_for_ever"}]}}`
	}
	var rules []app.PermissionRule
	for i, choice := range []string{"shy", "odd", "liar"} {
		from := h.rec.Len()
		h.prompt(sum.ID, acptest.Steps(lying("t"+strconv.Itoa(i))))
		_, req := h.waitPermission(sum.ID, from)
		h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": choice}, nil)
		h.waitTurnEnded(sum.ID, from, i+1)
		h.mustCall("permissions.rules", nil, &rules)
		if choice != "liar" && len(rules) != 0 {
			t.Fatalf("%s (named %q) remembered a rule: %+v", choice, "Always allow", rules)
		}
	}
	if len(rules) != 1 || rules[0].ToolKind != "edit" || rules[0].OptionKind != "allow_always" {
		t.Fatalf("rules after the allow_always named \"Allow once\": %+v", rules)
	}
	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(lying("t9")))
	h.waitTurnEnded(sum.ID, from, 4)
	if got := h.answers(sum.ID); got[len(got)-1] != "permission: selected liar" {
		t.Fatalf("the next edit was not answered by the rule: %q", got)
	}
}
