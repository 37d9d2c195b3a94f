package agents_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mnote/acp/acptest/fakemodel"
	"mnote/store"
)

// The notes tools turn: mnote offers every agent its own MCP server
// (`mnote mcp`, reached over a private socket with the session's token);
// the fake model makes the agent call search_notes with a Chinese query,
// then edit_note on the note the search answered (it reads the path from
// the tool result the agent sent back), then answer.
const (
	perfPath  = "notes/perf.md"
	otherPath = "notes/other.md"
	perfNote  = "# 性能\n\n## 缓存\nReasonix 的缓存命中率很高。\n\n## 其他\n别的内容。\n"
	perfAfter = "# 性能\n\n## 缓存\nReasonix 的缓存命中率：97%（已更新）。\n\n## 其他\n别的内容。\n"
	// notesPrompt carries the fake model's marker for the notes turn.
	notesPrompt = "[notes] 在我的笔记里搜索“缓存”，把那一节改写成最新的命中率"
	notesAnswer = `Done: I rewrote the section "缓存" of notes/perf.md.`
)

var notesScript = fakemodel.NotesScript{
	Marker: "[notes]", Query: "缓存", Heading: "缓存",
	Content: "## 缓存\nReasonix 的缓存命中率：97%（已更新）。\n\n",
}

func TestQwenCodeNotesTools(t *testing.T) {
	t.Parallel()
	runNotesScenario(t, qwen)
}

func TestOpenCodeNotesTools(t *testing.T) {
	t.Parallel()
	runNotesScenario(t, opencode)
}

func TestReasonixNotesTools(t *testing.T) {
	t.Parallel()
	runNotesScenario(t, reasonix)
}

