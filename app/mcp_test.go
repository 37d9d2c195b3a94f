package app_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/acp/runtimes"
	"mnote/app"
	"mnote/thread"
)

// newMCPHarness is a harness whose agents get the notes tools from a
// built mnote (the test binary is not one).
func newMCPHarness(t *testing.T) *harness {
	t.Helper()
	mnote := acptest.Mnote(t)
	return newHarnessWith(t, func(c *app.Config) { c.MCPCommand = mnote })
}

// mcpStep is a test-agent step calling a notes tool of the "mnote" server.
func mcpStep(tool, args string) string {
	return `{"mcpCall":{"server":"mnote","tool":"` + tool + `","args":` + args + `}}`
}

// writeNotes writes files (relative path → content) into dir.
func writeNotes(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const planNote = "# Plan\nintro\n## Cache\nReasonix cache hits are high.\n### Detail\nmore\n## Other\nlast line\n"

// Every agent gets mnote's notes tools through mcpServers: the test agent
// starts the entry it was given (`mnote mcp`) with the Go MCP SDK's client
// and calls them; they answer from the session's workspace (the notes
// index, the open buffers' unsaved text) and refuse paths outside it.
func TestNotesToolsOverMCP(t *testing.T) {
	t.Parallel()
	h := newMCPHarness(t)
	writeNotes(t, h.ws, map[string]string{"plan.md": planNote, "links/b.md": "see [[plan]] for the cache\n"})
	if err := eventually(testWait, func() bool { return len(h.searchNotes("Reasonix")) == 1 }); err != nil {
		t.Fatal("the notes index did not pick up the notes")
	}
	h.mustCall("files.open", map[string]any{"path": "links/b.md"}, nil)
	h.mustCall("files.update", map[string]any{"path": "links/b.md", "content": "see [[plan]] (unsaved edit)\n"}, nil)
	sum := h.create("test")
	tp := h.turnDone(sum.ID,
		mcpStep("search_notes", `{"query":"Reasonix"}`),
		mcpStep("read_note", `{"path":"plan.md","heading":"Cache"}`),
		mcpStep("read_note", `{"path":"plan.md","startLine":7,"endLine":8}`),
		mcpStep("read_note", `{"path":"links/b.md"}`),
		mcpStep("outline", `{"path":"plan.md"}`),
		mcpStep("backlinks", `{"path":"plan.md"}`),
		mcpStep("list_notes", `{}`),
		mcpStep("read_note", `{"path":"../outside.md"}`),
		mcpStep("read_note", `{"path":"/etc/passwd"}`),
	)
	if tp.StopReason != "end_turn" {
		t.Fatalf("turn: %+v", tp)
	}
	got := strings.Join(h.answers(sum.ID), "")
	want := []string{
		"mcp search_notes: plan.md:4: «Reasonix» cache hits are high.\n",
		"mcp read_note: plan.md, lines 3-6 of 8:\n3| ## Cache\n4| Reasonix cache hits are high.\n5| ### Detail\n6| more\n",
		"mcp read_note: plan.md, lines 7-8 of 8:\n7| ## Other\n8| last line\n",
		"mcp read_note: links/b.md, lines 1-1 of 1:\n1| see [[plan]] (unsaved edit)\n",
		"mcp outline: 1: # Plan\n3: ## Cache\n5: ### Detail\n7: ## Other\n",
		"mcp backlinks: links/b.md:1: see [[plan]] for the cache\n",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("the answers lack %q", w)
		}
	}
	for _, w := range []string{"mcp list_notes: links/b.md\t27 bytes\nplan.md\t87 bytes\n",
		`mcp read_note error: refused: "` + h.ws + `/../outside.md" contains ".."`,
		`mcp read_note error: refused: "/etc/passwd" is outside the workspace`} {
		if !strings.Contains(got, w) {
			t.Errorf("the answers lack %q", w)
		}
	}
	if t.Failed() {
		t.Logf("answers: %q", got)
	}
	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	// The tool calls are recorded; the session token is not.
	if n := strings.Count(string(tr), `"kind":"mcp_call"`); n != 9 {
		t.Errorf("%d mcp_call records, want 9", n)
	}
	if !strings.Contains(string(tr), `"name":"MNOTE_MCP_TOKEN","value":"[redacted]"`) {
		t.Error("the session/new line does not show the token redacted")
	}
	if regexp.MustCompile(`[0-9a-f]{64}`).Match(tr) {
		t.Error("the transcript holds something like a token")
	}
}

