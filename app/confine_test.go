package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mnote's own folders inside the open notes folder (as in a home folder
// with the XDG defaults) are out of the agent's reach: its config and its
// own transcript cannot be read or written, and the refusals are
// recorded; a session cannot be started inside them (nor in /proc/self).
func TestAgentCannotReachOwnData(t *testing.T) {
	t.Parallel()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, paths: pathsUnder(filepath.Join(ws, ".mnote")), ws: ws, state: t.TempDir()}
	if err := h.paths.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "note.md"), []byte("note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.saveAgent("test", "--state", h.state)
	config, err := os.ReadFile(h.paths.ConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	// A session cannot work inside them, or in a kernel file system.
	for _, cwd := range []string{h.paths.DataDir, "/proc/self"} {
		if e := h.call("sessions.create", map[string]any{"agent": "test", "cwd": cwd}, nil); e == nil || e.Code != "bad_request" {
			t.Errorf("sessions.create in %s: %+v, want bad_request", cwd, e)
		}
	}
	sum := h.create("test")
	tr := h.paths.TranscriptPath(sum.ID)
	h.turnDone(sum.ID,
		`{"readFile":{"path":`+q(h.paths.ConfigFile)+`}}`,
		`{"readFile":{"path":`+q(tr)+`}}`,
		`{"writeFile":{"path":`+q(h.paths.ConfigFile)+`,"content":"{}"}}`,
		`{"writeFile":{"path":`+q(filepath.Join(h.paths.Transcripts, "x.jsonl"))+`,"content":"{}"}}`,
		`{"readFile":{"path":`+q(filepath.Join(ws, "note.md"))+`}}`,
	)
	got := strings.Join(h.answers(sum.ID), "\n")
	if n := strings.Count(got, "error: -32602 refused"); n != 4 || !strings.Contains(got, "mnote's own data") || !strings.Contains(got, "read: note\n") {
		t.Fatalf("the agent saw %q", got)
	}
	if b, _ := os.ReadFile(h.paths.ConfigFile); string(b) != string(config) {
		t.Errorf("config.json changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(h.paths.Transcripts, "x.jsonl")); err == nil {
		t.Error("a file was written among the transcripts")
	}
	b, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"kind":"fs_refused"`); n != 4 {
		t.Errorf("%d fs_refused records, want 4", n)
	}
}
