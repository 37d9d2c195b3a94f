package thread

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// upd decodes an update from its wire JSON, as the ACP reader does.
func upd(t *testing.T, s string) *Update {
	t.Helper()
	var u Update
	if err := json.Unmarshal([]byte(s), &u); err != nil {
		t.Fatalf("bad test update %s: %v", s, err)
	}
	return &u
}

func msg(kind, text string) string {
	return `{"sessionUpdate":"` + kind + `","content":{"type":"text","text":` + mustJSON(text) + `}}`
}

func msgID(kind, id, text string) string {
	return `{"sessionUpdate":"` + kind + `","messageId":"` + id + `","content":{"type":"text","text":` + mustJSON(text) + `}}`
}

// apply applies wire updates and fails on any error.
func apply(t *testing.T, th *Thread, updates ...string) []Change {
	t.Helper()
	var out []Change
	for _, s := range updates {
		ch, err := th.Apply(upd(t, s))
		if err != nil {
			t.Fatalf("Apply(%s): %v", s, err)
		}
		out = append(out, ch)
	}
	return out
}

func newTestThread() *Thread {
	th := New()
	var ms int64
	th.Clock = func() time.Time { ms += 10; return time.UnixMilli(ms) }
	return th
}

// summary renders entries compactly: kind:text or tool:id:status.
func summary(th *Thread) string {
	var parts []string
	for _, e := range th.Entries() {
		switch {
		case e.ToolCall != nil:
			parts = append(parts, "tool:"+e.ToolCall.ToolCallID+":"+e.ToolCall.Status)
		case e.Kind == EntryPlan:
			parts = append(parts, "plan:"+mustJSON(e.Plan))
		default:
			parts = append(parts, e.Kind+":"+e.Text)
		}
	}
	return strings.Join(parts, " | ")
}

func TestUnknownKind(t *testing.T) {
	th := newTestThread()
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "hi"}})
	apply(t, th, msg(KindAgentMessageChunk, "open"))
	before := th.Snapshot()
	for _, s := range []string{
		`{"sessionUpdate":"tool_call_progress","toolCallId":"x","title":"t"}`,
		`{"content":{"type":"text","text":"no kind"}}`,
	} {
		ch, err := th.Apply(upd(t, s))
		if !errors.Is(err, ErrUnknownKind) {
			t.Fatalf("Apply(%s) error = %v, want ErrUnknownKind", s, err)
		}
		if s[2] == 's' && !strings.Contains(err.Error(), "tool_call_progress") {
			t.Errorf("error %q does not name the kind", err)
		}
		if ch != (Change{}) {
			t.Errorf("change = %+v, want none", ch)
		}
	}
	if !reflect.DeepEqual(th.Snapshot(), before) {
		t.Error("an unknown kind changed the thread")
	}
	// The open entry is still open.
	if chs := apply(t, th, msg(KindAgentMessageChunk, "+more")); chs[0].Op != OpAppend {
		t.Errorf("after unknown kind: %+v", chs[0])
	}
	if _, err := th.Apply(nil); !errors.Is(err, ErrInvalidUpdate) {
		t.Errorf("Apply(nil) = %v", err)
	}
}

func TestChunksAndChanges(t *testing.T) {
	th := newTestThread()
	ch := th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "Hello "}, {Type: "text", Text: "there"}})
	if ch != (Change{Op: OpUpsert, EntryID: "e1", Kind: EntryUserMessage}) {
		t.Errorf("AddUserPrompt change = %+v", ch)
	}
	chs := apply(t, th,
		msg(KindAgentThoughtChunk, "think "),
		msg(KindAgentThoughtChunk, "more"),
		msg(KindAgentMessageChunk, "Hi"),
		msg(KindAgentMessageChunk, ""), // nothing
		msg(KindAgentMessageChunk, " you\n\"quoted\" \u00e9\U0001F600"),
	)
	want := []Change{
		{Op: OpUpsert, EntryID: "e2", Kind: EntryThought, Delta: "think "},
		{Op: OpAppend, EntryID: "e2", Kind: EntryThought, Delta: "more"},
		{Op: OpUpsert, EntryID: "e3", Kind: EntryAssistantMessage, Delta: "Hi"},
		{},
		{Op: OpAppend, EntryID: "e3", Kind: EntryAssistantMessage, Delta: " you\n\"quoted\" \u00e9\U0001F600"},
	}
	if !reflect.DeepEqual(chs, want) {
		t.Errorf("changes\n got %+v\nwant %+v", chs, want)
	}
	if got := summary(th); got != "user_message:Hello there | thought:think more | assistant_message:Hi you\n\"quoted\" é😀" {
		t.Errorf("entries = %q", got)
	}
	e, _ := th.Entry("e2")
	if e.Streaming || e.Turn != 1 {
		t.Errorf("thought = %+v, want closed, turn 1", e)
	}
	if e, _ := th.Entry("e3"); !e.Streaming {
		t.Error("message not streaming")
	}
	changes := th.EndTurn("end_turn")
	if !reflect.DeepEqual(changes, []Change{{Op: OpUpsert, EntryID: "e3", Kind: EntryAssistantMessage}}) {
		t.Errorf("EndTurn changes = %+v", changes)
	}
	if e, _ := th.Entry("e3"); e.Streaming {
		t.Error("message still streaming after EndTurn")
	}
	// A new turn's chunk starts a new entry.
	apply(t, th, msg(KindAgentMessageChunk, "late"))
	if th.Len() != 4 {
		t.Errorf("len = %d, want 4", th.Len())
	}
	if _, ok := th.Entry("e99"); ok {
		t.Error("Entry(e99) found")
	}
	if _, ok := th.Entry("x1"); ok {
		t.Error("Entry(x1) found")
	}
}

