package fakemodel

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A notes turn, for the ways agents name MCP tools and send their results
// back: search_notes with the query, then edit_note on the note the
// search answered (read from the result, plain or JSON-wrapped), then the
// answer; the log keeps the result each step saw. A result naming no note
// is a scripting error, not an edit of some other file.
func TestNotesTurn(t *testing.T) {
	mcpTools := func(prefix string) []any {
		schema := func(props ...string) map[string]any {
			p := map[string]any{}
			for _, k := range props {
				p[k] = map[string]any{"type": "string"}
			}
			return map[string]any{"type": "object", "properties": p}
		}
		return []any{
			map[string]any{"type": "function", "function": map[string]any{"name": "read_file", "parameters": schema("file_path")}},
			map[string]any{"type": "function", "function": map[string]any{"name": prefix + "search_notes", "parameters": schema("query", "folder")}},
			map[string]any{"type": "function", "function": map[string]any{"name": prefix + "edit_note", "parameters": schema("path", "heading", "content")}},
			map[string]any{"type": "function", "function": map[string]any{"name": "other_search_notes", "parameters": schema("query")}},
		}
	}
	const hit = "notes/perf.md:3: ## «缓存»\nnotes/other.md:9: 缓存\n"
	wrapped, _ := json.Marshal([]any{map[string]any{"type": "text", "text": hit}})
	for _, tc := range []struct{ name, prefix, result string }{
		{"qwen-style", "mcp__mnote__", hit},
		{"opencode-style", "mnote_", string(wrapped)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "requests.jsonl")
			script := Script{Notes: NotesScript{Query: "缓存", Heading: "缓存", Content: "## 缓存\n命中率 97%\n"}}
			srv, err := Start(script, Options{LogFile: logFile})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			url := srv.URL() + "/v1/chat/completions"
			msgs := []any{map[string]any{"role": "user", "content": "[notes] 更新缓存那一节"}}
			body := func() map[string]any {
				return map[string]any{"model": "fake-model", "stream": true, "messages": msgs, "tools": mcpTools(tc.prefix)}
			}
			toolTurn := func(c completion, result string) {
				msgs = append(msgs,
					map[string]any{"role": "assistant", "content": c.text, "tool_calls": []any{map[string]any{
						"id": c.callID, "type": "function", "function": map[string]any{"name": c.name, "arguments": mustJSON(c.args)}}}},
					map[string]any{"role": "tool", "tool_call_id": c.callID, "content": result})
			}

			search := complete(t, url, body())
			if search.name != tc.prefix+"search_notes" || search.args["query"] != "缓存" || search.finish != "tool_calls" {
				t.Fatalf("search step: %+v", search)
			}
			toolTurn(search, tc.result)
			edit := complete(t, url, body())
			if edit.name != tc.prefix+"edit_note" || edit.args["path"] != "notes/perf.md" || edit.args["heading"] != "缓存" ||
				edit.args["content"] != "## 缓存\n命中率 97%\n" {
				t.Fatalf("edit step: %+v", edit)
			}
			toolTurn(edit, "replaced lines 3-4 of notes/perf.md")
			answer := complete(t, url, body())
			if answer.text != `Done: I rewrote the section "缓存" of notes/perf.md.` || answer.name != "" {
				t.Fatalf("answer: %+v", answer)
			}
			reqs, err := ReadLog(logFile)
			if err != nil || len(reqs) != 3 {
				t.Fatalf("log: %+v %v", reqs, err)
			}
			steps := []string{reqs[0].Step, reqs[1].Step, reqs[2].Step}
			if strings.Join(steps, " ") != "search_notes edit_note answer" {
				t.Errorf("steps %v", steps)
			}
			if reqs[0].ToolResult != "" || reqs[1].ToolResult != tc.result || reqs[2].ToolResult != "replaced lines 3-4 of notes/perf.md" {
				t.Errorf("tool results logged: %q, %q, %q", reqs[0].ToolResult, reqs[1].ToolResult, reqs[2].ToolResult)
			}

			// A search result that names no note: the model says so.
			msgs = msgs[:1]
			search = complete(t, url, body())
			toolTurn(search, "no note matches")
			if bad := complete(t, url, body()); bad.name != "" || !strings.Contains(bad.text, "named no note") {
				t.Errorf("a result without a note: %+v", bad)
			}
		})
	}
}

