package thread

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// traceLine is one line of a recorded ACP trace (testdata/*.ndjson).
type traceLine struct {
	TS  string `json:"ts"`
	Dir string `json:"dir"`
	Msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	} `json:"msg"`
}

// permReq is an agent→client session/request_permission waiting for its
// answer.
type permReq struct {
	toolCallID string
	options    []PermissionOption
}

// player replays traces into a thread the way the app wires it, and mirrors
// the changes the way a UI would, to check the Change protocol.
type player struct {
	t  *testing.T
	th *Thread

	clientReqs map[string]string  // client→agent request id → method
	agentReqs  map[string]permReq // agent→client permission request id

	mirror      map[string]Entry // what a UI patched from the changes
	unknown     []string         // unknown update kinds seen
	stopReasons []string
	replays     [][2]int // EndReplay results
}

func newPlayer(t *testing.T) *player {
	th := New()
	var ms int64
	th.Clock = func() time.Time { ms += 1000; return time.UnixMilli(ms) }
	return &player{t: t, th: th, mirror: make(map[string]Entry)}
}

// play replays one trace file.
func (p *player) play(path string) {
	p.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		p.t.Fatal(err)
	}
	p.clientReqs = make(map[string]string)
	p.agentReqs = make(map[string]permReq)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		var l traceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			p.t.Fatalf("%s:%d: %v", path, n, err)
		}
		p.line(path, n, &l)
	}
	if err := sc.Err(); err != nil {
		p.t.Fatal(err)
	}
}

func (p *player) line(path string, n int, l *traceLine) {
	t := p.t
	t.Helper()
	m := &l.Msg
	id := string(m.ID)
	switch l.Dir {
	case "agent->client":
		switch m.Method {
		case "session/update":
			var params struct {
				Update Update `json:"update"`
			}
			if err := json.Unmarshal(m.Params, &params); err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			ch, err := p.th.Apply(&params.Update)
			if errors.Is(err, ErrUnknownKind) {
				p.unknown = append(p.unknown, params.Update.SessionUpdate)
				return
			}
			if err != nil {
				t.Fatalf("%s:%d: Apply: %v", path, n, err)
			}
			p.patch(ch)
		case "session/request_permission":
			var params struct {
				ToolCall json.RawMessage `json:"toolCall"`
				Options  json.RawMessage `json:"options"`
			}
			if err := json.Unmarshal(m.Params, &params); err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			ch, err := p.th.PermissionRequested(params.ToolCall, params.Options)
			if err != nil {
				t.Fatalf("%s:%d: PermissionRequested: %v", path, n, err)
			}
			p.patch(ch)
			var req permReq
			var tc struct {
				ToolCallID string `json:"toolCallId"`
			}
			_ = json.Unmarshal(params.ToolCall, &tc)
			_ = json.Unmarshal(params.Options, &req.options)
			req.toolCallID = tc.ToolCallID
			p.agentReqs[id] = req
		case "":
			p.response(path, n, p.clientReqs[id], m.Result, m.Error)
			delete(p.clientReqs, id)
		}
	case "client->agent":
		switch m.Method {
		case "":
			req, ok := p.agentReqs[id]
			if !ok {
				return // an answer to fs/* or an unknown method
			}
			delete(p.agentReqs, id)
			var res struct {
				Outcome struct {
					Outcome  string `json:"outcome"`
					OptionID string `json:"optionId"`
				} `json:"outcome"`
			}
			if err := json.Unmarshal(m.Result, &res); err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			kind := ""
			for _, o := range req.options {
				if o.OptionID == res.Outcome.OptionID {
					kind = o.Kind
				}
			}
			p.patch(p.th.PermissionResolved(req.toolCallID, res.Outcome.Outcome, kind))
		case "session/prompt":
			p.clientReqs[id] = m.Method
			var params struct {
				Prompt []ContentBlock `json:"prompt"`
			}
			if err := json.Unmarshal(m.Params, &params); err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			p.patch(p.th.AddUserPrompt(params.Prompt))
		case "session/load":
			p.clientReqs[id] = m.Method
			p.th.BeginReplay()
		default:
			p.clientReqs[id] = m.Method
		}
	}
}