func TestMessageIDSplitting(t *testing.T) {
	th := newTestThread()
	apply(t, th,
		msgID(KindAgentMessageChunk, "m1", "a"),
		msgID(KindAgentMessageChunk, "m1", "b"),
		msgID(KindAgentMessageChunk, "m2", "c"), // new message
		msg(KindAgentMessageChunk, "d"),         // no id: same message
		msgID(KindAgentThoughtChunk, "m2", "t"), // other kind closes it
		msgID(KindAgentMessageChunk, "m2", "e"), // same id, but closed
		msg(KindAgentThoughtChunk, "u"),
		msg(KindAgentMessageChunk, "f"),
		msgID(KindAgentMessageChunk, "m3", "g"), // an id on an entry without one is adopted
		msgID(KindAgentMessageChunk, "m4", "h"),
	)
	got := summary(th)
	want := "assistant_message:ab | assistant_message:cd | thought:t | assistant_message:e | thought:u | assistant_message:fg | assistant_message:h"
	if got != want {
		t.Errorf("entries\n got %q\nwant %q", got, want)
	}
	var ids []string
	for _, e := range th.Entries() {
		ids = append(ids, e.MessageID)
	}
	if strings.Join(ids, ",") != "m1,m2,m2,m2,,m3,m4" {
		t.Errorf("message ids = %v", ids)
	}
}

