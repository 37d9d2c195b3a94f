package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// agentBin is the binary built once by TestMain.
var agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mnote-testagent-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agentBin = filepath.Join(dir, "mnote-testagent")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	build := exec.Command(goTool, "build", "-tags", "sqlite_fts5", "-o", agentBin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build mnote-testagent: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestDefaultsEchoAndErrors(t *testing.T) {
	p := startAgent(t, nil)
	got := p.initialize()
	want := `{"protocolVersion":1,"agentCapabilities":{"loadSession":true,` +
		`"promptCapabilities":{"image":true,"audio":true,"embeddedContext":true},` +
		`"sessionCapabilities":{"list":{}}},"authMethods":[],` +
		`"agentInfo":{"name":"mnote-testagent","title":"mnote test agent","version":"0.1.0"}}`
	if got != want {
		t.Fatalf("initialize result\n got %s\nwant %s", got, want)
	}
	sid := p.newSession("/work/a")
	if !strings.HasPrefix(sid, "ta-") || len(sid) != 19 {
		t.Fatalf("session id %q", sid)
	}
	resp, seen := p.prompt(sid, "hello <there> & you", nil)
	if r := p.stopReason(resp); r != "end_turn" {
		t.Fatalf("stopReason %q", r)
	}
	ups := updates(t, sid, seen)
	if len(ups) != 1 || ups[0] != `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"echo: hello <there> & you"}}` {
		t.Fatalf("echo updates %q", ups)
	}

	resp, _ = p.call("session/list", map[string]any{}, nil)
	if got, want := p.mustResult(resp), `{"sessions":[{"sessionId":"`+sid+`","cwd":"/work/a"}]}`; got != want {
		t.Fatalf("session/list %s, want %s", got, want)
	}
	resp, _ = p.call("no/such", nil, nil)
	if resp.Error == nil || resp.Error.Code != -32601 || resp.Error.Message != "Method not found" {
		t.Fatalf("unknown method answered %s", resp.Raw)
	}
	resp, _ = p.call("session/prompt", map[string]any{"sessionId": "ta-nope", "prompt": []any{}}, nil)
	if resp.Error == nil || resp.Error.Code != -32002 {
		t.Fatalf("prompt on unknown session answered %s", resp.Raw)
	}
	resp, _ = p.prompt(sid, `[{"message":"a","thought":"b"}]`, nil)
	if resp.Error == nil || resp.Error.Code != -32602 {
		t.Fatalf("two-action step answered %s", resp.Raw)
	}
	p.notify("some/notification", map[string]any{})
	p.sendRaw("this is not json")
	if m := p.next(); string(m.Raw) != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` {
		t.Fatalf("parse error answer %s", m.Raw)
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d after stdin EOF", code)
	}
}

func TestScriptedUpdates(t *testing.T) {
	p := startAgent(t, nil)
	p.initialize()
	sid := p.newSession("/w")
	script := steps(t,
		map[string]any{"message": "héllo wörld", "chunk": 3},
		map[string]any{"thought": "thinking"},
		map[string]any{"userMessage": "me"},
		map[string]any{"toolCall": map[string]any{"toolCallId": "t1", "title": "Read a", "kind": "read", "status": "pending",
			"locations": []any{map[string]any{"path": "/w/a"}}}},
		map[string]any{"toolCallUpdate": map[string]any{"toolCallId": "t1", "status": "completed"}},
		map[string]any{"plan": []any{map[string]any{"content": "do it", "priority": "high", "status": "pending"}}},
		map[string]any{"usage": map[string]any{"used": 10, "size": 100, "cost": map[string]any{"amount": 0.5, "currency": "USD"}}},
		map[string]any{"update": map[string]any{"sessionUpdate": "future_kind", "x": 1}},
		map[string]any{"title": "My title"},
		map[string]any{"notify": map[string]any{"method": "x/ping", "params": map[string]any{"n": 1, "sessionId": "$sessionId"}}},
		map[string]any{"raw": "{not json"},
		map[string]any{"sleepMs": 1},
		map[string]any{"stderr": "to stderr"},
		map[string]any{"stop": "max_tokens"},
		map[string]any{"message": "never sent"},
	)
	resp, seen := p.prompt(sid, script, nil)
	if r := p.stopReason(resp); r != "max_tokens" {
		t.Fatalf("stopReason %q", r)
	}
	var got []string
	for _, m := range seen {
		switch {
		case m.Bad:
			got = append(got, "RAW "+string(m.Raw))
		case m.Method == "session/update":
			_, u := m.update(t)
			got = append(got, u)
		default:
			got = append(got, "LINE "+string(m.Raw))
		}
	}
	msg := func(s string) string { return textUpdate("agent_message_chunk", s) }
	want := []string{
		msg("h\u00e9"), msg("llo"), msg(" w"), msg("\u00f6r"), msg("ld"),
		textUpdate("agent_thought_chunk", "thinking"),
		textUpdate("user_message_chunk", "me"),
		`{"sessionUpdate":"tool_call","kind":"read","locations":[{"path":"/w/a"}],"status":"pending","title":"Read a","toolCallId":"t1"}`,
		`{"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"t1"}`,
		`{"sessionUpdate":"plan","entries":[{"content":"do it","priority":"high","status":"pending"}]}`,
		`{"sessionUpdate":"usage_update","cost":{"amount":0.5,"currency":"USD"},"size":100,"used":10}`,
		`{"sessionUpdate":"future_kind","x":1}`,
		`{"sessionUpdate":"session_info_update","title":"My title"}`,
		`LINE {"jsonrpc":"2.0","method":"x/ping","params":{"n":1,"sessionId":"` + sid + `"}}`,
		`RAW {not json`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("updates\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	p.waitStderr("to stderr\n")
	resp, _ = p.call("session/list", map[string]any{}, nil)
	if !strings.Contains(p.mustResult(resp), `"title":"My title"`) {
		t.Fatalf("list lacks title: %s", resp.Raw)
	}

	// The {"steps": [...]} form and the error step.
	resp, _ = p.prompt(sid, `{"steps":[{"error":{"code":-32099,"message":"boom"}}]}`, nil)
	if resp.Error == nil || resp.Error.Code != -32099 || resp.Error.Message != "boom" {
		t.Fatalf("error step answered %s", resp.Raw)
	}
}

func TestPermissionRoundTrip(t *testing.T) {
	p := startAgent(t, nil)
	p.initialize()
	sid := p.newSession("/w")
	var req *wireMsg
	resp, seen := p.prompt(sid, `[{"permission":{}},{"message":"after"}]`, func(m *wireMsg) any {
		req = m
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow-always"}}
	})
	if r := p.stopReason(resp); r != "end_turn" {
		t.Fatalf("stopReason %q", r)
	}
	if req == nil || req.Method != "session/request_permission" {
		t.Fatalf("no permission request")
	}
	wantParams := `{"sessionId":"` + sid + `","toolCall":{"toolCallId":"perm-1","title":"Edit file","kind":"edit"},"options":[` +
		`{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"allow-always","name":"Always allow","kind":"allow_always"},` +
		`{"optionId":"reject","name":"Reject","kind":"reject_once"},{"optionId":"reject-always","name":"Always reject","kind":"reject_always"}]}`
	if string(req.Params) != wantParams {
		t.Fatalf("permission params\n got %s\nwant %s", req.Params, wantParams)
	}
	ups := updates(t, sid, seen)
	want := []string{textUpdate("agent_message_chunk", "permission: selected allow-always"), textUpdate("agent_message_chunk", "after")}
	if strings.Join(ups, "\n") != strings.Join(want, "\n") {
		t.Fatalf("updates %q", ups)
	}

	// A custom tool call and options are passed through; a cancelled
	// outcome ends the turn at once.
	resp, seen = p.prompt(sid, `[{"permission":{"toolCall":{"toolCallId":"x9","title":"Run ls","kind":"execute","status":"pending"},`+
		`"options":[{"optionId":"ok","name":"OK","kind":"allow_once"}]}},{"message":"never"}]`, func(m *wireMsg) any {
		req = m
		return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}
	})
	if r := p.stopReason(resp); r != "cancelled" {
		t.Fatalf("stopReason %q", r)
	}
	if want := `{"sessionId":"` + sid + `","toolCall":{"toolCallId":"x9","title":"Run ls","kind":"execute","status":"pending"},` +
		`"options":[{"optionId":"ok","name":"OK","kind":"allow_once"}]}`; string(req.Params) != want {
		t.Fatalf("custom permission params %s", req.Params)
	}
	if ups := updates(t, sid, seen); len(ups) != 1 || ups[0] != textUpdate("agent_message_chunk", "permission: cancelled") {
		t.Fatalf("updates %q", ups)
	}
}

func TestFileRequests(t *testing.T) {
	p := startAgent(t, nil)
	p.initialize()
	sid := p.newSession("/w")
	var reqs []string
	resp, seen := p.prompt(sid, steps(t,
		map[string]any{"readFile": map[string]any{"path": "/w/a.txt", "line": 3, "limit": 2}},
		map[string]any{"readFile": map[string]any{"path": "/w/missing"}},
		map[string]any{"writeFile": map[string]any{"path": "/w/b.txt", "content": "new\ncontent"}},
		map[string]any{"writeFile": map[string]any{"path": "/ro/c.txt", "content": ""}},
		map[string]any{"request": map[string]any{"method": "x/custom", "params": map[string]any{"q": true}}},
	), func(m *wireMsg) any {
		reqs = append(reqs, m.Method+" "+string(m.Params))
		switch {
		case strings.Contains(string(m.Params), "missing"):
			return &rpcError{Code: -32002, Message: "Resource not found"}
		case m.Method == "fs/read_text_file":
			return map[string]any{"content": "line3\nline4"}
		case strings.Contains(string(m.Params), "/ro/"):
			return &rpcError{Code: -32603, Message: "read-only"}
		case m.Method == "fs/write_text_file":
			return nil
		default:
			return map[string]any{"a": 1}
		}
	})
	if r := p.stopReason(resp); r != "end_turn" {
		t.Fatalf("stopReason %q", r)
	}
	wantReqs := []string{
		`fs/read_text_file {"sessionId":"` + sid + `","path":"/w/a.txt","line":3,"limit":2}`,
		`fs/read_text_file {"sessionId":"` + sid + `","path":"/w/missing"}`,
		`fs/write_text_file {"sessionId":"` + sid + `","path":"/w/b.txt","content":"new\ncontent"}`,
		`fs/write_text_file {"sessionId":"` + sid + `","path":"/ro/c.txt","content":""}`,
		`x/custom {"q":true}`,
	}
	if strings.Join(reqs, "\n") != strings.Join(wantReqs, "\n") {
		t.Fatalf("requests\n got:\n%s\nwant:\n%s", strings.Join(reqs, "\n"), strings.Join(wantReqs, "\n"))
	}
	var texts []string
	for _, u := range updates(t, sid, seen) {
		var v struct {
			Content struct{ Text string } `json:"content"`
		}
		_ = json.Unmarshal([]byte(u), &v)
		texts = append(texts, v.Content.Text)
	}
	wantTexts := []string{"read: line3\nline4", "read error: -32002 Resource not found", "write: ok",
		"write error: -32603 read-only", `request x/custom: ok {"a":1}`}
	if strings.Join(texts, "|") != strings.Join(wantTexts, "|") {
		t.Fatalf("texts %q", texts)
	}
}

func TestFloodBench(t *testing.T) {
	p := startAgent(t, nil)
	p.initialize()
	sid := p.newSession("/w")
	progress := filepath.Join(t.TempDir(), "progress")
	const n = 10000
	start := time.Now()
	resp, seen := p.prompt(sid, fmt.Sprintf(`[{"flood":%d,"mix":"bench","progressFile":%q},{"message":"done"}]`, n, progress), nil)
	if r := p.stopReason(resp); r != "end_turn" {
		t.Fatalf("stopReason %q", r)
	}
	ups := updates(t, sid, seen)
	if len(ups) != n+1 {
		t.Fatalf("got %d updates, want %d", len(ups), n+1)
	}
	kinds := map[string]int{}
	for i, u := range ups[:n] {
		var v struct {
			SessionUpdate string `json:"sessionUpdate"`
			ToolCallID    string `json:"toolCallId"`
			Status        string `json:"status"`
			Content       json.RawMessage
		}
		if err := json.Unmarshal([]byte(u), &v); err != nil {
			t.Fatalf("update %d: %v: %s", i, err, u)
		}
		kinds[v.SessionUpdate]++
		switch v.SessionUpdate {
		case "agent_message_chunk":
			if want := fmt.Sprintf(`{"type":"text","text":"tok %06d lorem ipsum dolor sit amet. "}`, i); string(v.Content) != want {
				t.Fatalf("update %d: %s", i, u)
			}
		case "tool_call":
			if v.Status != "pending" || v.ToolCallID != fmt.Sprintf("flood1-tc%06d", kinds["tool_call"]-1) {
				t.Fatalf("update %d: %s", i, u)
			}
		case "tool_call_update":
			if v.Status != "completed" || v.ToolCallID != fmt.Sprintf("flood1-tc%06d", kinds["tool_call_update"]-1) {
				t.Fatalf("update %d: %s", i, u)
			}
		}
	}
	wantKinds := map[string]int{"agent_message_chunk": 9000, "agent_thought_chunk": 500, "tool_call": 250, "tool_call_update": 250}
	if fmt.Sprint(kinds) != fmt.Sprint(wantKinds) {
		t.Fatalf("kinds %v, want %v", kinds, wantKinds)
	}
	if data, err := os.ReadFile(progress); err != nil || string(data) != "10000" {
		t.Fatalf("progress file %q %v", data, err)
	}
	t.Logf("flood of %d bench updates took %v", n, time.Since(start))

	// The default "chunks" mix.
	resp, seen = p.prompt(sid, `[{"flood":1500}]`, nil)
	p.stopReason(resp)
	ups = updates(t, sid, seen)
	if len(ups) != 1500 || ups[1499] != textUpdate("agent_message_chunk", "tok 001499 lorem ipsum dolor sit amet. ") {
		t.Fatalf("chunks flood: %d updates, last %s", len(ups), ups[len(ups)-1])
	}
}

func TestHugeMessage(t *testing.T) {
	p := startAgent(t, nil)
	p.initialize()
	sid := p.newSession("/w")
	const n = 5 << 20
	resp, seen := p.prompt(sid, fmt.Sprintf(`[{"hugeMessage":%d},{"message":"small"}]`, n), nil)
	p.stopReason(resp)
	ups := updates(t, sid, seen)
	if len(ups) != 2 || ups[1] != textUpdate("agent_message_chunk", "small") {
		t.Fatalf("got %d updates", len(ups))
	}
	var v struct {
		Content struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal([]byte(ups[0]), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Content.Text) != n || strings.Trim(v.Content.Text, "x") != "" {
		t.Fatalf("huge text has %d bytes", len(v.Content.Text))
	}
}

func TestCrash(t *testing.T) {
	p := startAgent(t, nil)
	p.initialize()
	sid := p.newSession("/w")
	p.send(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "session/prompt", "params": map[string]any{
		"sessionId": sid, "prompt": []any{map[string]string{"type": "text", "text": `[{"message":"bye"},{"crash":3}]`}}}})
	if _, u := p.next().update(t); u != textUpdate("agent_message_chunk", "bye") {
		t.Fatalf("update %s", u)
	}
	if code := p.exitCode(); code != 3 {
		t.Fatalf("exit code %d, want 3", code)
	}
	p.waitStderr("crashing with 3\n")
}

func TestCancel(t *testing.T) {
	p := startAgent(t, nil)
	p.initialize()
	sid := p.newSession("/w")
	for _, script := range []string{
		`[{"message":"a"},{"waitForCancel":true},{"message":"never"}]`,
		`[{"message":"a"},{"sleepMs":60000},{"message":"never"}]`,
	} {
		p.nextID++
		id := p.nextID
		start := time.Now()
		p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": map[string]any{
			"sessionId": sid, "prompt": []any{map[string]string{"type": "text", "text": script}}}})
		if _, u := p.next().update(t); u != textUpdate("agent_message_chunk", "a") {
			t.Fatalf("update %s", u)
		}
		p.notify("session/cancel", map[string]any{"sessionId": sid})
		resp, seen := p.await(fmt.Sprint(id), nil)
		if r := p.stopReason(resp); r != "cancelled" || len(seen) != 0 {
			t.Fatalf("stopReason %q, extra %d lines", r, len(seen))
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("cancel took %v", d)
		}
	}
	// A cancel between turns is ignored; the next turn runs normally.
	p.notify("session/cancel", map[string]any{"sessionId": sid})
	resp, _ := p.prompt(sid, "again", nil)
	if r := p.stopReason(resp); r != "end_turn" {
		t.Fatalf("stopReason %q", r)
	}
}