// response handles the agent's answer to a client request.
func (p *player) response(path string, n int, method string, result, rpcErr json.RawMessage) {
	t := p.t
	t.Helper()
	switch method {
	case "session/prompt":
		var res struct {
			StopReason string          `json:"stopReason"`
			Usage      json.RawMessage `json:"usage"`
		}
		if rpcErr != nil {
			res.StopReason = "error"
		} else if err := json.Unmarshal(result, &res); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		ch, err := p.th.RecordTurnUsage(res.Usage)
		if err != nil {
			t.Fatalf("%s:%d: RecordTurnUsage: %v", path, n, err)
		}
		p.patch(ch)
		for _, ch := range p.th.EndTurn(res.StopReason) {
			p.patch(ch)
		}
		p.stopReasons = append(p.stopReasons, res.StopReason)
	case "session/new", "session/load":
		if method == "session/load" {
			a, d := p.th.EndReplay()
			p.replays = append(p.replays, [2]int{a, d})
			p.resync()
		}
		ch, err := p.th.ApplySessionResult(result)
		if err != nil {
			t.Fatalf("%s:%d: ApplySessionResult: %v", path, n, err)
		}
		p.patch(ch)
	}
}

// patch applies a change to the UI mirror.
func (p *player) patch(ch Change) {
	p.t.Helper()
	switch ch.Op {
	case "", OpMeta:
	case OpUpsert:
		e, ok := p.th.Entry(ch.EntryID)
		if !ok {
			p.t.Fatalf("upsert of unknown entry %q", ch.EntryID)
		}
		if e.Kind != ch.Kind {
			p.t.Fatalf("upsert %q: kind %q, entry is %q", ch.EntryID, ch.Kind, e.Kind)
		}
		p.mirror[ch.EntryID] = e
	case OpAppend:
		e, ok := p.mirror[ch.EntryID]
		if !ok {
			p.t.Fatalf("append to entry %q the UI never saw", ch.EntryID)
		}
		e.Text += ch.Delta
		p.mirror[ch.EntryID] = e
	default:
		p.t.Fatalf("unknown op %q", ch.Op)
	}
}

// resync re-reads the snapshot, as the app does after a load.
func (p *player) resync() {
	p.mirror = make(map[string]Entry)
	for _, e := range p.th.Entries() {
		p.mirror[e.ID] = e
	}
}

// checkMirror asserts that a UI patching from the changes shows the thread.
func (p *player) checkMirror() {
	p.t.Helper()
	entries := p.th.Entries()
	if len(p.mirror) != len(entries) {
		p.t.Errorf("mirror has %d entries, thread %d", len(p.mirror), len(entries))
	}
	for _, e := range entries {
		m := p.mirror[e.ID]
		if m.Kind != e.Kind || m.Text != e.Text || !reflect.DeepEqual(m.ToolCall, e.ToolCall) || !reflect.DeepEqual(m.Plan, e.Plan) {
			p.t.Errorf("mirror %s = %+v\nthread = %+v", e.ID, m, e)
		}
	}
}

func playTraces(t *testing.T, names ...string) *player {
	t.Helper()
	p := newPlayer(t)
	for _, name := range names {
		p.play(filepath.Join("testdata", name+".ndjson"))
	}
	p.checkMirror()
	if len(p.unknown) > 0 {
		t.Errorf("unknown update kinds: %v", p.unknown)
	}
	for _, e := range p.th.Entries() {
		if e.Streaming {
			t.Errorf("%s still streaming after the turn ended", e.ID)
		}
	}
	return p
}

// want is the expected shape of an entry; empty fields are not checked.
type want struct {
	kind, text                  string
	turn                        int
	toolCallID, title, toolKind string
	status, decision            string
	content                     []ToolCallContent
}