func TestNonTextBlocks(t *testing.T) {
	th := newTestThread()
	image := `{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo=","uri":"file:///a.png"}`
	link := `{"type":"resource_link","uri":"file:///notes/a.md","name":"a.md"}`
	resource := `{"type":"resource","resource":{"uri":"file:///b.md","text":"embedded, not text"}}`
	unknown := `{"type":"hologram","depth":3}`
	chs := apply(t, th,
		msg(KindAgentMessageChunk, "see "),
		`{"sessionUpdate":"agent_message_chunk","content":`+image+`}`,
		msg(KindAgentMessageChunk, "and "),
		`{"sessionUpdate":"agent_message_chunk","content":`+link+`}`,
		`{"sessionUpdate":"agent_message_chunk","content":`+resource+`}`,
		`{"sessionUpdate":"agent_message_chunk","content":`+unknown+`}`,
		`{"sessionUpdate":"agent_message_chunk"}`, // no content at all
		`{"sessionUpdate":"agent_message_chunk","content":null}`,
	)
	for i, op := range []string{OpUpsert, OpUpsert, OpAppend, OpUpsert, OpUpsert, OpUpsert, "", ""} {
		if chs[i].Op != op {
			t.Errorf("change %d = %+v, want op %q", i, chs[i], op)
		}
	}
	e, _ := th.Entry("e1")
	if e.Text != "see and " {
		t.Errorf("text = %q", e.Text)
	}
	want := []Block{
		{Type: "image", Offset: 4, Raw: json.RawMessage(image)},
		{Type: "resource_link", Offset: 8, Raw: json.RawMessage(link)},
		{Type: "resource", Offset: 8, Raw: json.RawMessage(resource)},
		{Type: "hologram", Offset: 8, Raw: json.RawMessage(unknown)},
	}
	if !reflect.DeepEqual(e.Blocks, want) {
		t.Errorf("blocks\n got %s\nwant %s", mustJSON(e.Blocks), mustJSON(want))
	}

	// Content that is not a JSON object is an error and changes nothing.
	before := th.Snapshot()
	for _, c := range []string{`"just a string"`, `[1,2]`, `{"type":`, `7`} {
		if _, err := th.Apply(&Update{SessionUpdate: KindAgentMessageChunk, Content: json.RawMessage(c)}); !errors.Is(err, ErrInvalidUpdate) {
			t.Errorf("content %s: err = %v, want ErrInvalidUpdate", c, err)
		}
	}
	if !reflect.DeepEqual(th.Snapshot(), before) {
		t.Error("malformed content changed the thread")
	}
	// An object with odd field types is kept raw, never misread as text.
	apply(t, th,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":5}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":["not","a","string"]}}`)
	e, _ = th.Entry("e1")
	if n := len(e.Blocks); n != 6 || e.Blocks[4].Type != "" || e.Blocks[5].Type != "text" || e.Text != "see and " {
		t.Errorf("odd blocks: %s", mustJSON(e))
	}

	// The client's own prompt keeps its non-text blocks too.
	th.AddUserPrompt([]ContentBlock{
		{Type: "text", Text: "look at "},
		{Type: "resource_link", URI: "file:///c.md", Name: "c.md"},
		{Type: "text", Text: "this"},
	})
	u, _ := th.Entry("e2")
	if u.Text != "look at this" || len(u.Blocks) != 1 || u.Blocks[0].Offset != 8 ||
		string(u.Blocks[0].Raw) != `{"type":"resource_link","uri":"file:///c.md","name":"c.md"}` {
		t.Errorf("user entry = %+v (%s)", u, mustJSON(u.Blocks))
	}
}

func TestToolCallMerge(t *testing.T) {
	th := newTestThread()
	apply(t, th,
		msg(KindAgentMessageChunk, "before"),
		`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Edit","kind":"edit","status":"pending","rawInput":{}}`,
		msg(KindAgentMessageChunk, "between"),
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"Edit notes/a.md","status":"in_progress",
		  "locations":[{"path":"/n/a.md","line":3}],"rawInput":{"path":"/n/a.md"},
		  "content":[{"type":"diff","path":"/n/a.md","oldText":"x","newText":"y"}]}`,
		msg(KindAgentMessageChunk, " still open"), // an update to an old call does not close the message
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","rawOutput":{"ok":true},"futureField":[1]}`,
	)
	if got := summary(th); got != "assistant_message:before | tool:c1:completed | assistant_message:between still open" {
		t.Errorf("entries = %q", got)
	}
	tc, ok := th.ToolCall("c1")
	if !ok {
		t.Fatal("c1 missing")
	}
	want := ToolCall{
		ID: "e2", ToolCallID: "c1", Title: "Edit notes/a.md", Kind: "edit", Status: StatusCompleted,
		Content:   []ToolCallContent{diffContent("/n/a.md", "x", "y")},
		Locations: []Location{{Path: "/n/a.md", Line: ptr(3)}},
		RawInput:  json.RawMessage(`{"path":"/n/a.md"}`), RawOutput: json.RawMessage(`{"ok":true}`),
		StartedMs: 20, EndedMs: 40,
	}
	if !reflect.DeepEqual(tc, want) {
		t.Errorf("tool call\n got %s\nwant %s", mustJSON(tc), mustJSON(want))
	}
	// Content present replaces, even with an empty list.
	apply(t, th, `{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":[{"type":"content","content":{"type":"text","text":"done"}}]}`)
	if tc, _ := th.ToolCall("c1"); !reflect.DeepEqual(tc.Content, []ToolCallContent{textContent("done")}) {
		t.Errorf("content = %s", mustJSON(tc.Content))
	}
	apply(t, th, `{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":[],"title":""}`)
	if tc, _ := th.ToolCall("c1"); len(tc.Content) != 0 || tc.Title != "Edit notes/a.md" {
		t.Errorf("after empty content: %s", mustJSON(tc))
	}

	// Errors change nothing.
	before := th.Snapshot()
	for _, s := range []string{
		`{"sessionUpdate":"tool_call","title":"no id"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed","content":{"type":"text"}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed","locations":"here"}`,
	} {
		if _, err := th.Apply(upd(t, s)); !errors.Is(err, ErrInvalidUpdate) {
			t.Errorf("Apply(%s) = %v, want ErrInvalidUpdate", s, err)
		}
	}
	if !reflect.DeepEqual(th.Snapshot(), before) {
		t.Error("a failed update changed the thread")
	}
}

func TestToolCallUpdateForUnknownID(t *testing.T) {
	th := newTestThread()
	chs := apply(t, th, `{"sessionUpdate":"tool_call_update","toolCallId":"ghost","title":"Run ls","kind":"execute","status":"in_progress"}`)
	if chs[0] != (Change{Op: OpUpsert, EntryID: "e1", Kind: EntryToolCall}) {
		t.Errorf("change = %+v", chs[0])
	}
	tc, ok := th.ToolCall("ghost")
	if !ok || tc.Title != "Run ls" || tc.Kind != "execute" || tc.Status != StatusInProgress || tc.ID != "e1" {
		t.Errorf("tool call = %+v, %v", tc, ok)
	}
	// A repeated tool_call for a known id merges instead of duplicating.
	apply(t, th, `{"sessionUpdate":"tool_call","toolCallId":"ghost","status":"completed"}`)
	if th.Len() != 1 || summary(th) != "tool:ghost:completed" {
		t.Errorf("entries = %q", summary(th))
	}
}

