package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
	"mnote/thread"
)

// A streamed turn reaches the page as events with a gapless seq; the
// page's copy built from them equals the snapshot sessions.open returns.
func TestStreamedTurnEvents(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	if !sum.Live || sum.Status != app.StatusReady || sum.Agent != "test" || sum.Workspace != h.ws {
		t.Fatalf("created: %+v", sum)
	}
	if _, _, err := h.rec.Wait(ctxFor(t), 0, func(ev app.RecordedEvent) bool { return ev.Name == app.EventSessionsChanged }); err != nil {
		t.Fatal(err)
	}

	const answer = "Hello, wörld! This answer streams in small pieces, ünïcode included."
	const thought = "Let me think about the notes first."
	steps := acptest.Steps(
		`{"thought":"`+thought+`","chunk":4}`,
		`{"message":"`+answer+`","chunk":3}`,
		`{"toolCall":{"toolCallId":"tc1","title":"Edit notes.md","kind":"edit","status":"pending",`+
			`"content":[{"type":"diff","path":"notes.md","oldText":"old line\n","newText":"new line\n"}],"locations":[{"path":"notes.md","line":1}]}}`,
		`{"toolCallUpdate":{"toolCallId":"tc1","status":"completed"}}`,
		`{"plan":[{"content":"read the notes","priority":"high","status":"completed"},{"content":"edit them","priority":"low","status":"pending"}]}`,
		`{"usage":{"used":1234,"size":200000}}`,
		`{"message":"Done.","chunk":2}`,
	)
	turn := h.prompt(sum.ID, steps)
	if turn != 1 {
		t.Fatalf("turn %d", turn)
	}
	tp := h.waitTurnEnded(sum.ID, 0, 1)
	if tp.StopReason != "end_turn" || tp.Error != "" {
		t.Fatalf("turn ended: %+v", tp)
	}

	evs := h.threadEvents(sum.ID)
	b := build(t, evs)
	entries := b.list()
	if got := texts(entries, thread.EntryAssistantMessage); len(got) != 2 || got[0] != answer || got[1] != "Done." {
		t.Fatalf("assistant messages: %q\n%s", got, h.dump(sum.ID))
	}
	if got := texts(entries, thread.EntryThought); len(got) != 1 || got[0] != thought {
		t.Fatalf("thoughts: %q", got)
	}
	if got := texts(entries, thread.EntryUserMessage); len(got) != 1 || got[0] != steps {
		t.Fatalf("user messages: %q", got)
	}
	var appends, chunks int
	for _, ev := range evs {
		if ev.Type == app.EvAppend {
			appends++
		}
	}
	chunks = (len(answer)+2)/3 + (len(thought)+3)/4
	t.Logf("%d events, %d appends for %d chunks", len(evs), appends, chunks)

	// The tool call, with its diff, as an entry event.
	var sawDiff bool
	for _, ev := range evs {
		if ev.Type != app.EvEntry {
			continue
		}
		var e thread.Entry
		if err := json.Unmarshal(ev.Payload, &e); err != nil {
			t.Fatal(err)
		}
		if tc := e.ToolCall; tc != nil && tc.ToolCallID == "tc1" && len(tc.Content) == 1 && tc.Content[0].Type == "diff" &&
			tc.Content[0].Path == "notes.md" && tc.Content[0].NewText == "new line\n" && *tc.Content[0].OldText == "old line\n" {
			sawDiff = true
		}
	}
	if !sawDiff {
		t.Fatalf("no entry event with the tool call's diff\n%s", h.dump(sum.ID))
	}
	var usage thread.Usage
	if err := json.Unmarshal(b.meta["usage"], &usage); err != nil || usage.Used != 1234 || usage.Size != 200000 {
		t.Fatalf("usage meta: %s (%v)", b.meta["usage"], err)
	}
	var plan []thread.PlanEntry
	if err := json.Unmarshal(b.meta["plan"], &plan); err != nil || len(plan) != 2 || plan[1].Content != "edit them" {
		t.Fatalf("plan meta: %s", b.meta["plan"])
	}

	// The snapshot is what the events built.
	snap := h.open(sum.ID)
	if snap.Seq != b.lastSeq {
		t.Fatalf("snapshot seq %d, last event %d", snap.Seq, b.lastSeq)
	}
	if snap.Running || len(snap.Pending) != 0 || !snap.Session.Live || snap.Session.Turns != 1 {
		t.Fatalf("snapshot: running %v pending %v session %+v", snap.Running, snap.Pending, snap.Session)
	}
	want, _ := json.Marshal(snap.Thread.Entries)
	got, _ := json.Marshal(entries)
	if string(want) != string(got) {
		t.Fatalf("events built\n%s\nsnapshot has\n%s", got, want)
	}
	if snap.Thread.Usage.Used != 1234 {
		t.Fatalf("snapshot usage %+v", snap.Thread.Usage)
	}
	if !strings.HasPrefix(snap.Session.Title, `[{"thought"`) || !strings.HasSuffix(snap.Session.Title, "…") {
		t.Fatalf("title %q", snap.Session.Title)
	}

	// Unknown methods and bad arguments are bad requests.
	if e := h.call("sessions.nope", map[string]any{}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("unknown method: %v", e)
	}
	if e := h.call("sessions.open", map[string]any{"id": "../x"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("bad id: %v", e)
	}
	if e := h.call("sessions.open", map[string]any{"idd": sum.ID}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("unknown field: %v", e)
	}
	if e := h.call("sessions.open", map[string]any{"id": "01nosuchsession"}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("missing session: %v", e)
	}
	// A second prompt while one runs is busy.
	from := h.rec.Len()
	h.prompt(sum.ID, acptest.Steps(`{"message":"working"}`, `{"sleepMs":5000}`))
	h.waitEvent(sum.ID, from, app.EvEntry, func(p json.RawMessage) bool { return strings.Contains(string(p), `"working"`) })
	if e := h.call("sessions.prompt", map[string]any{"id": sum.ID, "text": "again"}, nil); codeOf(e) != app.CodeBusy {
		t.Fatalf("prompt during a turn: %v", e)
	}
	h.mustCall("sessions.cancel", map[string]any{"id": sum.ID}, nil)
	if tp := h.waitTurnEnded(sum.ID, 0, 2); tp.StopReason != "cancelled" {
		t.Fatalf("cancelled turn: %+v", tp)
	}
}

// Models, in both shapes agents send them: a config option of category
// "model" (session/set_config_option) and the legacy "models" field
// (session/set_model, which the SDK dropped). Offered by session/new,
// picked through the agent, refused models leave the current one, and
// after a restart the models of the session/load result are read.
func TestModels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ shape, method, other string }{
		{"config", `"method":"session/set_config_option"`, `"method":"session/set_model"`},
		{"legacy", `"method":"session/set_model"`, `"method":"session/set_config_option"`},
	} {
		t.Run(tc.shape, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.saveAgent("models", "--state", h.state, "--models", tc.shape)
			sum := h.create("models")
			snap := h.open(sum.ID)
			if snap.Thread.CurrentModelID != "fast" || len(snap.Thread.Models) != 2 || snap.Thread.Models[1].Description != "slow, thorough" {
				t.Fatalf("after create: model %q of %+v", snap.Thread.CurrentModelID, snap.Thread.Models)
			}
			from := h.rec.Len()
			h.mustCall("sessions.setModel", map[string]any{"id": sum.ID, "modelId": "deep"}, nil)
			h.waitEvent(sum.ID, from, app.EvMeta, func(p json.RawMessage) bool { return strings.Contains(string(p), `"currentModelId":"deep"`) })
			if e := h.call("sessions.setModel", map[string]any{"id": sum.ID, "modelId": "bad-model"}, nil); codeOf(e) != app.CodeBadRequest {
				t.Fatalf("a model the agent refuses: %v", e)
			}
			if snap = h.open(sum.ID); snap.Thread.CurrentModelID != "deep" {
				t.Fatalf("after a refused change the model is %q", snap.Thread.CurrentModelID)
			}
			// Restart: the session/load of a new agent process says "deep".
			h.svc.Shutdown()
			tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(tr), tc.method) || strings.Contains(string(tr), tc.other) {
				t.Fatalf("the model is not set with %s alone:\n%s", tc.method, tr)
			}

			h.start()
			h.open(sum.ID)
			from = h.rec.Len()
			h.prompt(sum.ID, "hello")
			h.waitTurnEnded(sum.ID, from, 1)
			if snap = h.open(sum.ID); snap.Thread.CurrentModelID != "deep" || len(snap.Thread.Models) != 2 {
				t.Fatalf("after session/load: model %q of %+v", snap.Thread.CurrentModelID, snap.Thread.Models)
			}
			h.mustCall("sessions.setModel", map[string]any{"id": sum.ID, "modelId": "fast"}, nil)
			if snap = h.open(sum.ID); snap.Thread.CurrentModelID != "fast" {
				t.Fatalf("set after the load: %q", snap.Thread.CurrentModelID)
			}
		})
	}
	// An agent that offers no models: nothing to set.
	h := newHarness(t)
	sum := h.create("test")
	if e := h.call("sessions.setModel", map[string]any{"id": sum.ID, "modelId": "fast"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("set model of an agent without models: %v", e)
	}
}