// Agents that keep MCP tools out of the declared tools: the model calls
// them through the agent's proxy by the name the agent gave it. Qwen
// Code: tool_search (asked again while it finds nothing), then tool_call
// {name, arguments}. Reasonix: use_capability with the capability id its
// route in the prompt names (search_notes), or that its search answers
// (edit_note).
func TestNotesTurnThroughAProxy(t *testing.T) {
	fn := func(name string, props ...string) any {
		p := map[string]any{}
		for _, k := range props {
			p[k] = map[string]any{"type": "string"}
		}
		return map[string]any{"type": "function", "function": map[string]any{"name": name, "parameters": map[string]any{"type": "object", "properties": p}}}
	}
	for _, tc := range []struct {
		name, prompt string
		tools        []any
		// results the agent sends back for each call, in order
		results []string
		// the proxy calls, as "tool action-or-name"
		want []string
	}{
		{"qwen", "[notes] 缓存", []any{fn("read_file", "file_path"), fn("tool_search", "query"), fn("tool_call", "name", "arguments")},
			[]string{"No tools found matching 'mnote'", "<functions>\n{\"name\": \"mcp__mnote__search_notes\"}\n{\"name\": \"mcp__mnote__edit_note\"}\n</functions>",
				"notes/perf.md:3: ## «缓存»", "replaced lines 3-4 of notes/perf.md"},
			[]string{"tool_search", "tool_search", "tool_call mcp__mnote__search_notes", "tool_call mcp__mnote__edit_note"}},
		{"reasonix", "<capability-route>\n- mcp-tool:mnote/search_notes prefer\n</capability-route>\n[notes] 缓存",
			[]any{fn("read_file", "path"), fn("use_capability", "action", "capability_id", "query", "arguments")},
			[]string{"notes/perf.md:3: ## «缓存»", `{"results":[{"capability_id":"mcp-tool:mnote/edit_note"}]}`, "replaced lines 3-4 of notes/perf.md"},
			[]string{"use_capability call mcp-tool:mnote/search_notes", "use_capability search", "use_capability call mcp-tool:mnote/edit_note"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := Start(Script{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			url := srv.URL() + "/v1/chat/completions"
			msgs := []any{map[string]any{"role": "user", "content": tc.prompt}}
			var got []string
			for i, result := range tc.results {
				c := completeCall(t, url, map[string]any{"model": "m", "messages": msgs, "tools": tc.tools})
				if c.Function.Name == "" {
					t.Fatalf("request %d: no tool call", i)
				}
				var args struct {
					Name, Action string
					ID           string `json:"capability_id"`
				}
				_ = json.Unmarshal([]byte(c.Function.Arguments), &args)
				got = append(got, strings.TrimSpace(c.Function.Name+" "+args.Name+args.Action+" "+args.ID))
				msgs = append(msgs,
					map[string]any{"role": "assistant", "content": "", "tool_calls": []any{c}},
					map[string]any{"role": "tool", "tool_call_id": c.ID, "content": result})
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if a := complete(t, url, map[string]any{"model": "m", "messages": msgs, "tools": tc.tools}); a.text != `Done: I rewrote the section "缓存" of notes/perf.md.` {
				t.Errorf("answer %+v", a)
			}
		})
	}
}

// completeCall posts a non-streamed request and returns the tool call of
// the answer (arguments of any shape).
func completeCall(t *testing.T, url string, body map[string]any) toolCall {
	t.Helper()
	resp, err := post(t, url, body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct {
				ToolCalls []toolCall `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) == 0 {
		t.Fatalf("answer: %v", err)
	}
	if tc := out.Choices[0].Message.ToolCalls; len(tc) > 0 {
		return tc[0]
	}
	return toolCall{}
}