func TestPermissions(t *testing.T) {
	opts := json.RawMessage(`[{"optionId":"a","name":"Allow","kind":"allow_once"},{"optionId":"r","name":"Reject","kind":"reject_once"},{"optionId":"ra","name":"Never","kind":"reject_always"}]`)
	for _, tc := range []struct {
		name           string
		announce       bool // tool_call before the request
		outcome, kind  string
		after          string // agent status after the answer
		status, finale string // status after the answer, after the agent's update
	}{
		{"allow", true, "selected", "allow_once", "completed", StatusInProgress, StatusCompleted},
		{"allow always, before tool_call", false, "selected", "allow_always", "completed", StatusInProgress, StatusCompleted},
		{"reject", true, "selected", "reject_once", "failed", StatusRejected, StatusRejected},
		{"reject always, before tool_call", false, "selected", "reject_always", "failed", StatusRejected, StatusRejected},
		{"cancelled", true, "cancelled", "", "", StatusCancelled, StatusCancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th := newTestThread()
			if tc.announce {
				apply(t, th, `{"sessionUpdate":"tool_call","toolCallId":"p1","title":"Edit","kind":"edit","status":"pending"}`)
			}
			ch, err := th.PermissionRequested(json.RawMessage(`{"toolCallId":"p1","title":"a.md","status":"pending",
				"content":[{"type":"diff","path":"/a.md","oldText":null,"newText":"new"}]}`), opts)
			if err != nil {
				t.Fatal(err)
			}
			if ch != (Change{Op: OpUpsert, EntryID: "e1", Kind: EntryToolCall}) {
				t.Errorf("change = %+v", ch)
			}
			if !tc.announce {
				// Gemini announces the call after asking.
				apply(t, th, `{"sessionUpdate":"tool_call","toolCallId":"p1","kind":"edit","status":"pending"}`)
			}
			// The agent's pending/in_progress does not hide the question.
			apply(t, th, `{"sessionUpdate":"tool_call_update","toolCallId":"p1","status":"in_progress"}`)
			got, _ := th.ToolCall("p1")
			if th.Len() != 1 || got.Status != StatusAwaitingPermission || len(got.Options) != 3 || got.Title != "a.md" || got.Kind != "edit" {
				t.Fatalf("awaiting: %s", mustJSON(got))
			}
			if d := got.Content; len(d) != 1 || d[0].Type != "diff" || d[0].OldText != nil || d[0].NewText != "new" {
				t.Errorf("diff = %s", mustJSON(d))
			}
			ch = th.PermissionResolved("p1", tc.outcome, tc.kind)
			if ch.EntryID != "e1" {
				t.Errorf("resolve change = %+v", ch)
			}
			got, _ = th.ToolCall("p1")
			wantDecision := tc.kind
			if tc.outcome == "cancelled" {
				wantDecision = "cancelled"
			}
			if got.Status != tc.status || got.Options != nil || got.Decision != wantDecision {
				t.Errorf("after answer: %s", mustJSON(got))
			}
			if tc.after != "" {
				apply(t, th, `{"sessionUpdate":"tool_call_update","toolCallId":"p1","status":"`+tc.after+`"}`)
			}
			if got, _ = th.ToolCall("p1"); got.Status != tc.finale || got.EndedMs == 0 {
				t.Errorf("final: %s", mustJSON(got))
			}
		})
	}
	th := newTestThread()
	if ch := th.PermissionResolved("nobody", "selected", "allow_once"); ch != (Change{}) {
		t.Errorf("unknown id: %+v", ch)
	}
	if _, err := th.PermissionRequested(json.RawMessage(`{"title":"no id"}`), opts); !errors.Is(err, ErrInvalidUpdate) {
		t.Errorf("no id: %v", err)
	}
	if _, err := th.PermissionRequested(json.RawMessage(`{"toolCallId":"x"}`), json.RawMessage(`{}`)); !errors.Is(err, ErrInvalidUpdate) {
		t.Errorf("bad options: %v", err)
	}
	if th.Len() != 0 {
		t.Errorf("failed requests created %d entries", th.Len())
	}
}

