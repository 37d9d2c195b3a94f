package fakemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// agentTools reads the tool list an agent offered (testdata/tools-*.json).
func agentTools(t *testing.T, agent string) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tools-"+agent+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Tools
}

// completion is one answer of the server, streamed or not, put together.
type completion struct {
	reasoning, text string
	callID, name    string
	args            map[string]string
	finish          string
	usage           *Usage
	chunks          int
	done            bool // the stream ended with [DONE]
}

func post(t *testing.T, url string, body any, header ...string) (*http.Response, error) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(t.Context(), "POST", url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return http.DefaultClient.Do(req)
}

func complete(t *testing.T, url string, body map[string]any, header ...string) completion {
	t.Helper()
	resp, err := post(t, url, body, header...)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var c completion
	var args strings.Builder
	type choice struct {
		Delta, Message struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		}
		FinishReason *string `json:"finish_reason"`
	}
	var chunk struct {
		Choices []choice `json:"choices"`
		Usage   *Usage   `json:"usage"`
	}
	take := func(ch choice, stream bool) {
		d := ch.Message
		if stream {
			d = ch.Delta
		}
		c.reasoning += d.ReasoningContent
		c.text += d.Content
		for _, tc := range d.ToolCalls {
			if tc.ID != "" {
				c.callID = tc.ID
			}
			if tc.Function.Name != "" {
				c.name = tc.Function.Name
			}
			args.WriteString(tc.Function.Arguments)
		}
		if ch.FinishReason != nil {
			c.finish = *ch.FinishReason
		}
	}
	if body["stream"] != true {
		if err := json.NewDecoder(resp.Body).Decode(&chunk); err != nil {
			t.Fatal(err)
		}
		take(chunk.Choices[0], false)
		c.usage = chunk.Usage
	} else {
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("content type %q", ct)
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			if line == "[DONE]" {
				c.done = true
				break
			}
			chunk.Choices, chunk.Usage = nil, nil
			if err := json.Unmarshal([]byte(line), &chunk); err != nil {
				t.Fatalf("chunk %s: %v", line, err)
			}
			c.chunks++
			for _, ch := range chunk.Choices {
				take(ch, true)
			}
			if chunk.Usage != nil {
				c.usage = chunk.Usage
			}
		}
	}
	if args.Len() > 0 {
		if err := json.Unmarshal([]byte(args.String()), &c.args); err != nil {
			t.Fatalf("tool arguments %q: %v", args.String(), err)
		}
	}
	return c
}

// A whole turn, for the tool sets three real agents offer: a thought and
// a read, a thought and an edit (whose arguments really apply to the file),
// a thought and the answer; DeepSeek usage with cache hits from the
// second request on.
func TestTurnForEachAgent(t *testing.T) {
	for _, tc := range []struct {
		agent, read, edit, pathArg, oldArg, newArg string
		stream                                     bool
	}{
		{"qwen", "read_file", "edit", "file_path", "old_string", "new_string", true},
		{"opencode", "read", "edit", "filePath", "oldString", "newString", true},
		{"reasonix", "read_file", "edit_file", "path", "old_string", "new_string", false},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "notes", "hello.md")
			os.MkdirAll(filepath.Dir(file), 0o755)
			os.WriteFile(file, []byte("# Hello\n"), 0o644)
			logFile := filepath.Join(dir, "requests.jsonl")
			srv, err := Start(Script{Dir: dir}, Options{LogFile: logFile})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			url := srv.URL() + "/v1/chat/completions"
			msgs := []any{
				map[string]any{"role": "system", "content": "You are an agent."},
				map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "text", "text": "<system-reminder>Today is Monday. See QWEN.md.</system-reminder>"},
					map[string]any{"type": "text", "text": "Add a line 'hi' to notes/hello.md"}}},
			}
			body := func() map[string]any {
				return map[string]any{"model": "fake-model", "stream": tc.stream, "messages": msgs, "tools": agentTools(t, tc.agent)}
			}
			toolTurn := func(c completion, result string) {
				msgs = append(msgs,
					map[string]any{"role": "assistant", "content": c.text, "tool_calls": []any{map[string]any{
						"id": c.callID, "type": "function", "function": map[string]any{"name": c.name, "arguments": mustJSON(c.args)}}}},
					map[string]any{"role": "tool", "tool_call_id": c.callID, "content": result})
			}

			read := complete(t, url, body())
			if read.name != tc.read || read.args[tc.pathArg] != file || read.finish != "tool_calls" ||
				!strings.Contains(read.reasoning, "read notes/hello.md") {
				t.Fatalf("read step: %+v", read)
			}
			toolTurn(read, "# Hello\n")
			edit := complete(t, url, body())
			if edit.name != tc.edit || edit.args[tc.pathArg] != file || edit.args[tc.oldArg] != "# Hello\n" || edit.args[tc.newArg] != "# Hello\nhi\n" {
				t.Fatalf("edit step: %+v", edit)
			}
			toolTurn(edit, "Edit applied.")
			answer := complete(t, url, body())
			if answer.name != "" || answer.finish != "stop" || answer.text != `Done: I added a line "hi" to notes/hello.md.` || answer.reasoning == "" {
				t.Fatalf("answer step: %+v", answer)
			}
			if tc.stream && (!answer.done || answer.chunks < 3) {
				t.Errorf("stream: %d chunks, [DONE] %v", answer.chunks, answer.done)
			}
			for i, c := range []completion{read, edit, answer} {
				u := c.usage
				if u == nil || u.PromptTokens <= 0 || u.PromptCacheHitTokens+u.PromptCacheMissTokens != u.PromptTokens ||
					u.TotalTokens != u.PromptTokens+u.CompletionTokens || u.CompletionTokensDetails.ReasoningTokens <= 0 {
					t.Fatalf("request %d usage %+v", i+1, u)
				}
				if (i == 0) != (u.PromptCacheHitTokens == 0) {
					t.Errorf("request %d: cache hit %d (only the first request misses)", i+1, u.PromptCacheHitTokens)
				}
			}
			// The log, in memory and on disk, says what happened.
			logged, err := ReadLog(logFile)
			if err != nil {
				t.Fatal(err)
			}
			var steps []string
			for _, r := range logged {
				steps = append(steps, r.Step)
			}
			if strings.Join(steps, ",") != "read,edit,answer" || len(srv.Requests()) != 3 || logged[0].Prompt != "Add a line 'hi' to notes/hello.md" {
				t.Errorf("log: %+v", logged)
			}
		})
	}
}

