package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/acp/runtimes"
	"mnote/app"
	"mnote/store"
	"mnote/thread"
)

const askSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","title":"Name"},` +
	`"count":{"type":"integer","minimum":1,"maximum":5},` +
	`"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]}},` +
	`"required":["name"]}`

func askStep(extra string) string {
	return `{"elicit":{"message":"Which one?","requestedSchema":` + askSchema + extra + `}}`
}

func (h *harness) waitQuestion(id string, from int) (int, app.ElicitationRequest) {
	h.t.Helper()
	i, ev := h.waitEvent(id, from, app.EvElicitation, nil)
	var req app.ElicitationRequest
	if err := json.Unmarshal(ev.Payload, &req); err != nil {
		h.t.Fatal(err)
	}
	return i, req
}

func (h *harness) waitQuestionResolved(id string, from int) app.ElicitationResolvedPayload {
	h.t.Helper()
	var res app.ElicitationResolvedPayload
	h.waitEvent(id, from, app.EvElicitationResolved, func(p json.RawMessage) bool { return json.Unmarshal(p, &res) == nil })
	return res
}

// A question is shown, kept in the snapshot, refused when the answer does
// not fit its form, and sent when it does.
func TestElicitationAnsweredInTheUI(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(askStep("")))
	_, q := h.waitQuestion(sum.ID, from)
	if q.Message != "Which one?" || q.RequestID == "" || !strings.HasPrefix(string(q.Schema), `{"type":"object","properties":{"name"`) {
		t.Fatalf("question %+v", q)
	}
	snap := h.open(sum.ID)
	if len(snap.Questions) != 1 || snap.Questions[0].RequestID != q.RequestID {
		t.Fatalf("snapshot questions %+v", snap.Questions)
	}
	// The question is in the thread where it was asked, unanswered yet.
	question := func(snap app.Snapshot) *thread.Question {
		for _, e := range snap.Thread.Entries {
			if e.Kind == thread.EntryQuestion {
				return e.Question
			}
		}
		return nil
	}
	if qe := question(snap); qe == nil || qe.Message != "Which one?" || qe.Action != "" || !strings.Contains(string(qe.Schema), `"name"`) {
		t.Fatalf("question entry %+v", qe)
	}
	answer := func(action, content string) *app.Error {
		args := map[string]any{"sessionId": sum.ID, "requestId": q.RequestID, "action": action}
		if content != "" {
			args["content"] = json.RawMessage(content)
		}
		return h.call("elicitations.answer", args, nil)
	}
	for content, details := range map[string]string{
		`{"count":2}`:                        "name: required",
		`{"name":"A","count":9}`:             "count: max",
		`{"name":"A","color":"Red"}`:         "color: choice",
		`{"name":"A","count":1.5,"extra":1}`: "count: type\nextra: unknown",
	} {
		e := answer("accept", content)
		if codeOf(e) != app.CodeBadRequest || e.Details != details {
			t.Fatalf("answer %s: %+v, want details %q", content, e, details)
		}
	}
	if e := answer("maybe", ""); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("unknown action: %v", e)
	}
	if e := h.call("elicitations.answer", map[string]any{"sessionId": "other", "requestId": q.RequestID, "action": "decline"}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("another session's question: %v", e)
	}
	if e := answer("accept", `{"name":"Ann","count":5,"color":"g"}`); e != nil {
		t.Fatalf("good answer: %+v", e)
	}
	if tp := h.waitTurnEnded(sum.ID, from, 1); tp.StopReason != "end_turn" {
		t.Fatalf("turn: %+v", tp)
	}
	if res := h.waitQuestionResolved(sum.ID, from); res.RequestID != q.RequestID || res.Action != "accept" {
		t.Fatalf("resolved %+v", res)
	}
	if got := h.answers(sum.ID); !slices.Contains(got, `elicit: accept {"name":"Ann","count":5,"color":"g"}`) {
		t.Fatalf("agent said %q", got)
	}
	if e := answer("decline", ""); codeOf(e) != app.CodeNotFound {
		t.Fatalf("answering twice: %v", e)
	}
	if snap := h.open(sum.ID); len(snap.Questions) != 0 {
		t.Fatalf("answered question still in the snapshot: %+v", snap.Questions)
	}
	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"elicitation/create"`, `"elicitation_asked"`, `"elicitation_answered"`, `"action":"accept"`} {
		if !strings.Contains(string(tr), want) {
			t.Fatalf("transcript lacks %s", want)
		}
	}
	// What was asked and answered stays in the thread.
	wantAnswer := func(when string, snap app.Snapshot) {
		t.Helper()
		qe := question(snap)
		if qe == nil || qe.Message != "Which one?" || qe.Action != "accept" || string(qe.Content) != `{"name":"Ann","count":5,"color":"g"}` {
			t.Fatalf("%s: question entry %+v", when, qe)
		}
	}
	wantAnswer("live", h.open(sum.ID))
	// Rebuilt from the transcript after a restart: the records are read
	// and the thread is whole, the question with its answer.
	h.svc.Shutdown()
	store.RemoveThreadCache(h.paths, sum.ID)
	h.start()
	snap = h.open(sum.ID)
	wantAnswer("rebuilt", snap)
	found := false
	for _, e := range snap.Thread.Entries {
		found = found || strings.HasPrefix(e.Text, "elicit: accept")
	}
	if !found || len(snap.Questions) != 0 {
		t.Fatalf("after a restart: questions %+v, entries %+v", snap.Questions, snap.Thread.Entries)
	}
}

// Cancelling the turn answers the question cancel and closes it; so does
// the agent's $/cancel_request.
func TestElicitationClosedByCancel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")

	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(askStep(""), `{"message":" after"}`))
	_, q := h.waitQuestion(sum.ID, from)
	h.mustCall("sessions.cancel", map[string]any{"id": sum.ID}, nil)
	if res := h.waitQuestionResolved(sum.ID, from); res.RequestID != q.RequestID || res.Action != "cancel" {
		t.Fatalf("resolved %+v", res)
	}
	if tp := h.waitTurnEnded(sum.ID, from, 1); tp.StopReason != "cancelled" {
		t.Fatalf("turn: %+v", tp)
	}
	if got := h.answers(sum.ID); len(got) == 0 || !strings.HasPrefix(got[0], "elicit: cancel") {
		t.Fatalf("agent said %q", got)
	}

	// The agent withdraws its question ($/cancel_request): it closes,
	// answered cancel, and the turn goes on.
	from = h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(askStep(`,"withdraw":true`), `{"message":" | next"}`))
	if tp := h.waitTurnEnded(sum.ID, from, 2); tp.StopReason != "end_turn" {
		t.Fatalf("turn 2: %+v", tp)
	}
	if got := h.answers(sum.ID); !slices.Contains(got, "elicit: cancel | next") {
		t.Fatalf("agent said %q", got)
	}
	if snap := h.open(sum.ID); len(snap.Questions) != 0 {
		t.Fatalf("withdrawn question still shown: %+v", snap.Questions)
	}
}

// agents.listSessions lists the agent's own sessions; sessions.import
// brings one in by session/load, its history replayed and recorded.
func TestImportAgentSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(`{"title":"Old work"}`, `{"message":"remembered answer"}`))
	h.waitTurnEnded(sum.ID, from, 1)

	var list app.AgentSessions
	h.mustCall("agents.listSessions", map[string]any{"agent": "test"}, &list)
	if !list.CanImport || len(list.Sessions) != 1 || list.Sessions[0].Title != "Old work" || list.Sessions[0].Cwd != h.ws {
		t.Fatalf("listed %+v", list)
	}
	agentID := list.Sessions[0].AgentSessionID

	var imp app.SessionSummary
	h.mustCall("sessions.import", map[string]any{"agent": "test", "agentSessionId": agentID}, &imp)
	if imp.ID == "" || imp.ID == sum.ID || imp.Agent != "test" {
		t.Fatalf("imported %+v", imp)
	}
	snap := h.open(imp.ID)
	found := false
	for _, e := range snap.Thread.Entries {
		found = found || strings.Contains(e.Text, "remembered answer")
	}
	if !found {
		t.Fatalf("the imported session lacks the agent's history: %s", h.dump(imp.ID))
	}
	tr, err := os.ReadFile(h.paths.TranscriptPath(imp.ID))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tr), `"session/load"`) || !strings.Contains(string(tr), agentID) {
		t.Fatalf("transcript does not record the load of %s", agentID)
	}
	if e := h.call("sessions.import", map[string]any{"agent": "test", "agentSessionId": "no-such-session"}, nil); e == nil {
		t.Fatal("importing an unknown session worked")
	}
	if e := h.call("sessions.import", map[string]any{"agent": "test"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("import without an id: %v", e)
	}
}

// additionalDirectories come from config.json's allow-list: folders that
// exist and hold none of mnote's own data, only to an agent that offers
// them.
func TestAdditionalDirectoriesFromConfig(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	extra := t.TempDir()
	h.saveAgent("dirs", append(acptest.Scenario(`{"additionalDirectories":true,"loadSession":true}`), "--state", t.TempDir())...)
	cfg, err := runtimes.LoadConfig(h.paths.ConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	as := cfg.AgentServers["dirs"]
	as.AdditionalDirectories = []string{extra, filepath.Join(extra, "missing"), h.paths.DataDir, filepath.Dir(h.paths.DataDir)}
	cfg.AgentServers["dirs"] = as
	if err := runtimes.SaveConfig(h.paths.ConfigFile, cfg); err != nil {
		t.Fatal(err)
	}
	sum := h.create("dirs")
	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	want := `"additionalDirectories":[` + string(must(json.Marshal(extra))) + `]`
	if !strings.Contains(string(tr), want) {
		t.Fatalf("transcript lacks %s:\n%s", want, tr)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A boolean config option is set with a bool, sent as ACP type "boolean"
// (the capability mnote offers); a value of another type is refused.
func TestBooleanConfigOption(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.saveAgent("toggles", acptest.Scenario(`{"sessionNewResult":{"configOptions":[`+
		`{"id":"web","name":"Web search","type":"boolean","currentValue":false},`+
		`{"id":"model","name":"Model","type":"select","currentValue":"small","options":[{"value":"small","name":"Small"},{"value":"big","name":"Big"}]}]}}`)...)
	sum := h.create("toggles")
	h.mustCall("sessions.setConfigOption", map[string]any{"id": sum.ID, "configId": "web", "value": true}, nil)
	h.mustCall("sessions.setConfigOption", map[string]any{"id": sum.ID, "configId": "model", "value": "big"}, nil)
	snap := h.open(sum.ID)
	if s := string(snap.Thread.ConfigOptions); !strings.Contains(s, `{"currentValue":true,"id":"web"`) || !strings.Contains(s, `"currentValue":"big"`) {
		t.Fatalf("options %s", snap.Thread.ConfigOptions)
	}
	if e := h.call("sessions.setConfigOption", map[string]any{"id": sum.ID, "configId": "web", "value": 1}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("a number value: %v", e)
	}
	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tr), `"type":"boolean"`) {
		t.Fatal("the boolean value was not sent with type boolean")
	}
}