func checkEntries(t *testing.T, got []Entry, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		for _, e := range got {
			t.Logf("%s %s turn=%d %q %+v", e.ID, e.Kind, e.Turn, e.Text, e.ToolCall)
		}
		t.Fatalf("got %d entries, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		e := got[i]
		if e.Kind != w.kind || e.Turn != w.turn {
			t.Errorf("entry %d (%s): kind %q turn %d, want %q turn %d", i, e.ID, e.Kind, e.Turn, w.kind, w.turn)
		}
		if w.kind != EntryToolCall {
			if e.Text != w.text {
				t.Errorf("entry %d (%s) %s: text %q, want %q", i, e.ID, e.Kind, e.Text, w.text)
			}
			continue
		}
		tc := e.ToolCall
		if tc == nil {
			t.Errorf("entry %d (%s): no tool call", i, e.ID)
			continue
		}
		if tc.ID != e.ID || tc.ToolCallID != w.toolCallID || tc.Title != w.title || tc.Kind != w.toolKind ||
			tc.Status != w.status || tc.Decision != w.decision {
			t.Errorf("entry %d (%s): tool call %s %q kind=%s status=%s decision=%q, want %s %q kind=%s status=%s decision=%q",
				i, e.ID, tc.ToolCallID, tc.Title, tc.Kind, tc.Status, tc.Decision,
				w.toolCallID, w.title, w.toolKind, w.status, w.decision)
		}
		if len(tc.Options) != 0 {
			t.Errorf("entry %d (%s): permission options left: %v", i, e.ID, tc.Options)
		}
		if w.content != nil && !reflect.DeepEqual(tc.Content, w.content) {
			t.Errorf("entry %d (%s): content\n got %s\nwant %s", i, e.ID, mustJSON(tc.Content), mustJSON(w.content))
		}
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func ptr[T any](v T) *T { return &v }

func textContent(s string) ToolCallContent {
	return ToolCallContent{Type: "content", Content: json.RawMessage(`{"type":"text","text":` + mustJSON(s) + `}`)}
}

func diffContent(path, oldText, newText string) ToolCallContent {
	return ToolCallContent{Type: "diff", Path: path, OldText: ptr(oldText), NewText: newText}
}

const (
	prompt1   = "Add a line 'hi' to notes/hello.md"
	prompt2   = "Add a line 'hi' to notes/hello.md again"
	thought1  = "The user wants a line added. First I will read notes/hello.md."
	thought2  = `Now append the line "hi".`
	thought3  = "The edit succeeded."
	answer    = `Done: I added a line "hi" to notes/hello.md.`
	helloPath = "/home/user/notes/notes/hello.md"
)

// qwenTurn is what one turn of the Qwen traces shows.
func qwenTurn(turn int, readID, editID, before, after string) []want {
	return []want{
		{kind: EntryUserMessage, turn: turn, text: map[int]string{1: prompt1, 2: prompt2}[turn]},
		{kind: EntryThought, turn: turn, text: thought1},
		{kind: EntryToolCall, turn: turn, toolCallID: readID, title: "ReadFile: notes/hello.md", toolKind: "read",
			status: StatusCompleted, content: []ToolCallContent{textContent(before)}},
		{kind: EntryThought, turn: turn, text: thought2},
		{kind: EntryToolCall, turn: turn, toolCallID: editID, title: "notes/hello.md", toolKind: "edit",
			status: StatusCompleted, decision: "allow_once",
			content: []ToolCallContent{diffContent(helloPath, before, after)}},
		{kind: EntryThought, turn: turn, text: thought3},
		{kind: EntryAssistantMessage, turn: turn, text: answer},
	}
}

func TestTraceQwenNew(t *testing.T) {
	p := playTraces(t, "qwen-new")
	checkEntries(t, p.th.Entries(), qwenTurn(1, "call_1_read_file", "call_2_edit", "# Hello\n", "# Hello\nhi\n"))

	s := p.th.Snapshot()
	if s.Usage.Used != 100 || s.Usage.Size != 131072 || s.Usage.Cost != nil {
		t.Errorf("usage = %+v", s.Usage)
	}
	// Three model calls, each reported in _meta.usage of an empty chunk.
	wantTurn := map[string]int64{"inputTokens": 300, "outputTokens": 60, "totalTokens": 360, "thoughtTokens": 28, "cachedReadTokens": 0}
	if !reflect.DeepEqual(s.Usage.TurnTokens, wantTurn) || !reflect.DeepEqual(s.Usage.SessionTokens, wantTurn) {
		t.Errorf("turn tokens = %v, session tokens = %v, want %v", s.Usage.TurnTokens, s.Usage.SessionTokens, wantTurn)
	}
	if s.Usage.LastTokens["thoughtTokens"] != 5 {
		t.Errorf("last tokens = %v", s.Usage.LastTokens)
	}
	if s.CurrentModeID != "default" || len(s.Modes) != 5 || s.Modes[0].ID != "plan" {
		t.Errorf("modes = %q %+v", s.CurrentModeID, s.Modes)
	}
	if !bytes.Contains(s.ConfigOptions, []byte(`"auto-edit"`)) {
		t.Errorf("config options = %s", s.ConfigOptions)
	}
	var names []string
	for _, c := range s.Commands {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "status,advisor,tasks,auth" {
		t.Errorf("commands = %v", names)
	}
	if s.StopReason != "end_turn" || s.Turn != 1 {
		t.Errorf("stop reason %q turn %d", s.StopReason, s.Turn)
	}
	edit, ok := p.th.ToolCall("call_2_edit")
	if !ok {
		t.Fatal("call_2_edit not found")
	}
	if !bytes.Contains(edit.RawInput, []byte(`"old_string"`)) || !bytes.Contains(edit.RawOutput, []byte(`"fileDiff"`)) {
		t.Errorf("raw input %s / raw output %s", edit.RawInput, edit.RawOutput)
	}
	if len(edit.Locations) != 1 || edit.Locations[0].Path != helloPath {
		t.Errorf("locations = %+v", edit.Locations)
	}
	if edit.StartedMs == 0 || edit.EndedMs <= edit.StartedMs {
		t.Errorf("started %d ended %d", edit.StartedMs, edit.EndedMs)
	}
	read, _ := p.th.ToolCall("call_1_read_file")
	if string(read.RawOutput) != `""` {
		t.Errorf("read raw output = %s", read.RawOutput)
	}
}

// openCodeTurn is what one turn of the OpenCode traces shows.
func openCodeTurn(turn int, readID, editID, read, decision string) []want {
	return []want{
		{kind: EntryUserMessage, turn: turn, text: map[int]string{1: prompt1, 2: prompt2}[turn]},
		{kind: EntryThought, turn: turn, text: thought1},
		{kind: EntryToolCall, turn: turn, toolCallID: readID, title: "home/user/notes/notes/hello.md", toolKind: "read",
			status: StatusCompleted, content: []ToolCallContent{textContent(read)}},
		{kind: EntryThought, turn: turn, text: thought2},
		{kind: EntryToolCall, turn: turn, toolCallID: editID, title: "home/user/notes/notes/hello.md", toolKind: "edit",
			status: StatusCompleted, decision: decision,
			// The final update replaces the content: a message and the diff
			// (this fake model always reports the first edit's diff).
			content: []ToolCallContent{textContent("Edit applied successfully."), diffContent(helloPath, "# Hello\n", "# Hello\nhi\n")}},
		{kind: EntryThought, turn: turn, text: thought3},
		{kind: EntryAssistantMessage, turn: turn, text: answer},
	}
}

func TestTraceOpenCodeNew(t *testing.T) {
	for _, tc := range []struct{ name, decision string }{
		{"opencode-new", "allow_once"}, // edit: ask
		{"opencode-allow-new", ""},     // no permission request
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := playTraces(t, tc.name)
			entries := p.th.Entries()
			checkEntries(t, entries, openCodeTurn(1, "call_2_read", "call_3_edit", "# Hello", tc.decision))
			if entries[1].MessageID == "" || entries[6].MessageID == "" {
				t.Errorf("message ids not kept: %q %q", entries[1].MessageID, entries[6].MessageID)
			}
			s := p.th.Snapshot()
			if s.Usage.Used != 100 || s.Usage.Size != 128000 || s.Usage.Cost == nil || *s.Usage.Cost != (Cost{0, "USD"}) {
				t.Errorf("usage = %+v", s.Usage)
			}
			// OpenCode reports tokens in the session/prompt response.
			wantTurn := map[string]int64{"inputTokens": 100, "outputTokens": 20, "totalTokens": 120}
			if !reflect.DeepEqual(s.Usage.TurnTokens, wantTurn) || !reflect.DeepEqual(s.Usage.SessionTokens, wantTurn) {
				t.Errorf("tokens: turn %v session %v", s.Usage.TurnTokens, s.Usage.SessionTokens)
			}
			if len(s.Commands) != 3 || s.Commands[1].Name != "init" {
				t.Errorf("commands = %+v", s.Commands)
			}
			if s.CurrentModeID != "" || !bytes.Contains(s.ConfigOptions, []byte(`"thought_level"`)) {
				t.Errorf("mode %q config %s", s.CurrentModeID, s.ConfigOptions)
			}
		})
	}
}

func TestTraceLoadAfterNew(t *testing.T) {
	for _, tc := range []struct {
		agent   string
		dropped int
		turns   func(turn int) []want
		tokens  int64 // session inputTokens
	}{
		{"qwen", 12, func(turn int) []want {
			if turn == 1 {
				return qwenTurn(1, "call_1_read_file", "call_2_edit", "# Hello\n", "# Hello\nhi\n")
			}
			return qwenTurn(2, "call_4_read_file", "call_5_edit", "# Hello\nhi\n", "# Hello\nhi\nhi\n")
		}, 600},
		{"opencode", 9, func(turn int) []want {
			if turn == 1 {
				return openCodeTurn(1, "call_2_read", "call_3_edit", "# Hello", "allow_once")
			}
			return openCodeTurn(2, "call_5_read", "call_6_edit", "# Hello\nhi", "allow_once")
		}, 200},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			p := playTraces(t, tc.agent+"-new", tc.agent+"-load")
			if len(p.replays) != 1 || p.replays[0] != [2]int{0, tc.dropped} {
				t.Errorf("EndReplay (applied, dropped) = %v, want [0 %d]", p.replays, tc.dropped)
			}
			// The first turn appears once, the second prompt's entries follow.
			checkEntries(t, p.th.Entries(), append(tc.turns(1), tc.turns(2)...))
			s := p.th.Snapshot()
			if got := s.Usage.SessionTokens["inputTokens"]; got != tc.tokens {
				t.Errorf("session inputTokens = %d, want %d (replayed usage must not count twice)", got, tc.tokens)
			}
			if s.Turn != 2 || len(p.stopReasons) != 2 {
				t.Errorf("turn %d, stop reasons %v", s.Turn, p.stopReasons)
			}
		})
	}
}