// A token mnote did not give is refused: `mnote mcp` cannot connect, and
// nothing runs.
func TestNotesToolsRefuseAWrongToken(t *testing.T) {
	t.Parallel()
	h := newMCPHarness(t)
	writeNotes(t, h.ws, map[string]string{"plan.md": planNote})
	sum := h.create("test")
	h.turnDone(sum.ID,
		`{"mcpCall":{"server":"mnote","tool":"read_note","args":{"path":"plan.md"},"env":{"MNOTE_MCP_TOKEN":"`+strings.Repeat("ab", 32)+`"}}}`,
		`{"mcpCall":{"server":"mnote","tool":"read_note","args":{"path":"plan.md"},"env":{"MNOTE_MCP_TOKEN":""}}}`,
		mcpStep("read_note", `{"path":"plan.md","startLine":1,"endLine":1}`),
	)
	got := strings.Join(h.answers(sum.ID), "")
	if strings.Count(got, "mcp read_note failed:") != 2 || strings.Count(got, "# Plan") != 1 ||
		!strings.HasSuffix(got, "mcp read_note: plan.md, lines 1-1 of 8:\n1| # Plan\n") {
		t.Fatalf("answers %q", got)
	}
}

// mnote's own folders inside the notes folder are out of the tools'
// reach, as they are of fs/*.
func TestNotesToolsCannotReachOwnData(t *testing.T) {
	t.Parallel()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mnote := acptest.Mnote(t)
	h := &harness{t: t, paths: pathsUnder(filepath.Join(ws, ".mnote")), ws: ws, state: t.TempDir(),
		tune: func(c *app.Config) { c.MCPCommand = mnote }}
	if err := h.paths.Ensure(); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.saveAgent("test", "--state", h.state)
	config, err := os.ReadFile(h.paths.ConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	sum := h.create("test")
	h.turnDone(sum.ID,
		mcpStep("read_note", `{"path":".mnote/config.json"}`),
		mcpStep("read_note", `{"path":`+q(h.paths.TranscriptPath(sum.ID))+`}`),
		mcpStep("edit_note", `{"path":".mnote/config.json","content":"{}"}`),
	)
	got := strings.Join(h.answers(sum.ID), "")
	if n := strings.Count(got, " error: refused: "); n != 3 || strings.Count(got, "is in mnote's own data") != 3 {
		t.Errorf("own data: %q", got)
	}
	if b, _ := os.ReadFile(h.paths.ConfigFile); string(b) != string(config) {
		t.Errorf("config.json changed: %q", b)
	}
}

// edit_note asks the user first (an edit tool call card on the file, with the
// diff, in the session's thread), then writes like fs/write_text_file:
// on disk and in the open buffer, recorded with the content it replaced,
// inside the turn's checkpoint, which reverts it. A rejection writes
// nothing.
func TestEditNoteAsksAndReverts(t *testing.T) {
	t.Parallel()
	h := newMCPHarness(t)
	writeNotes(t, h.ws, map[string]string{"plan.md": planNote})
	note := filepath.Join(h.ws, "plan.md")
	sum := h.create("test")

	from := h.rec.Len()
	turn := h.prompt(sum.ID, acptest.Steps(mcpStep("edit_note", `{"path":"plan.md","heading":"Cache","content":"## Cache\nrewritten by the agent\n"}`)))
	_, req := h.waitPermission(sum.ID, from)
	// No English title: the page words it from the kind and the file.
	if req.Title != "" || req.Kind != "edit" || len(req.Options) != 4 || !strings.HasPrefix(req.ToolCallID, "mnote-edit-") {
		t.Fatalf("request %+v", req)
	}
	var tc struct {
		Content   []struct{ Type, OldText, NewText string } `json:"content"`
		Locations []struct{ Path string }                   `json:"locations"`
	}
	if err := json.Unmarshal(req.ToolCall, &tc); err != nil || len(tc.Content) != 1 || tc.Content[0].Type != "diff" ||
		len(tc.Locations) != 1 || tc.Locations[0].Path != note ||
		tc.Content[0].OldText != planNote || !strings.Contains(tc.Content[0].NewText, "rewritten by the agent") {
		t.Fatalf("tool call %s", req.ToolCall)
	}
	if b, _ := os.ReadFile(note); string(b) != planNote {
		t.Fatalf("written before the user allowed it: %q", b)
	}
	h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "allow"}, nil)
	h.waitTurnEnded(sum.ID, from, turn)
	want := "# Plan\nintro\n## Cache\nrewritten by the agent\n## Other\nlast line\n"
	if b, _ := os.ReadFile(note); string(b) != want {
		t.Fatalf("on disk: %q", b)
	}
	if got := h.answers(sum.ID); len(got) != 1 || got[0] != "mcp edit_note: replaced lines 3-6 of plan.md" {
		t.Fatalf("answers %q", got)
	}
	snap := h.open(sum.ID)
	var card *thread.Entry
	for i, e := range snap.Thread.Entries {
		if e.Kind == thread.EntryToolCall && e.ToolCall != nil && strings.HasPrefix(e.ToolCall.ToolCallID, "mnote-edit-") && e.ToolCall.Title == "" {
			card = &snap.Thread.Entries[i]
		}
	}
	if card == nil || card.ToolCall.Status != "completed" || card.ToolCall.Kind != "edit" {
		t.Fatalf("no completed tool call card: %+v", snap.Thread.Entries)
	}
	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(planNote)
	if !strings.Contains(string(tr), `"kind":"file_written"`) || !strings.Contains(string(tr), `"before":`+string(before)) {
		t.Error("the transcript does not keep what the edit replaced")
	}

	// The Changes view has it, and it reverts.
	var turns []app.TurnChanges
	h.mustCall("checkpoints.list", map[string]any{"sessionId": sum.ID}, &turns)
	if len(turns) != 1 || turns[0].Turn != 1 || len(turns[0].Files) != 1 || turns[0].Files[0].Path != "plan.md" {
		t.Fatalf("checkpoints: %+v", turns)
	}
	h.mustCall("checkpoints.revert", map[string]any{"sessionId": sum.ID, "turn": 1}, nil)
	if b, _ := os.ReadFile(note); string(b) != planNote {
		t.Fatalf("after revert: %q", b)
	}

	// Rejected: nothing written, the agent is told.
	from = h.rec.Len()
	turn = h.prompt(sum.ID, acptest.Steps(mcpStep("edit_note", `{"path":"plan.md","startLine":2,"content":"changed"}`)))
	_, req = h.waitPermission(sum.ID, from)
	h.mustCall("permissions.decide", map[string]any{"sessionId": sum.ID, "requestId": req.RequestID, "optionId": "reject"}, nil)
	h.waitTurnEnded(sum.ID, from, turn)
	if got := h.answers(sum.ID); got[len(got)-1] != "mcp edit_note error: the user rejected the edit of plan.md" {
		t.Fatalf("answers %q", got)
	}
	if b, _ := os.ReadFile(note); string(b) != planNote {
		t.Fatalf("a rejected edit wrote: %q", b)
	}

	// After a restart the thread, rebuilt from the transcript (the index
	// and the thread cache, both derived, deleted), shows the same cards:
	// the allowed edit completed, the rejected one rejected.
	h.svc.Shutdown()
	for _, p := range []string{h.paths.ThreadCachePath(sum.ID), h.paths.DB, h.paths.DB + "-wal", h.paths.DB + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	h.start()
	var status []string
	for _, e := range h.open(sum.ID).Thread.Entries {
		if e.Kind == thread.EntryToolCall && strings.HasPrefix(e.ToolCall.ToolCallID, "mnote-edit-") && e.ToolCall.Title == "" {
			status = append(status, e.ToolCall.Status)
		}
	}
	if strings.Join(status, " ") != "completed rejected" {
		t.Errorf("after a restart the edit cards are %q", status)
	}
	// The session continues (session/load) with the notes tools, under a
	// new token.
	h.turnDone(sum.ID, mcpStep("read_note", `{"path":"plan.md","startLine":1,"endLine":1}`))
	if got := h.answers(sum.ID); !strings.Contains(got[len(got)-1], "1| # Plan") {
		t.Errorf("after session/load: %q", got)
	}
}