func TestIgnoreCancelAndStopReading(t *testing.T) {
	p := startAgent(t, nil, "--scenario-json", `{"ignoreCancel":true,"stopReadingAfter":"session/set_mode","exitOnStdinClose":false}`)
	p.initialize()
	sid := p.newSession("/w")
	p.nextID++
	id := p.nextID
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": map[string]any{
		"sessionId": sid, "prompt": []any{map[string]string{"type": "text", "text": `[{"sleepMs":200},{"message":"done"}]`}}}})
	p.notify("session/cancel", map[string]any{"sessionId": sid})
	resp, seen := p.await(fmt.Sprint(id), nil)
	if r := p.stopReason(resp); r != "end_turn" || len(updates(t, sid, seen)) != 1 {
		t.Fatalf("stopReason %q with ignoreCancel", r)
	}
	resp, seen = p.call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "code"}, nil)
	if p.mustResult(resp) != "{}" {
		t.Fatalf("set_mode %s", resp.Raw)
	}
	if ups := updates(t, sid, seen); len(ups) != 1 || ups[0] != `{"sessionUpdate":"current_mode_update","currentModeId":"code"}` {
		t.Fatalf("set_mode updates %q", ups)
	}
	// The agent reads nothing more, and stays alive after stdin closes.
	p.send(map[string]any{"jsonrpc": "2.0", "id": 1000, "method": "session/list", "params": map[string]any{}})
	_ = p.stdin.Close()
	select {
	case m, ok := <-p.msgs:
		if !ok {
			t.Fatal("agent exited (stdout closed)")
		}
		t.Fatalf("agent answered after stopReadingAfter: %s", m.Raw)
	case <-time.After(300 * time.Millisecond):
	}
}

