package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"mnote/acp/acptest"
)

// runIn runs mnote with stdin.
func (h *harness) runIn(stdin string, args ...string) run {
	h.t.Helper()
	c := h.cmd(args...)
	c.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	r := run{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("run mnote %v: %v", args, err)
	}
	return r
}

// Secrets of the session used by the export tests.
const (
	agentKeyValue = "custom-agent-secret-value-771"
	openAIKey     = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0f"
	syncToken     = "mnote_exportTestToken-Zq81xW"
)

// secretSession records a session whose answer, thought, tool call and
// plan hold an API key, the value of an agent's configured env var, the
// sync token and paths in the workspace; it returns the session id.
func secretSession(t *testing.T, h *harness) string {
	t.Helper()
	cfg := `{"agent_servers":{"helper":{"command":"/bin/true","env":{"HELPER_KEY":"` + agentKeyValue + `"}}}}`
	if err := os.WriteFile(filepath.Join(h.home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := h.runIn(syncToken+"\n", "sync", "set", "--no-check", "--url", "http://127.0.0.1:9", "--token-stdin"); r.code != 0 {
		t.Fatalf("sync set: %d %s", r.code, r.stderr)
	}
	ws := h.ws
	// The marks are written \u002d in the prompt (which is the steps'
	// JSON and is shown as the user's message), "-" once the agent sends them.
	steps := strings.NewReplacer("-MARK", `\u002dMARK`, "WS", ws, "KEY", openAIKey, "AGENTKEY", agentKeyValue, "TOKEN", syncToken).Replace(acptest.Steps(
		`{"thought":"THOUGHT-MARK the key is KEY"}`,
		`{"message":"Use KEY with AGENTKEY and TOKEN; the note is WS/notes/plan.md."}`,
		`{"toolCall":{"toolCallId":"t1","title":"Edit WS/notes/plan.md","kind":"edit","status":"completed","locations":[{"path":"WS/notes/plan.md","line":2}],`+
			`"rawInput":{"path":"WS/notes/plan.md","apiKey":"KEY","marker":"RAWIN-MARK"},"rawOutput":{"marker":"RAWOUT-MARK"},`+
			`"content":[{"type":"diff","path":"WS/notes/plan.md","oldText":"old\n","newText":"DIFF-MARK TOKEN\n"}]}}`,
		`{"plan":[{"content":"rotate KEY","priority":"high","status":"pending"}]}`,
	))
	r := h.run("prompt", "--json", "--agent-cmd", h.agent, steps)
	if r.code != 0 {
		t.Fatalf("prompt: %d %s", r.code, r.stderr)
	}
	return r.last()["sessionId"].(string)
}

var secretValues = []string{openAIKey, agentKeyValue, syncToken}

func TestExportRedactsByDefault(t *testing.T) {
	h := newHarness(t)
	id := secretSession(t, h)
	for _, format := range []string{"md", "html"} {
		r := h.run("export", "--format", format, id)
		if r.code != 0 {
			t.Fatalf("export %s: %d %s", format, r.code, r.stderr)
		}
		for _, s := range append(secretValues, h.ws, "THOUGHT-MARK", "RAWIN-MARK", "RAWOUT-MARK", "DIFF-MARK") {
			if strings.Contains(r.stdout, s) {
				t.Errorf("%s export holds %q", format, s)
			}
		}
		for _, want := range []string{"[redacted]", "notes/plan.md"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s export lacks %q", format, want)
			}
		}
	}
	// Everything asked for, still redacted.
	r := h.run("export", "--format", "md", "--include-thoughts", "--include-tool-io", id)
	for _, want := range []string{"THOUGHT-MARK", "RAWIN-MARK", "RAWOUT-MARK", "DIFF-MARK"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("md with thoughts and tool I/O lacks %s", want)
		}
	}
	for _, s := range append(secretValues, h.ws) {
		if strings.Contains(r.stdout, s) {
			t.Errorf("md with everything holds %q", s)
		}
	}
	// The old flag names do the same.
	if old := h.run("export", "--format", "md", "--thoughts", "--tool-io", id); old.stdout != r.stdout {
		t.Errorf("--thoughts --tool-io differ from --include-thoughts --include-tool-io")
	}
	// --redact=false shows it as recorded.
	raw := h.run("export", "--format", "md", "--redact=false", id)
	if !strings.Contains(raw.stdout, openAIKey) || !strings.Contains(raw.stdout, h.ws+"/notes/plan.md") {
		t.Errorf("--redact=false hid something:\n%s", raw.stdout)
	}
}

