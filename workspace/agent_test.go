package workspace_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"mnote/acp"
	"mnote/acp/acptest"
	"mnote/thread"
	"mnote/workspace"
)

// agentText is an acp.SessionHandler keeping the agent's message text.
type agentText struct {
	mu   sync.Mutex
	text strings.Builder
}

func (h *agentText) Line(acp.Dir, string, []byte) {}

func (h *agentText) Update(u *thread.Update, _ []byte) {
	if u.SessionUpdate != thread.KindAgentMessageChunk {
		return
	}
	var b thread.ContentBlock
	if json.Unmarshal(u.Content, &b) == nil {
		h.mu.Lock()
		h.text.WriteString(b.Text + "\n")
		h.mu.Unlock()
	}
}

func (h *agentText) Notification(string, json.RawMessage, []byte) {}
func (h *agentText) Bad(error, []byte)                            {}

func (h *agentText) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.text.String()
}

// TestAgentThroughACP drives the test agent (a real ACP process) against
// the workspace: it reads an open file's unsaved edits, writes a file
// (which lands in the open buffer, the OnWrite hook and the turn's
// checkpoint), and is refused a path outside (reported to OnRefused).
func TestAgentThroughACP(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "note.md"), "on disk\n")
	write(t, filepath.Join(dir, "out.md"), "before\n")
	w, dir := openDir(t, dir, workspace.Options{StateDir: t.TempDir()})
	bs := w.Buffers()
	bs.Open("note.md")
	bs.Update("note.md", "unsaved 1\nunsaved 2\n", true)
	bs.Open("out.md")

	var mu sync.Mutex
	var writes, refusals []string
	fsys := w.AgentFS(workspace.Hooks{
		OnWrite: func(rel string, before, after []byte, existed bool) {
			mu.Lock()
			defer mu.Unlock()
			writes = append(writes, rel+": "+string(before)+"→"+string(after))
		},
		OnRefused: func(p, reason string) {
			mu.Lock()
			defer mu.Unlock()
			refusals = append(refusals, p)
		},
	})
	a, err := acp.Start(t.Context(), acp.ProcSpec{Path: acptest.TestAgent(t), Dir: dir}, acp.Options{})
	must(t, err)
	t.Cleanup(a.Stop)
	h := &agentText{}
	s, err := a.NewSession(t.Context(), acp.SessionConfig{Cwd: dir, Handler: h, FS: fsys})
	must(t, err)

	cps := w.Checkpoints()
	must(t, cps.BeginTurn("turn-acp"))
	steps := acptest.Steps(
		`{"readFile":{"path":`+quote(filepath.Join(dir, "note.md"))+`,"line":2,"limit":1}}`,
		`{"writeFile":{"path":`+quote(filepath.Join(dir, "out.md"))+`,"content":"after\n"}}`,
		`{"readFile":{"path":"/etc/passwd"}}`,
		`{"writeFile":{"path":`+quote(filepath.Join(dir, "..", "escape.md"))+`,"content":"x"}}`,
	)
	if _, err := s.Prompt(t.Context(), []thread.ContentBlock{{Type: "text", Text: steps}}); err != nil {
		t.Fatalf("prompt: %v", err)
	}
	cp, err := cps.EndTurn("turn-acp")
	must(t, err)

	got := h.String()
	for _, want := range []string{"read: unsaved 2\n", "write: ok", "read error: -32602 refused", "outside the workspace", "write error: -32602 refused"} {
		if !strings.Contains(got, want) {
			t.Errorf("agent saw %q; want %q in it", got, want)
		}
	}
	if st, _ := bs.Get("out.md"); st.Content != "after\n" || st.Dirty {
		t.Errorf("open buffer after the agent's write = %+v", st)
	}
	if read(t, filepath.Join(dir, "out.md")) != "after\n" {
		t.Error("file not written")
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(writes, []string{"out.md: before\n→after\n"}) {
		t.Errorf("OnWrite = %q", writes)
	}
	if len(refusals) != 2 || refusals[0] != "/etc/passwd" {
		t.Errorf("OnRefused = %q", refusals)
	}
	if got := paths(cp.Files); !slices.Equal(got, []string{"changed out.md"}) {
		t.Errorf("checkpoint = %q", got)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