func TestAuthAndSessionResult(t *testing.T) {
	scenarioFile := filepath.Join(t.TempDir(), "scenario.json")
	scenario := `{
		"agentInfo": {"name": "x", "version": "9"},
		"authRequired": true,
		"authMethods": [{"id": "key", "name": "API key", "description": "paste it"}],
		"resume": true,
		"loadSession": false,
		"sessionNewResult": {"modes": {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}]},
			"configOptions": [{"id": "model", "name": "Model", "type": "select", "currentValue": "a",
				"options": [{"value": "a", "name": "A"}, {"value": "b", "name": "B"}]}]}
	}`
	if err := os.WriteFile(scenarioFile, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startAgent(t, []string{"MNOTE_TESTAGENT_SCENARIO=" + scenarioFile})
	want := `{"protocolVersion":1,"agentCapabilities":{"loadSession":false,` +
		`"promptCapabilities":{"image":true,"audio":true,"embeddedContext":true},` +
		`"sessionCapabilities":{"list":{},"resume":{}}},"authMethods":[{"id":"key","name":"API key","description":"paste it"}],` +
		`"agentInfo":{"name":"x","version":"9"}}`
	if got := p.initialize(); got != want {
		t.Fatalf("initialize\n got %s\nwant %s", got, want)
	}
	resp, _ := p.call("session/new", map[string]any{"cwd": "/w", "mcpServers": []any{}}, nil)
	if resp.Error == nil || resp.Error.Code != -32000 || resp.Error.Message != "Authentication required" {
		t.Fatalf("unauthenticated session/new answered %s", resp.Raw)
	}
	resp, _ = p.call("authenticate", map[string]any{"methodId": "key"}, nil)
	if p.mustResult(resp) != "{}" {
		t.Fatalf("authenticate %s", resp.Raw)
	}
	resp, _ = p.call("session/new", map[string]any{"cwd": "/w", "mcpServers": []any{}}, nil)
	var r struct {
		SessionID string          `json:"sessionId"`
		Modes     json.RawMessage `json:"modes"`
	}
	_ = json.Unmarshal([]byte(p.mustResult(resp)), &r)
	if r.SessionID == "" || string(r.Modes) != `{"currentModeId":"ask","availableModes":[{"id":"ask","name":"Ask"}]}` {
		t.Fatalf("session/new result %s", resp.Result)
	}
	resp, _ = p.call("session/set_config_option", map[string]any{"sessionId": r.SessionID, "configId": "model", "value": "b"}, nil)
	if got := p.mustResult(resp); !strings.Contains(got, `"currentValue":"b"`) {
		t.Fatalf("set_config_option %s", got)
	}
	resp, _ = p.call("session/resume", map[string]any{"sessionId": r.SessionID, "cwd": "/w"}, nil)
	if got := p.mustResult(resp); !strings.Contains(got, `"modes":`) || !strings.Contains(got, `"currentValue":"b"`) {
		t.Fatalf("session/resume %s", got)
	}
	resp, _ = p.call("session/load", map[string]any{"sessionId": r.SessionID, "cwd": "/w", "mcpServers": []any{}}, nil)
	if resp.Error == nil || resp.Error.Code != -32601 {
		t.Fatalf("session/load without loadSession answered %s", resp.Raw)
	}
}

func TestLoadReplaysState(t *testing.T) {
	state := t.TempDir()
	scenario := `{"turns":[[{"message":"first"},{"flood":3},{"hugeMessage":5}],[{"message":"second"},{"toolCall":{"toolCallId":"t1","title":"T"}}]],` +
		`"load":[{"message":"loading"}]}`
	p := startAgent(t, nil, "--state", state, "--scenario-json", scenario)
	p.initialize()
	sid := p.newSession("/proj")
	var live []string
	for _, text := range []string{"one", "two", "three"} {
		resp, seen := p.prompt(sid, text, nil)
		p.stopReason(resp)
		live = append(live, updates(t, sid, seen)...)
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("first agent exit code %d", code)
	}
	user := func(s string) string {
		// The prompt block is recorded as the client sent it (this client
		// sorts keys).
		return `{"sessionUpdate":"user_message_chunk","content":{"text":"` + s + `","type":"text"}}`
	}
	second := []string{textUpdate("agent_message_chunk", "second"), `{"sessionUpdate":"tool_call","toolCallId":"t1","title":"T"}`}
	first := []string{textUpdate("agent_message_chunk", "first"),
		textUpdate("agent_message_chunk", "tok 000000 lorem ipsum dolor sit amet. "),
		textUpdate("agent_message_chunk", "tok 000001 lorem ipsum dolor sit amet. "),
		textUpdate("agent_message_chunk", "tok 000002 lorem ipsum dolor sit amet. "),
		textUpdate("agent_message_chunk", "xxxxx")}
	wantLive := append(append(first, second...), second...)
	if strings.Join(live, "\n") != strings.Join(wantLive, "\n") {
		t.Fatalf("live updates\n%s", strings.Join(live, "\n"))
	}

	// A second process, same state dir, via the environment.
	q := startAgent(t, []string{"MNOTE_TESTAGENT_STATE=" + state}, "--scenario-json", scenario)
	q.initialize()
	resp, seen := q.call("session/load", map[string]any{"sessionId": sid, "cwd": "/proj", "mcpServers": []any{}}, nil)
	if q.mustResult(resp) != "{}" {
		t.Fatalf("session/load %s", resp.Raw)
	}
	want := []string{textUpdate("agent_message_chunk", "loading"), user("one")}
	want = append(want, first...)
	want = append(want, user("two"), second[0], second[1], user("three"), second[0], second[1])
	if got := updates(t, sid, seen); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("replay\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	resp, _ = q.call("session/list", map[string]any{}, nil)
	if got, want := q.mustResult(resp), `{"sessions":[{"sessionId":"`+sid+`","cwd":"/proj"}]}`; got != want {
		t.Fatalf("session/list %s", got)
	}
	// The turn counter continues: turn 3 runs the last scripted turn.
	resp, seen = q.prompt(sid, "four", nil)
	q.stopReason(resp)
	if got := updates(t, sid, seen); strings.Join(got, "\n") != strings.Join(second, "\n") {
		t.Fatalf("turn after load %q", got)
	}
	resp, _ = q.call("session/load", map[string]any{"sessionId": "ta-0000", "cwd": "/proj", "mcpServers": []any{}}, nil)
	if resp.Error == nil || resp.Error.Code != -32002 || resp.Error.Message != "session not found" {
		t.Fatalf("load of unknown session answered %s", resp.Raw)
	}
}

func TestStartupOptions(t *testing.T) {
	p := startAgent(t, nil, "--scenario-json",
		`{"ignoreSigterm":true,"stderrAtStart":"agent says hi","initializeDelayMs":150,"sessionNewDelayMs":50}`)
	start := time.Now()
	p.initialize()
	p.newSession("/w")
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("initialize+session/new took only %v", d)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	resp, _ := p.call("session/list", map[string]any{}, nil)
	p.mustResult(resp)
	p.waitStderr("agent says hi\n")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