// Modes and config options: shown from session/new, changed through the
// agent, the change seen as meta events and in the snapshot.
func TestModesAndConfigOptions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.saveAgent("modal", acptest.Scenario(`{"sessionNewResult":{`+
		`"modes":{"currentModeId":"ask","availableModes":[{"id":"ask","name":"Ask"},{"id":"code","name":"Code"}]},`+
		`"configOptions":[{"id":"model","name":"Model","type":"select","currentValue":"small",`+
		`"options":[{"value":"small","name":"Small"},{"value":"big","name":"Big"}]}]}}`)...)
	sum := h.create("modal")
	snap := h.open(sum.ID)
	if snap.Thread.CurrentModeID != "ask" || len(snap.Thread.Modes) != 2 || !strings.Contains(string(snap.Thread.ConfigOptions), `"small"`) {
		t.Fatalf("after create: %+v", snap.Thread)
	}
	from := h.rec.Len()
	h.mustCall("sessions.setMode", map[string]any{"id": sum.ID, "modeId": "code"}, nil)
	h.waitEvent(sum.ID, from, app.EvMeta, func(p json.RawMessage) bool { return strings.Contains(string(p), `"currentModeId":"code"`) })
	h.mustCall("sessions.setConfigOption", map[string]any{"id": sum.ID, "configId": "model", "value": "big"}, nil)
	snap = h.open(sum.ID)
	if snap.Thread.CurrentModeID != "code" || !strings.Contains(string(snap.Thread.ConfigOptions), `"currentValue":"big"`) {
		t.Fatalf("after the changes: mode %q options %s", snap.Thread.CurrentModeID, snap.Thread.ConfigOptions)
	}
	if b := build(t, h.threadEvents(sum.ID)); !strings.Contains(string(b.meta["configOptions"]), `"currentValue":"big"`) {
		t.Fatalf("config options meta: %s", b.meta["configOptions"])
	}
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	if e := h.call("sessions.setModel", map[string]any{"id": sum.ID, "modelId": "fast"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("set model without an agent: %v", e)
	}
	if e := h.call("sessions.setMode", map[string]any{"id": sum.ID, "modeId": "ask"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Fatalf("set mode without an agent: %v", e)
	}
}

// The window's calls (Bridge.Call, which Wails gives no context) run
// under the services' lifetime: the context a method gets stays live
// after the call and ends with Shutdown, as a `mnote serve` call's
// request context ends with its request.
func TestBridgeCallContextEndsWithShutdown(t *testing.T) {
	t.Parallel()
	got := make(chan context.Context, 1)
	h := newHarnessWith(t, func(c *app.Config) {
		c.PickFolder = func(ctx context.Context, _ string) (string, error) {
			got <- ctx
			return "", nil // cancelled
		}
	})
	if e := h.call("workspace.pick", struct{}{}, nil); e != nil {
		t.Fatal(e)
	}
	ctx := <-got
	if ctx.Err() != nil {
		t.Fatalf("the call's context ended before Shutdown: %v", ctx.Err())
	}
	h.svc.Shutdown()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("after Shutdown the window's call context is still live (err %v): a dialog or agent start it waits for would hold the app open", ctx.Err())
	}
}