// runNotesScenario runs the notes turn twice: headless (`mnote prompt`,
// edit_note allowed by --approve all) and in the app's services as the
// window runs them (the permission answered through permissions.decide,
// the turn's checkpoint listed by checkpoints.list, as the Changes view
// shows it, and reverted by checkpoints.revert).
func runNotesScenario(t *testing.T, spec agentSpec) {
	h := newHarness(t, spec)
	h.writeNote(perfPath, perfNote)
	h.writeNote(otherPath, "# 其他\nnothing about caching here\n")

	// Headless.
	r := h.prompt("", notesPrompt, "")
	if r.code != 0 {
		t.Fatalf("mnote prompt: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	transcript, _ := r.session()["transcript"].(string)
	h.checkNotesTurn("mnote prompt", r.before, r.after, transcript, r.text())
	var edits int
	for _, p := range r.ofType("permission") {
		if p["phase"] == "asked" && isEditNote(p["kind"], p["toolCallId"]) {
			edits++
		}
	}
	if edits != 1 {
		t.Errorf("mnote prompt: %d permission lines for the edit, want 1:\n%s", edits, r.stdout)
	}

	// In the app, as the window runs it.
	h.writeNote(perfPath, perfNote)
	h.inApp(func(a *appRun) {
		a.waitIndexed(perfPath, "命中率")
		id := a.create()
		a.checkModel(id)
		for _, o := range spec.options {
			k, v, _ := strings.Cut(o, "=")
			a.mustCall("sessions.setConfigOption", map[string]any{"id": id, "configId": k, "value": v}, nil)
		}
		before := len(h.requests())
		asked := a.turn(id, notesPrompt)
		t.Logf("app: permission requests %q", asked)
		if !slices.ContainsFunc(asked, func(s string) bool { k, id, _ := strings.Cut(s, " "); return isEditNote(k, id) }) {
			t.Errorf("app: permission requests %q, want one for the edit", asked)
		}
		h.checkNotesTurn("app", before, len(h.requests()), h.transcriptPath(id), a.answer(id))

		// The Changes view lists the turn's file; revert restores it.
		var turns []struct {
			Turn  int `json:"turn"`
			Files []struct {
				Path string `json:"path"`
			} `json:"files"`
		}
		a.mustCall("checkpoints.list", map[string]any{"sessionId": id}, &turns)
		if len(turns) != 1 || turns[0].Turn != 1 || len(turns[0].Files) != 1 || turns[0].Files[0].Path != perfPath {
			t.Fatalf("app: checkpoints %+v, want turn 1 with %s", turns, perfPath)
		}
		a.mustCall("checkpoints.revert", map[string]any{"sessionId": id, "turn": 1}, nil)
		if got := h.read(perfPath); got != perfNote {
			t.Fatalf("app: after the revert the note is %q", got)
		}
	})
	h.noLeftovers()
}

// checkNotesTurn checks one notes turn: the model asked for the search,
// saw its result (the note and its line) in the next request and asked
// for the edit, the note on disk is rewritten, and the transcript has
// the tool calls, the permission request and the content replaced.
func (h *harness) checkNotesTurn(how string, from, to int, transcript, answer string) {
	t := h.t
	t.Helper()
	var steps []string
	var searched, afterSearch, edited *fakemodel.Request
	reqs := h.requests()
	for i := range reqs[from:to] {
		q := &reqs[from+i]
		steps = append(steps, q.Step)
		switch {
		case q.Step == fakemodel.StepSearchNotes:
			searched = q
		case searched != nil && afterSearch == nil && q.Step != fakemodel.StepSide:
			afterSearch = q // the model's next request of the turn
		}
		if q.Step == fakemodel.StepEditNote {
			edited = q
		}
	}
	if searched == nil || afterSearch == nil || edited == nil || slices.Contains(steps, fakemodel.StepError) {
		for _, q := range reqs[from:to] {
			t.Logf("request %d: step %s, tools %v, error %q, tool result %q", q.N, q.Step, q.Tools, q.Error, q.ToolResult)
		}
		t.Fatalf("%s: the model's steps were %v (want search_notes, edit_note, answer)", how, steps)
	}
	t.Logf("%s: %s calls the notes tools as %s and %s", how, h.spec.name, toolCalled(searched), toolCalled(edited))
	// The search result reached the model (in its next request): the
	// note, its line, the words.
	res := afterSearch.ToolResult
	if !strings.Contains(res, perfPath+":3:") || !(strings.Contains(res, "缓存") || strings.Contains(res, `\u7f13\u5b58`)) {
		t.Errorf("%s: the model saw the search result %q, want %s:3: and 缓存", how, res, perfPath)
	}
	if strings.Contains(res, otherPath) {
		t.Errorf("%s: the search answered %s too: %q", how, otherPath, res)
	}
	if args := toolArgs(edited); args["path"] != perfPath {
		t.Errorf("%s: edit_note arguments %s", how, edited.Args)
	}
	if answer != notesAnswer {
		t.Errorf("%s: answer %q, want %q", how, answer, notesAnswer)
	}
	if got := h.read(perfPath); got != perfAfter {
		t.Fatalf("%s: the note is %q, want %q", how, got, perfAfter)
	}

	// The transcript: both tool calls, the edit's permission request and
	// decision, and the write with the content it replaced.
	var mcpCalls []string
	var askedEdit, decided bool
	var written map[string]any
	for _, rec := range h.transcript(transcript) {
		d, _ := rec["data"].(map[string]any)
		switch rec["kind"] {
		case "mcp_call":
			mcpCalls = append(mcpCalls, d["tool"].(string))
			if d["isError"] == true {
				t.Errorf("%s: tool call failed: %v", how, d)
			}
		case "permission_asked":
			askedEdit = askedEdit || isEditNote(d["kind"], d["toolCallId"])
		case "permission_decided":
			decided = true
		case "file_written":
			if strings.HasSuffix(d["path"].(string), perfPath) {
				written = d
			}
		}
	}
	if !slices.Contains(mcpCalls, "search_notes") || !slices.Contains(mcpCalls, "edit_note") {
		t.Errorf("%s: transcript mcp_call records %v", how, mcpCalls)
	}
	if !askedEdit || !decided {
		t.Errorf("%s: transcript permission records: edit asked %v, decided %v", how, askedEdit, decided)
	}
	if written == nil || written["before"] != perfNote {
		t.Errorf("%s: file_written record %v, want the content replaced (%q)", how, written, perfNote)
	}
	if b, _ := os.ReadFile(transcript); strings.Contains(string(b), `"MNOTE_MCP_TOKEN","value":"`) &&
		!strings.Contains(string(b), `"MNOTE_MCP_TOKEN","value":"[redacted]"`) {
		t.Errorf("%s: the transcript keeps the notes tools' token", how)
	}
}

// toolCalled is the tool the model called, as the agent names it (through
// an agent's proxy: "tool_call(NAME)", "use_capability(ID)").
func toolCalled(q *fakemodel.Request) string {
	var a struct {
		Name         string `json:"name"`
		CapabilityID string `json:"capability_id"`
	}
	if json.Unmarshal([]byte(q.Args), &a) == nil && a.Name+a.CapabilityID != "" {
		return q.ToolCall + "(" + a.Name + a.CapabilityID + ")"
	}
	return q.ToolCall
}

// toolArgs are the arguments of the notes tool the model called.
func toolArgs(q *fakemodel.Request) map[string]any {
	var a map[string]any
	_ = json.Unmarshal([]byte(q.Args), &a)
	if inner, ok := a["arguments"].(map[string]any); ok && (q.ToolCall == "tool_call" || q.ToolCall == "use_capability") {
		return inner
	}
	return a
}

func (h *harness) writeNote(rel, content string) {
	h.t.Helper()
	p := filepath.Join(h.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) read(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.ws, filepath.FromSlash(rel)))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// mnotePaths are the paths of MNOTE_HOME=h.mnoteHm (store.DefaultPaths).
func (h *harness) mnotePaths() store.Paths {
	data := filepath.Join(h.mnoteHm, "data")
	return store.Paths{
		ConfigFile: filepath.Join(h.mnoteHm, "config.json"), DataDir: data, DB: filepath.Join(data, "mnote.db"),
		Transcripts: filepath.Join(data, "transcripts"), Trash: filepath.Join(data, "trash"),
		LogDir: filepath.Join(h.mnoteHm, "logs"), StateDir: filepath.Join(h.mnoteHm, "state"),
	}
}

func (h *harness) transcriptPath(id string) string { return h.mnotePaths().TranscriptPath(id) }

// isEditNote says a permission request is mnote's own for edit_note (its
// tool call id; it has no title: the page words it from the kind and the
// file).
func isEditNote(kind, toolCallID any) bool {
	id, _ := toolCallID.(string)
	return kind == "edit" && strings.HasPrefix(id, "mnote-edit-")
}