func TestEndTurn(t *testing.T) {
	for _, tc := range []struct{ stop, open string }{
		{"cancelled", StatusCancelled},
		{"error", StatusFailed},
		{"end_turn", ""}, // left as the agent said
		{"max_tokens", ""},
	} {
		t.Run(tc.stop, func(t *testing.T) {
			th := newTestThread()
			th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "go"}})
			apply(t, th,
				`{"sessionUpdate":"tool_call","toolCallId":"done","status":"completed"}`,
				`{"sessionUpdate":"tool_call","toolCallId":"pend","status":"pending"}`,
				`{"sessionUpdate":"tool_call","toolCallId":"run","status":"in_progress"}`,
				`{"sessionUpdate":"tool_call","toolCallId":"ask"}`,
			)
			if _, err := th.PermissionRequested(json.RawMessage(`{"toolCallId":"ask"}`), json.RawMessage(`[{"optionId":"y","name":"y","kind":"allow_once"}]`)); err != nil {
				t.Fatal(err)
			}
			apply(t, th, msg(KindAgentMessageChunk, "partial"))
			changes := th.EndTurn(tc.stop)
			want := []Change{{Op: OpUpsert, EntryID: "e6", Kind: EntryAssistantMessage}}
			statuses := "tool:done:completed | tool:pend:pending | tool:run:in_progress | tool:ask:awaiting_permission"
			if tc.open != "" {
				for _, id := range []string{"e3", "e4", "e5"} {
					want = append(want, Change{Op: OpUpsert, EntryID: id, Kind: EntryToolCall})
				}
				statuses = "tool:done:completed | tool:pend:" + tc.open + " | tool:run:" + tc.open + " | tool:ask:" + tc.open
			}
			if !reflect.DeepEqual(changes, want) {
				t.Errorf("changes\n got %+v\nwant %+v", changes, want)
			}
			if got, want := summary(th), "user_message:go | "+statuses+" | assistant_message:partial"; got != want {
				t.Errorf("entries\n got %q\nwant %q", got, want)
			}
			if tc.open != "" {
				if ask, _ := th.ToolCall("ask"); ask.Options != nil || ask.EndedMs == 0 {
					t.Errorf("ask = %s", mustJSON(ask))
				}
			}
			if s := th.Snapshot(); s.StopReason != tc.stop {
				t.Errorf("stop reason = %q", s.StopReason)
			}
			if e, _ := th.Entry("e6"); e.Streaming {
				t.Error("message still streaming")
			}
		})
	}
}

func TestPlan(t *testing.T) {
	th := newTestThread()
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "plan it"}})
	chs := apply(t, th,
		`{"sessionUpdate":"plan","entries":[{"content":"read","priority":"high","status":"pending"}]}`,
		msg(KindAgentMessageChunk, "working"),
		`{"sessionUpdate":"plan","entries":[{"content":"read","priority":"high","status":"completed"},{"content":"write","priority":"low","status":"in_progress"}]}`,
		msg(KindAgentMessageChunk, " still"),
	)
	if chs[0] != chs[2] || chs[0] != (Change{Op: OpUpsert, EntryID: "e2", Kind: EntryPlan}) {
		t.Errorf("plan changes = %+v, %+v", chs[0], chs[2])
	}
	if chs[3].Op != OpAppend {
		t.Errorf("plan replaced in place must not close the message: %+v", chs[3])
	}
	want := []PlanEntry{{"read", "high", "completed"}, {"write", "low", "in_progress"}}
	if e, _ := th.Entry("e2"); !reflect.DeepEqual(e.Plan, want) {
		t.Errorf("plan entry = %+v", e.Plan)
	}
	th.EndTurn("end_turn")
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "again"}})
	apply(t, th, `{"sessionUpdate":"plan","entries":[]}`)
	got := summary(th)
	if got != `user_message:plan it | plan:[{"content":"read","priority":"high","status":"completed"},{"content":"write","priority":"low","status":"in_progress"}] | assistant_message:working still | user_message:again | plan:[]` {
		t.Errorf("entries = %q", got)
	}
	if s := th.Snapshot(); s.Plan == nil || len(s.Plan) != 0 || s.Turn != 2 {
		t.Errorf("snapshot plan = %v turn %d", s.Plan, s.Turn)
	}
}

