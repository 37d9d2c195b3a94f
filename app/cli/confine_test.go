package cli_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mnote/acp/acptest"
	"mnote/internal/testenv"
)

// mnote prompt confines the agent's fs/* requests like the app: a FIFO,
// a path outside and a symlink leading out are refused at once (and
// recorded), a write inside lands, with the old content in the transcript.
func TestPromptConfinesFiles(t *testing.T) {
	h := newHarness(t)
	ws, _ := filepath.EvalSymlinks(h.ws)
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe.md"), 0o600); err != nil {
		testenv.SkipOrFail(t, "no FIFOs: "+err.Error())
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

// mnoteAt runs mnote with HOME and the XDG folders under home, the way a
// real user has them (no MNOTE_HOME): config in home/.config/mnote, data in
// home/.local/share/mnote, state in home/.local/state/mnote.
func mnoteAt(t *testing.T, home string, args ...string) run {
	t.Helper()
	c := exec.CommandContext(t.Context(), acptest.Mnote(t), args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MNOTE_HOME=") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") {
			c.Env = append(c.Env, kv)
		}
	}
	c.Env = append(c.Env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	c.Dir = home
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	r := run{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run mnote %v: %v", args, err)
	}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			r.lines = append(r.lines, m)
		}
	}
	return r
}

// With the home folder open (default XDG layout), mnote's own config, data
// and state stay out of the agent's reach: reads and writes of
// secrets.json, config.json and a transcript are refused (and recorded)
// by direct path, through a symbolic link to the file or to the folder,
// through a hard link and with "..", and nothing of them changes or leaks.
func TestPromptDeniesMnoteData(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	agent := acptest.TestAgent(t)
	notes := filepath.Join(home, "notes")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notes, "a.md"), []byte("note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A first session, in the notes folder, leaves a transcript.
	r := mnoteAt(t, home, "prompt", "--json", "--cwd", notes, "--agent-cmd", agent, "hello")
	if r.code != 0 {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	cfgDir := filepath.Join(home, ".config", "mnote")
	dataDir := filepath.Join(home, ".local", "share", "mnote")
	stateDir := filepath.Join(home, ".local", "state", "mnote")
	trs, _ := filepath.Glob(filepath.Join(dataDir, "transcripts", "*.jsonl"))
	if len(trs) != 1 {
		t.Fatalf("transcripts after the first run: %v", trs)
	}
	transcript := trs[0]
	const secret = "sk-do-not-leak-4242"
	secrets := filepath.Join(cfgDir, "secrets.json")
	config := filepath.Join(cfgDir, "config.json")
	stateFile := filepath.Join(stateDir, "state-note.md")
	for p, content := range map[string]string{secrets: `{"agents":{"other":{"API_KEY":"` + secret + `"}}}`, stateFile: secret + "\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(config); err != nil {
		if err := os.WriteFile(config, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(notes, "cfg"):        cfgDir,  // a folder link
		filepath.Join(notes, "data"):       dataDir, // a folder link
		filepath.Join(home, "key.md"):      secrets,
		filepath.Join(notes, "rel-key.md"): "../.config/mnote/secrets.json",
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(secrets, filepath.Join(home, "hard.md")); err != nil {
		t.Fatal(err)
	}
	before := map[string]string{}
	for _, p := range []string{secrets, config, transcript, stateFile} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		before[p] = string(b)
	}

	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	rd := func(p string) string { return `{"readFile":{"path":` + q(p) + `}}` }
	wr := func(p string) string { return `{"writeFile":{"path":` + q(p) + `,"content":"pwned"}}` }
	trRel, _ := filepath.Rel(dataDir, transcript)
	steps := []string{
		rd(secrets), rd(config), rd(transcript), rd(stateFile),
		rd(filepath.Join(notes, "cfg", "secrets.json")),
		rd(filepath.Join(notes, "data", trRel)),
		rd(filepath.Join(home, "key.md")),
		rd(filepath.Join(notes, "rel-key.md")),
		rd(filepath.Join(home, "hard.md")),
		rd(filepath.Join(notes, "..", ".config", "mnote", "secrets.json")),
		wr(config), wr(transcript), wr(secrets),
		wr(filepath.Join(notes, "cfg", "config.json")),
		wr(filepath.Join(notes, "data", trRel)),
		wr(filepath.Join(cfgDir, "new", "new.md")),
		wr(filepath.Join(home, "hard.md")),
		wr(filepath.Join(home, "key.md")),
	}
	refusals := len(steps)
	steps = append(steps, rd(filepath.Join(notes, "a.md")), wr(filepath.Join(notes, "b.md")))
	r = mnoteAt(t, home, "prompt", "--json", "--cwd", home, "--agent-cmd", agent, acptest.Steps(steps...))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, secret) || strings.Contains(r.stdout, "read: {") {
		t.Fatalf("mnote's data reached the agent:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, "read error: -32602 refused") + strings.Count(r.stdout, "write error: -32602 refused"); n != refusals {
		t.Errorf("%d refusals, want %d:\n%s", n, refusals, r.stdout)
	}
	if !strings.Contains(r.stdout, `read: note\n`) || !strings.Contains(r.stdout, "write: ok") {
		t.Errorf("the notes themselves were not served:\n%s", r.stdout)
	}
	for p, want := range before {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s changed: %q", p, b)
		}
	}
	if _, err := os.Stat(filepath.Join(cfgDir, "new")); err == nil {
		t.Error("a folder was created in mnote's config folder")
	}
	id := r.ofType("stop")[0]["sessionId"].(string)
	tr, err := os.ReadFile(filepath.Join(dataDir, "transcripts", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(tr), `"kind":"fs_refused"`); n != refusals {
		t.Errorf("%d fs_refused records, want %d", n, refusals)
	}
}

// A folder workspace confinement refuses (here /proc/self, mnote's own
// /proc entry) is refused before the agent starts, saying what to do;
// there is no weaker fallback that would serve mnote's environment.
func TestPromptRefusesUnconfinableFolder(t *testing.T) {
	h := newHarness(t)
	r := h.run("prompt", "--json", "--cwd", "/proc/self", "--agent-cmd", h.agent,
		acptest.Steps(`{"readFile":{"path":"/proc/self/environ"}}`, `{"readFile":{"path":"/proc/self/cwd/environ"}}`))
	if r.code == 0 || strings.Contains(r.stdout, "read: ") {
		t.Fatalf("exit %d, the agent ran:\n%s", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "kernel file system") || !strings.Contains(r.stderr, "--cwd") {
		t.Errorf("the error does not say why or what to do: %s", r.stderr)
	}
}