// editConfig changes config.json as a user would by hand.
func (h *harness) editConfig(fn func(top map[string]any)) {
	h.t.Helper()
	b, err := os.ReadFile(h.paths.ConfigFile)
	if err != nil {
		h.t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(b, &top); err != nil {
		h.t.Fatal(err)
	}
	fn(top)
	if b, err = json.Marshal(top); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(h.paths.ConfigFile, b, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// The user's own MCP servers (config.json "context_servers", Zed's shape)
// reach every agent session, their secrets kept in secrets.json like
// agents' keys (the server gets the value; the transcript does not);
// servers with a url only reach agents that take HTTP servers; and
// "notes_tools": false keeps mnote's tools from an agent.
func TestContextServersAndNotesToolsToggle(t *testing.T) {
	t.Parallel()
	h := newMCPHarness(t)
	echo := acptest.Binary(t, "./app/testdata/mcpecho", "mcpecho")
	h.saveAgent("quiet", "--state", h.state)
	h.editConfig(func(top map[string]any) {
		top["context_servers"] = map[string]any{
			"echo":  map[string]any{"command": echo, "args": []string{}, "env": map[string]string{"PLAIN": "p"}},
			"cloud": map[string]any{"url": "http://127.0.0.1:9/mcp", "headers": map[string]string{"Authorization": "Bearer x"}},
			"off":   map[string]any{"command": echo, "enabled": false},
		}
		top["agent_servers"].(map[string]any)["quiet"].(map[string]any)["notes_tools"] = false
	})
	if err := runtimes.SetSecret(h.paths.ConfigFile, runtimes.ContextServerSecretsName("echo"), "ECHO_KEY", "sekrit-value"); err != nil {
		t.Fatal(err)
	}
	writeNotes(t, h.ws, map[string]string{"plan.md": planNote})
	sum := h.create("test")
	h.turnDone(sum.ID,
		`{"mcpCall":{"server":"echo","tool":"env_sha256","args":{"name":"ECHO_KEY"}}}`,
		`{"mcpCall":{"server":"echo","tool":"env_sha256","args":{"name":"PLAIN"}}}`,
		`{"mcpCall":{"server":"cloud","tool":"x"}}`,
		`{"mcpCall":{"server":"off","tool":"x"}}`,
		mcpStep("read_note", `{"path":"plan.md","startLine":1,"endLine":1}`),
	)
	sha := func(s string) string { b := sha256.Sum256([]byte(s)); return hex.EncodeToString(b[:]) }
	got := strings.Join(h.answers(sum.ID), "")
	for _, w := range []string{
		"mcp env_sha256: " + sha("sekrit-value"), "mcp env_sha256: " + sha("p"),
		`mcp x failed: the client sent no mcpServers entry "cloud"`, `mcp x failed: the client sent no mcpServers entry "off"`,
		"mcp read_note: plan.md, lines 1-1 of 8",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("the answers lack %q:\n%s", w, got)
		}
	}
	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(tr), "sekrit-value") {
		t.Error("the transcript holds a context server's secret")
	}

	// notes_tools false: the agent gets the user's servers, not mnote's.
	q := h.create("quiet")
	h.turnDone(q.ID,
		mcpStep("read_note", `{"path":"plan.md"}`),
		`{"mcpCall":{"server":"echo","tool":"env_sha256","args":{"name":"PLAIN"}}}`,
	)
	got = strings.Join(h.answers(q.ID), "")
	if !strings.Contains(got, `mcp read_note failed: the client sent no mcpServers entry "mnote"`) || !strings.Contains(got, "mcp env_sha256: "+sha("p")) {
		t.Errorf("with notes_tools false: %s", got)
	}
}

// agents.setNotesTools turns the notes tools off and on for one agent.
func TestSetNotesTools(t *testing.T) {
	t.Parallel()
	h := newMCPHarness(t)
	writeNotes(t, h.ws, map[string]string{"plan.md": planNote})
	tools := func(list []app.Agent) bool {
		for _, a := range list {
			if a.Name == "test" {
				return a.NotesTools
			}
		}
		t.Fatal("no agent test")
		return false
	}
	var list []app.Agent
	h.mustCall("agents.list", struct{}{}, &list)
	if !tools(list) {
		t.Fatal("the notes tools are off by default")
	}
	h.mustCall("agents.setNotesTools", map[string]any{"name": "test", "on": false}, &list)
	if tools(list) {
		t.Fatal("still on")
	}
	off := h.create("test")
	h.turnDone(off.ID, mcpStep("read_note", `{"path":"plan.md","startLine":1,"endLine":1}`))
	if got := strings.Join(h.answers(off.ID), ""); !strings.Contains(got, `no mcpServers entry "mnote"`) {
		t.Errorf("off: %q", got)
	}
	h.mustCall("agents.setNotesTools", map[string]any{"name": "test", "on": true}, &list)
	on := h.create("test")
	h.turnDone(on.ID, mcpStep("read_note", `{"path":"plan.md","startLine":1,"endLine":1}`))
	if got := strings.Join(h.answers(on.ID), ""); !strings.Contains(got, "1| # Plan") || !tools(list) {
		t.Errorf("on again: %q", got)
	}
	if e := h.call("agents.setNotesTools", map[string]any{"name": "nobody", "on": false}, nil); codeOf(e) != app.CodeAgentMissing {
		t.Errorf("an unknown agent: %+v", e)
	}
}