func TestSessionState(t *testing.T) {
	th := newTestThread()
	chs := apply(t, th,
		`{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"web","description":"search","input":{"hint":"query"}}]}`,
		`{"sessionUpdate":"current_mode_update","currentModeId":"plan"}`,
		`{"sessionUpdate":"config_option_update","configOptions":[{"id":"model","currentValue":"m1"}]}`,
		`{"sessionUpdate":"session_info_update","title":"Notes","updatedAt":"2026-01-02T03:04:05Z","_meta":{"x":1}}`,
		`{"sessionUpdate":"usage_update","used":53000,"size":200000,"cost":{"amount":0.045,"currency":"USD"}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""},"_meta":{"usage":{"inputTokens":10,"outputTokens":2.0,"totalTokens":12,"cachedReadTokens":0,"note":"x"}}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""},"_meta":{"usage":{"inputTokens":5,"outputTokens":1,"totalTokens":6}}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""},"_meta":{"usage":"n/a"}}`,
	)
	kinds := []string{MetaCommands, MetaMode, MetaConfigOptions, MetaSessionInfo, MetaUsage, MetaUsage, MetaUsage, ""}
	for i, k := range kinds {
		wantOp := OpMeta
		if k == "" {
			wantOp = ""
		}
		if chs[i].Op != wantOp || chs[i].Kind != k {
			t.Errorf("change %d = %+v, want meta %q", i, chs[i], k)
		}
	}
	if th.Len() != 0 {
		t.Errorf("state updates created entries: %q", summary(th))
	}
	s := th.Snapshot()
	if len(s.Commands) != 1 || s.Commands[0].Name != "web" || string(s.Commands[0].Input) != `{"hint":"query"}` {
		t.Errorf("commands = %+v", s.Commands)
	}
	if s.CurrentModeID != "plan" || string(s.ConfigOptions) != `[{"id":"model","currentValue":"m1"}]` {
		t.Errorf("mode %q config %s", s.CurrentModeID, s.ConfigOptions)
	}
	if s.Title != "Notes" || s.UpdatedAt != "2026-01-02T03:04:05Z" {
		t.Errorf("title %q updated %q", s.Title, s.UpdatedAt)
	}
	wantTokens := map[string]int64{"inputTokens": 15, "outputTokens": 3, "totalTokens": 18, "cachedReadTokens": 0}
	if s.Usage.Used != 53000 || s.Usage.Size != 200000 || *s.Usage.Cost != (Cost{0.045, "USD"}) ||
		!reflect.DeepEqual(s.Usage.TurnTokens, wantTokens) || s.Usage.LastTokens["inputTokens"] != 5 {
		t.Errorf("usage = %s", mustJSON(s.Usage))
	}
	// The prompt response's usage replaces the turn's sum.
	if _, err := th.RecordTurnUsage(json.RawMessage(`{"inputTokens":20,"outputTokens":4,"totalTokens":24}`)); err != nil {
		t.Fatal(err)
	}
	s = th.Snapshot()
	if want := (map[string]int64{"inputTokens": 20, "outputTokens": 4, "totalTokens": 24}); !reflect.DeepEqual(s.Usage.TurnTokens, want) || !reflect.DeepEqual(s.Usage.SessionTokens, want) {
		t.Errorf("after prompt usage: %s", mustJSON(s.Usage))
	}
	if _, err := th.RecordTurnUsage(json.RawMessage(`[`)); !errors.Is(err, ErrInvalidUpdate) {
		t.Errorf("bad usage: %v", err)
	}
	// A new turn starts counting again; the session keeps the sum.
	th.AddUserPrompt(nil)
	apply(t, th, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""},"_meta":{"usage":{"inputTokens":1}}}`)
	s = th.Snapshot()
	if s.Usage.TurnTokens["inputTokens"] != 1 || s.Usage.SessionTokens["inputTokens"] != 21 {
		t.Errorf("second turn: %s", mustJSON(s.Usage))
	}
	ch, err := th.ApplySessionResult(json.RawMessage(`{"sessionId":"s","modes":{"currentModeId":"ask","availableModes":[{"id":"ask","name":"Ask"}]},"configOptions":null}`))
	if err != nil || ch != (Change{Op: OpMeta, Kind: MetaSession}) {
		t.Fatalf("ApplySessionResult = %+v, %v", ch, err)
	}
	if s := th.Snapshot(); s.CurrentModeID != "ask" || len(s.Modes) != 1 || s.ConfigOptions != nil {
		t.Errorf("after session result: %s", mustJSON(s))
	}
	for _, s := range []string{
		`{"sessionUpdate":"current_mode_update"}`,
		`{"sessionUpdate":"available_commands_update","availableCommands":{"name":"x"}}`,
	} {
		if _, err := th.Apply(upd(t, s)); !errors.Is(err, ErrInvalidUpdate) {
			t.Errorf("Apply(%s) = %v", s, err)
		}
	}
}

func TestReplay(t *testing.T) {
	history := []string{
		`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"first"}}`,
		msg(KindAgentThoughtChunk, "hmm"),
		`{"sessionUpdate":"tool_call","toolCallId":"r1","status":"pending","title":"Read"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"r1","status":"completed"}`,
		msg(KindAgentMessageChunk, "answer"),
		`{"sessionUpdate":"plan","entries":[{"content":"x"}]}`,
		`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"second"}}`,
		msg(KindAgentMessageChunk, "answer 2"),
		`{"sessionUpdate":"session_info_update","title":"Loaded"}`,
	}
	t.Run("empty thread builds", func(t *testing.T) {
		th := newTestThread()
		th.BeginReplay()
		apply(t, th, history...)
		if a, d := th.EndReplay(); a != 9 || d != 0 {
			t.Errorf("EndReplay = %d, %d", a, d)
		}
		want := `user_message:first | thought:hmm | tool:r1:completed | assistant_message:answer | plan:[{"content":"x"}] | user_message:second | assistant_message:answer 2`
		if got := summary(th); got != want {
			t.Errorf("entries\n got %q\nwant %q", got, want)
		}
		var turns []int
		for _, e := range th.Entries() {
			turns = append(turns, e.Turn)
			if e.Streaming {
				t.Errorf("%s streaming after EndReplay", e.ID)
			}
		}
		if !reflect.DeepEqual(turns, []int{1, 1, 1, 1, 1, 2, 2}) {
			t.Errorf("turns = %v", turns)
		}
		// Live traffic after the load continues normally.
		th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "third"}})
		apply(t, th, msg(KindAgentMessageChunk, "answer 3"))
		if th.Len() != 9 || th.Snapshot().Title != "Loaded" {
			t.Errorf("after load: %q", summary(th))
		}
	})
	t.Run("rebuilt thread drops", func(t *testing.T) {
		th := newTestThread()
		th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "first"}})
		apply(t, th, msg(KindAgentMessageChunk, "answer"))
		th.EndTurn("end_turn")
		before := summary(th)
		th.BeginReplay()
		chs := apply(t, th, history...)
		if a, d := th.EndReplay(); a != 1 || d != 8 {
			t.Errorf("EndReplay = %d, %d, want 1 applied (session info), 8 dropped", a, d)
		}
		for i, ch := range chs[:8] {
			if ch != (Change{}) {
				t.Errorf("dropped update %d changed %+v", i, ch)
			}
		}
		if got := summary(th); got != before {
			t.Errorf("replay changed entries: %q", got)
		}
		if th.Snapshot().Title != "Loaded" {
			t.Error("session state from the replay not kept")
		}
		// Unknown kinds are still reported during a replay.
		th.BeginReplay()
		if _, err := th.Apply(upd(t, `{"sessionUpdate":"mystery"}`)); !errors.Is(err, ErrUnknownKind) {
			t.Errorf("unknown kind in replay: %v", err)
		}
		if a, d := th.EndReplay(); a != 0 || d != 0 {
			t.Errorf("EndReplay = %d, %d", a, d)
		}
		// After EndReplay updates apply again.
		apply(t, th, msg(KindAgentMessageChunk, "live"))
		if !strings.HasSuffix(summary(th), "assistant_message:live") {
			t.Errorf("after replay: %q", summary(th))
		}
	})
}

func TestReadsAreCopies(t *testing.T) {
	th := newTestThread()
	apply(t, th,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"AA=="}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"c","rawInput":{"a":1},"locations":[{"path":"/p","line":1}],
		  "content":[{"type":"diff","path":"/p","oldText":"o","newText":"n"}]}`,
		`{"sessionUpdate":"plan","entries":[{"content":"x"}]}`,
		`{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"c","input":{"hint":"h"}}]}`,
		`{"sessionUpdate":"usage_update","cost":{"amount":1,"currency":"EUR"}}`,
	)
	before := mustJSON(th.Snapshot())
	s := th.Snapshot()
	s.Entries[0].Blocks[0].Raw[0] = 'X'
	tc := s.Entries[1].ToolCall
	tc.RawInput[0] = 'X'
	*tc.Locations[0].Line = 99
	*tc.Content[0].OldText = "changed"
	tc.Content[0].Path = "changed"
	s.Entries[2].Plan[0].Content = "changed"
	s.Commands[0].Input[0] = 'X'
	s.Usage.Cost.Amount = 99
	s.Plan[0].Content = "changed"
	if after := mustJSON(th.Snapshot()); after != before {
		t.Errorf("mutating a snapshot changed the thread:\n%s\n%s", before, after)
	}
	call, _ := th.ToolCall("c")
	call.RawInput[0] = 'X'
	e, _ := th.Entry("e2")
	e.ToolCall.Title = "changed"
	if after := mustJSON(th.Snapshot()); after != before {
		t.Error("mutating ToolCall/Entry results changed the thread")
	}
}

