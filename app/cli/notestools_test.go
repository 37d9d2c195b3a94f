package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mnote/acp/acptest"
)

// mcpStep is a test-agent step calling a notes tool of the "mnote" server.
func mcpStep(tool, args string) string {
	return `{"mcpCall":{"server":"mnote","tool":"` + tool + `","args":` + args + `}}`
}

const cacheNote = "# 性能\n\n## 缓存\nReasonix 的缓存命中率很高。\n\n## 其他\n别的。\n"

// `mnote prompt` offers the agent mnote's notes tools as the window does
// (the same mcpServers entry: `mnote mcp` with this run's token): a
// Chinese search finds the note (the index is built on first use), and
// edit_note follows --approve like the agent's own requests: allowed with
// --approve all (written, recorded with the content it replaced and the
// permission asked and decided), refused with --approve reads or none
// (nothing written); --no-notes-tools sends no entry.
func TestPromptOffersTheNotesTools(t *testing.T) {
	h := newHarness(t)
	note := filepath.Join(h.ws, "notes", "perf.md")
	if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte(cacheNote), 0o644); err != nil {
		t.Fatal(err)
	}
	edit := mcpStep("edit_note", `{"path":"notes/perf.md","heading":"缓存","content":"## 缓存\n命中率 97%。\n\n"}`)

	r := h.run("prompt", "--json", "--approve", "all", "--cwd", h.ws, "--agent-cmd", h.agentCmd(""),
		acptest.Steps(mcpStep("search_notes", `{"query":"缓存"}`), edit))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := r.text()
	if !strings.Contains(got, "mcp search_notes: notes/perf.md:3: ## «缓存»") {
		t.Errorf("search answer: %q", got)
	}
	if !strings.Contains(got, "mcp edit_note: replaced lines 3-5 of notes/perf.md") {
		t.Errorf("edit answer: %q", got)
	}
	want := "# 性能\n\n## 缓存\n命中率 97%。\n\n## 其他\n别的。\n"
	if b, _ := os.ReadFile(note); string(b) != want {
		t.Fatalf("the note is %q, want %q", b, want)
	}
	var asked, decided int
	for _, p := range r.ofType("permission") {
		switch p["phase"] {
		case "asked":
			asked++
		case "decided":
			decided++
		}
	}
	if asked != 1 || decided != 1 {
		t.Errorf("permission lines: %d asked, %d decided; want the edit's once", asked, decided)
	}
	tr := h.transcriptOf(r)
	before, _ := json.Marshal(cacheNote)
	notePath, _ := json.Marshal(note)
	// The edit's request: mnote's own tool call on the note (no English
	// title: the reader words it from the kind and the file).
	for _, w := range []string{`"kind":"mcp_call"`, `"tool":"search_notes"`, `"tool":"edit_note"`, `"kind":"permission_asked"`,
		`"toolCallId":"mnote-edit-`, `"path":` + string(notePath), `"kind":"file_written"`, `"before":` + string(before), `"name":"MNOTE_MCP_TOKEN","value":"[redacted]"`} {
		if !strings.Contains(tr, w) {
			t.Errorf("the transcript has no %s", w)
		}
	}
	if regexp.MustCompile(`MNOTE_MCP_TOKEN[^}]*[0-9a-f]{64}`).MatchString(tr) {
		t.Error("the transcript holds something like the session token")
	}
	// The index was brought up to date after the edit: a second run
	// finds the new text.
	r = h.run("prompt", "--json", "--cwd", h.ws, "--agent-cmd", h.agentCmd(""), acptest.Steps(mcpStep("search_notes", `{"query":"97%"}`)))
	if !strings.Contains(r.text(), "notes/perf.md:4:") {
		t.Errorf("search after the edit: %q (%s)", r.text(), r.stderr)
	}

	// Refused by policy: nothing written, the agent told.
	for _, policy := range []string{"reads", "none"} {
		r = h.run("prompt", "--json", "--approve", policy, "--cwd", h.ws, "--agent-cmd", h.agentCmd(""),
			acptest.Steps(mcpStep("edit_note", `{"path":"notes/perf.md","startLine":1,"content":"# 改"}`)))
		if !strings.Contains(r.text(), "mcp edit_note error: the user rejected the edit of notes/perf.md") {
			t.Errorf("--approve %s: %q", policy, r.text())
		}
		if b, _ := os.ReadFile(note); string(b) != want {
			t.Fatalf("--approve %s wrote: %q", policy, b)
		}
	}

	// Off: the agent gets no mnote server.
	r = h.run("prompt", "--json", "--no-notes-tools", "--cwd", h.ws, "--agent-cmd", h.agentCmd(""), acptest.Steps(mcpStep("search_notes", `{"query":"缓存"}`)))
	if strings.Contains(r.text(), "notes/perf.md") || !strings.Contains(r.text()+r.stderr, "mnote") {
		t.Errorf("--no-notes-tools: %q %s", r.text(), r.stderr)
	}
	if tr := h.transcriptOf(r); strings.Contains(tr, "MNOTE_MCP_TOKEN") {
		t.Error("--no-notes-tools still sent the notes tools' entry")
	}
}

// transcriptOf reads the transcript of a --json run's session.
func (h *harness) transcriptOf(r run) string {
	h.t.Helper()
	s := r.ofType("session")
	if len(s) == 0 {
		h.t.Fatalf("no session line:\n%s\n%s", r.stdout, r.stderr)
	}
	p, _ := s[0]["transcript"].(string)
	b, err := os.ReadFile(p)
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}