func TestTraceLoadIntoEmptyThread(t *testing.T) {
	for _, tc := range []struct {
		agent   string
		applied int
		turn1   []want
		turn2   []want
	}{
		{"qwen", 12,
			qwenTurn(1, "call_1_read_file", "call_2_edit", "# Hello\n", "# Hello\nhi\n"),
			qwenTurn(2, "call_4_read_file", "call_5_edit", "# Hello\nhi\n", "# Hello\nhi\nhi\n")},
		{"opencode", 9,
			openCodeTurn(1, "call_2_read", "call_3_edit", "# Hello", ""),
			openCodeTurn(2, "call_5_read", "call_6_edit", "# Hello\nhi", "allow_once")},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			p := playTraces(t, tc.agent+"-load")
			if len(p.replays) != 1 || p.replays[0] != [2]int{tc.applied, 0} {
				t.Errorf("EndReplay (applied, dropped) = %v, want [%d 0]", p.replays, tc.applied)
			}
			// The replay has no permission round trip, and Qwen replays the
			// edit under its final title.
			turn1 := tc.turn1
			if tc.agent == "qwen" {
				turn1 = append([]want(nil), turn1...)
				turn1[4].decision = ""
				turn1[4].title = "Edit: notes/hello.md"
			}
			checkEntries(t, p.th.Entries(), append(turn1, tc.turn2...))
		})
	}
}