// Fields this version does not know are ignored, at every level.
func TestUnknownFieldsIgnored(t *testing.T) {
	th := newTestThread()
	apply(t, th,
		`{"sessionUpdate":"agent_message_chunk","messageId":"m","newTopLevel":{"deep":[1,2]},"content":{"type":"text","text":"a","annotations":{"audience":["user"]},"_meta":{"k":"v"}},"_meta":{"trace":"x"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"t","kind":"teleport","status":"pending","extra":true,"locations":[{"path":"/p","line":null,"column":4}],
		  "content":[{"type":"content","content":{"type":"text","text":"x"},"weight":1},{"type":"hologram","beam":2}]}`,
	)
	if e, _ := th.Entry("e1"); e.Text != "a" || e.MessageID != "m" {
		t.Errorf("message = %+v", e)
	}
	tc, _ := th.ToolCall("t")
	if tc.Kind != "teleport" || len(tc.Content) != 2 || tc.Content[1].Type != "hologram" || tc.Locations[0].Line != nil {
		t.Errorf("tool call = %s", mustJSON(tc))
	}
}

// Some agents echo the prompt as user_message_chunk; it must not show twice.
func TestPromptEcho(t *testing.T) {
	th := newTestThread()
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "hello world"}, {Type: "resource_link", URI: "file:///a", Name: "a"}})
	chs := apply(t, th,
		msg(KindUserMessageChunk, "hello "),
		msg(KindUserMessageChunk, "world"),
		`{"sessionUpdate":"user_message_chunk","content":{"type":"resource_link","uri":"file:///a","name":"a"}}`,
		msg(KindAgentMessageChunk, "hi"),
		msg(KindUserMessageChunk, "hello world"), // after the answer: a real (replayed) message
	)
	for i, ch := range chs[:3] {
		if ch != (Change{}) {
			t.Errorf("echo %d changed %+v", i, ch)
		}
	}
	if got := summary(th); got != "user_message:hello world | assistant_message:hi | user_message:hello world" {
		t.Errorf("entries = %q", got)
	}
	if s := th.Snapshot(); s.Turn != 2 {
		t.Errorf("turn = %d", s.Turn)
	}
	// A user chunk that is not the prompt is kept.
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "abc"}})
	apply(t, th, msg(KindUserMessageChunk, "xyz"))
	if got := summary(th); !strings.HasSuffix(got, "user_message:abc | user_message:xyz") {
		t.Errorf("entries = %q", got)
	}
}