// An agent that offers only a write tool gets the whole new content.
func TestWriteToolFallback(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.md")
	os.WriteFile(file, []byte("one"), 0o644)
	srv, err := Start(Script{File: file}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tools := json.RawMessage(`[{"type":"function","function":{"name":"view","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}},` +
		`{"type":"function","function":{"name":"create_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}}}]`)
	msgs := []any{map[string]any{"role": "user", "content": "append please"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_fm1_read", "type": "function", "function": map[string]any{"name": "view", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_fm1_read", "content": "one"}}
	c := complete(t, srv.URL()+"/chat/completions", map[string]any{"messages": msgs, "tools": tools})
	if c.name != "create_file" || c.args["path"] != file || c.args["content"] != "one\nhi\n" {
		t.Fatalf("write step: %+v", c)
	}
}

// Side requests (no tools) get short text; /v1/models lists the models;
// a required key is enforced, and 401 can be switched on.
func TestSideRequestsModelsAndAuth(t *testing.T) {
	srv, err := Start(Script{APIKey: "k1"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body := map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "Title this"}}}
	if c := complete(t, srv.URL()+"/v1/chat/completions", body, "Authorization", "Bearer k1"); c.text != "Add a line to a note" || c.finish != "stop" {
		t.Errorf("side answer %+v", c)
	}
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}} {
		resp, err := post(t, srv.URL()+"/v1/chat/completions", body, h...)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("key %v: status %d", h, resp.StatusCode)
		}
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL()+"/models", nil)
	req.Header.Set("api-key", "k1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if len(models.Data) != 3 || models.Data[1].ID != "deepseek-v4-flash" {
		t.Errorf("models %+v", models)
	}
	srv.SetUnauthorized(true)
	resp, err = post(t, srv.URL()+"/v1/chat/completions", body, "Authorization", "Bearer k1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("SetUnauthorized: status %d", resp.StatusCode)
	}
	reqs := srv.Requests()
	var steps []string
	for _, r := range reqs {
		steps = append(steps, r.Step)
		if r.Body != nil {
			t.Error("a body was kept without KeepBodies")
		}
	}
	if strings.Join(steps, ",") != "side,unauthorized,unauthorized,,unauthorized" || !reqs[0].KeySent || reqs[1].KeySent {
		t.Errorf("log %+v", reqs)
	}
}

// A prompt with the stall marker streams a thought and then holds the
// request until the client goes away (an agent's cancel).
func TestStall(t *testing.T) {
	srv, err := Start(Script{File: "/nonexistent.md"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	b, _ := json.Marshal(map[string]any{"stream": true, "messages": []any{map[string]any{"role": "user", "content": "think [stall]"}},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "read", "parameters": map[string]any{}}}}})
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL()+"/v1/chat/completions", bytes.NewReader(b))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	var got string
	for !strings.Contains(got, "reasoning_content") {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before the thought: %v", err)
		}
		got += line
	}
	ended := make(chan error, 1)
	go func() { _, err := io.ReadAll(br); ended <- err }()
	select {
	case err := <-ended:
		t.Fatalf("the stalled stream ended by itself: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v", err)
	}
	resp.Body.Close()
	if r := srv.Requests(); len(r) != 1 || r[0].Step != StepStall {
		t.Errorf("log %+v", r)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "10.1.2.3:80", "example.com:80"} {
		if s, err := Start(Script{}, Options{Addr: addr}); err == nil {
			s.Close()
			t.Errorf("listened on %s", addr)
		}
	}
	s, err := Start(Script{}, Options{Addr: "localhost:0"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