// A Gemini-style trace: the permission request names a tool call that was
// never announced. The helper reads it from a file like the recorded ones.
func TestTracePermissionForUnannouncedCall(t *testing.T) {
	lines := []string{
		`{"dir":"client->agent","msg":{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"prompt":[{"type":"text","text":"rm junk"}]}}}`,
		`{"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Removing."},"brandNew":{"x":1}}}}}`,
		`{"dir":"agent->client","msg":{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"toolCall":{"toolCallId":"shell-1","title":"rm junk","kind":"execute","status":"pending","content":[{"type":"terminal","terminalId":"term-1"}]},"options":[{"optionId":"y","name":"Yes","kind":"allow_once"},{"optionId":"n","name":"No","kind":"reject_always"}]}}}`,
		`{"dir":"client->agent","msg":{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"selected","optionId":"n"}}}}`,
		`{"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"shell-1","status":"failed"}}}}`,
		`{"dir":"agent->client","msg":{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}}`,
	}
	path := filepath.Join(t.TempDir(), "gemini.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := newPlayer(t)
	p.play(path)
	p.checkMirror()
	checkEntries(t, p.th.Entries(), []want{
		{kind: EntryUserMessage, turn: 1, text: "rm junk"},
		{kind: EntryAssistantMessage, turn: 1, text: "Removing."},
		{kind: EntryToolCall, turn: 1, toolCallID: "shell-1", title: "rm junk", toolKind: "execute",
			status: StatusRejected, decision: "reject_always",
			content: []ToolCallContent{{Type: "terminal", TerminalID: "term-1"}}},
	})
}