// A field sent as null is "not changed", like an absent one.
func TestToolCallNullFields(t *testing.T) {
	th := newTestThread()
	apply(t, th,
		`{"sessionUpdate":"tool_call","toolCallId":"n","title":"T","content":[{"type":"terminal","terminalId":"t1"}],"locations":[{"path":"/p"}],"rawInput":{"a":1},"rawOutput":{"b":2}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"n","title":null,"kind":null,"status":null,"content":null,"locations":null,"rawInput":null,"rawOutput":null}`,
	)
	tc, _ := th.ToolCall("n")
	if tc.Title != "T" || len(tc.Content) != 1 || len(tc.Locations) != 1 || string(tc.RawInput) != `{"a":1}` || string(tc.RawOutput) != `{"b":2}` || tc.Status != StatusPending {
		t.Errorf("after null update: %s", mustJSON(tc))
	}
}

func TestUserTitleWinsOverAgentTitles(t *testing.T) {
	th := New()
	title := func(s string) *Update {
		return &Update{SessionUpdate: KindSessionInfoUpdate, Title: &s}
	}
	th.Apply(title("Agent's idea"))
	if got := th.Meta().Title; got != "Agent's idea" {
		t.Fatalf("title %q", got)
	}
	if ch := th.SetTitle("Mine"); ch.Op != OpMeta || ch.Kind != MetaSessionInfo {
		t.Fatalf("change %+v", ch)
	}
	th.Apply(title("Agent again"))
	if got := th.Meta().Title; got != "Mine" {
		t.Fatalf("title after the user named it: %q", got)
	}
}

// Agents restart their tool call numbering in a new process (Reasonix asks
// permission for "gate-1" in every one): an id from an earlier turn is a
// new call of the new turn, and the old turn's card stays as it was.
func TestToolCallIDReusedInALaterTurn(t *testing.T) {
	th := newTestThread()
	opts := json.RawMessage(`[{"optionId":"allow_once","name":"Allow","kind":"allow_once"}]`)
	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "one"}})
	apply(t, th, `{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"Read a.md","kind":"read","status":"pending"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed"}`)
	if _, err := th.PermissionRequested(json.RawMessage(`{"toolCallId":"gate-1","title":"edit a.md","kind":"edit"}`), opts); err != nil {
		t.Fatal(err)
	}
	th.PermissionResolved("gate-1", "selected", "allow_once")
	th.EndTurn("end_turn")

	th.AddUserPrompt([]ContentBlock{{Type: "text", Text: "two"}})
	apply(t, th, `{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"Read b.md","kind":"read","status":"pending"}`)
	if _, err := th.PermissionRequested(json.RawMessage(`{"toolCallId":"gate-1","title":"edit b.md","kind":"edit"}`), opts); err != nil {
		t.Fatal(err)
	}
	th.PermissionResolved("gate-1", "selected", "allow_once")
	if got := summary(th); got != "user_message:one | tool:call_1:completed | tool:gate-1:in_progress | user_message:two | tool:call_1:pending | tool:gate-1:in_progress" {
		t.Fatalf("entries = %q", got)
	}
	ents := th.Entries()
	if ents[1].ToolCall.Title != "Read a.md" || ents[4].ToolCall.Title != "Read b.md" || ents[5].ToolCall.Title != "edit b.md" || ents[5].Turn != 2 {
		t.Errorf("titles: %q %q %q", ents[1].ToolCall.Title, ents[4].ToolCall.Title, ents[5].ToolCall.Title)
	}
	if tc, _ := th.ToolCall("call_1"); tc.ID != ents[4].ID {
		t.Errorf("ToolCall(call_1) = %s, want the newest call %s", tc.ID, ents[4].ID)
	}
	// Within a turn a repeated id still merges.
	apply(t, th, `{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed"}`)
	if th.Len() != 6 || th.Entries()[4].ToolCall.Status != StatusCompleted {
		t.Errorf("entries = %q", summary(th))
	}
}