// The HTML export is one page that references nothing outside itself.
func TestExportHTMLLoadsNothing(t *testing.T) {
	h := newHarness(t)
	r := h.run("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(
		`{"message":"see ![x](https://evil.example/p.png) and [l](https://evil.example) <img src=https://evil.example/i> <script>alert(1)</script>"}`))
	id := r.last()["sessionId"].(string)
	out := h.run("export", "--format", "html", "--include-tool-io", "--include-thoughts", id)
	doc, err := html.Parse(strings.NewReader(out.stdout))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "script" || n.Data == "img" || n.Data == "link" || n.Data == "iframe" {
				t.Errorf("<%s> in the page", n.Data)
			}
			for _, a := range n.Attr {
				if a.Key == "src" || a.Key == "href" || strings.HasPrefix(a.Key, "on") {
					t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if !strings.Contains(out.stdout, "Content-Security-Policy") || !strings.Contains(out.stdout, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Fatalf("page:\n%s", out.stdout)
	}
}

// jsonl is the raw transcript unless --redact; redacted, each line is
// still one JSON record.
func TestExportJSONL(t *testing.T) {
	h := newHarness(t)
	id := secretSession(t, h)
	transcript, err := os.ReadFile(filepath.Join(h.home, "data", "transcripts", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if r := h.run("export", "--format", "jsonl", id); r.stdout != string(transcript) {
		t.Fatal("the raw jsonl export differs from the transcript")
	}
	r := h.run("export", "--format", "jsonl", "--redact", id)
	if r.code != 0 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	in, out := strings.Split(string(transcript), "\n"), strings.Split(r.stdout, "\n")
	if len(in) != len(out) {
		t.Fatalf("%d lines in, %d out", len(in), len(out))
	}
	for i, l := range out[:len(out)-1] {
		var rec struct {
			Seq  int64  `json:"seq"`
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Seq != int64(i+1) {
			t.Fatalf("line %d: %v %s", i+1, err, l)
		}
	}
	for _, s := range append(secretValues, h.ws) {
		if strings.Contains(r.stdout, s) {
			t.Errorf("redacted jsonl holds %q", s)
		}
	}
}

func TestExportToFileAndErrors(t *testing.T) {
	h := newHarness(t)
	r := h.run("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(`{"message":"to a file"}`))
	id := r.last()["sessionId"].(string)
	path := filepath.Join(t.TempDir(), "out.md")
	if r := h.run("export", "-o", path, id); r.code != 0 || r.stdout != "" {
		t.Fatalf("export -o: %d %q %s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if err != nil || !strings.Contains(string(b), "to a file") || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file: %v %v %q", err, fi.Mode(), b)
	}
	if stdout := h.run("export", id).stdout; stdout != string(b) {
		t.Fatal("the file differs from stdout")
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", "--format", "pdf", id}, 2, "--format must be md, html or jsonl"},
		{[]string{"export", "nosuchsession"}, 2, "no session"},
		{[]string{"export"}, 2, "usage"},
		{[]string{"export", "-o", filepath.Join(t.TempDir(), "missing", "x.md"), id}, 3, "no such file"},
	} {
		r := h.run(tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: %d %q", tc.args, r.code, r.stderr)
		}
	}
	// A failed export leaves an existing file alone.
	if r := h.run("export", "--format", "pdf", "-o", path, id); r.code == 0 {
		t.Fatal("bad format accepted")
	}
	if b2, _ := os.ReadFile(path); !bytes.Equal(b, b2) {
		t.Fatal("the file changed")
	}
}
