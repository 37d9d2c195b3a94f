package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mnote/acp/acptest"
)

// mnote prompt confines the agent's fs/* requests like the app: a FIFO,
// a path outside and a symlink leading out are refused at once (and
// recorded), a write inside lands, with the old content in the transcript.
func TestPromptConfinesFiles(t *testing.T) {
	h := newHarness(t)
	ws, _ := filepath.EvalSymlinks(h.ws)
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe.md"), 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "note.md"), []byte("old words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	r := h.run("prompt", "--json", "--cwd", ws, "--agent-cmd", h.agent, acptest.Steps(
		`{"readFile":{"path":`+q(filepath.Join(ws, "pipe.md"))+`}}`,
		`{"readFile":{"path":`+q(outside)+`}}`,
		`{"readFile":{"path":`+q(filepath.Join(ws, "link.md"))+`}}`,
		`{"writeFile":{"path":`+q(filepath.Join(ws, "note.md"))+`,"content":"new words\n"}}`,
	))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, "read error"); n != 3 || !strings.Contains(r.stdout, "write: ok") {
		t.Fatalf("%d refusals:\n%s", n, r.stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "note.md")); string(b) != "new words\n" {
		t.Fatalf("note: %q", b)
	}
	id := r.ofType("stop")[0]["sessionId"].(string)
	tr, err := os.ReadFile(filepath.Join(h.home, "data", "transcripts", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(tr), `"kind":"fs_refused"`) != 3 || !strings.Contains(string(tr), `"before":"old words\n"`) {
		t.Fatalf("transcript:\n%s", tr)
	}
}
