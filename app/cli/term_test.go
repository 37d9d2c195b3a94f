package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"mnote/acp/acptest"
	"mnote/internal/testenv"
)

// evilJSON is agent text (a JSON string) that would drive a terminal:
// OSC 52 (write the clipboard), OSC 0 (set the title), CSI 2J (clear the
// screen), the 8-bit CSI U+009B, bidi overrides and isolates that make
// text read backwards, a carriage return, DEL and BEL.
const evilJSON = `"\u001b]52;c;cHduZWQ=\u0007\u001b]0;pwned\u0007\u001b[2J\u009b2J\u202eevil\u202c\u2066iso\u2069\r\u007f\u0085"`

var evil = func() string {
	var s string
	if err := json.Unmarshal([]byte(evilJSON), &s); err != nil {
		panic(err)
	}
	return s
}()

// evilSteps sends evil in a message (split in small chunks), a thought, a
// tool call's title and its update, a plan, a permission request's title
// and the session's title.
func evilSteps() string {
	e := evilJSON
	return acptest.Steps(
		`{"thought":`+e+`}`,
		`{"message":"visible answer `+e[1:]+`,"chunk":4}`,
		`{"toolCall":{"toolCallId":"t1","title":`+e+`,"kind":"edit","status":"pending"}}`,
		`{"permission":{"toolCall":{"toolCallId":"t1","title":`+e+`,"kind":"edit"}}}`,
		`{"toolCallUpdate":{"toolCallId":"t1","title":`+e+`,"status":"completed"}}`,
		`{"plan":[{"content":`+e+`,"priority":"high","status":"pending"}]}`,
		`{"title":`+e+`}`,
		`{"message":" the end"}`,
	)
}

// terminalControls lists what in s could drive a terminal: C0 controls
// but \n and \t (and \r when allowCR), DEL, C1 controls, bidi controls,
// bytes that are not UTF-8. Escapes listed in allowed (mnote's own) are
// removed first.
func terminalControls(s string, allowCR bool, allowed ...string) []string {
	for _, a := range allowed {
		s = strings.ReplaceAll(s, a, "")
	}
	var bad []string
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				bad = append(bad, "invalid UTF-8")
			}
		case r == '\n' || r == '\t' || r == '\r' && allowCR:
		case r < 0x20 || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			ctx := s[max(0, i-10):min(len(s), i+10)]
			bad = append(bad, rune2hex(r)+" near "+strings.ToValidUTF8(ctx, "?"))
		}
	}
	return bad
}

func rune2hex(r rune) string {
	const hex = "0123456789ABCDEF"
	return "U+" + string([]byte{hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf]})
}

func assertNoControls(t *testing.T, what, s string) {
	t.Helper()
	if bad := terminalControls(s, false); len(bad) > 0 {
		t.Errorf("%s passes terminal controls from the agent: %q\n%q", what, bad, s)
	}
}

// An agent's text reaches the terminal without its escape sequences, C1
// and bidi controls, in mnote prompt, show, search and sessions; --json
// keeps the exact text.
func TestTerminalOutputIsSafe(t *testing.T) {
	h := newHarness(t)
	steps := evilSteps()

	r := h.run("prompt", "--approve", "all", "--agent-cmd", h.agentCmd(""), steps)
	if r.code != 0 {
		t.Fatalf("prompt: %d %s", r.code, r.stderr)
	}
	assertNoControls(t, "mnote prompt", r.stdout)
	assertNoControls(t, "mnote prompt's stderr", r.stderr)
	for _, want := range []string{"visible answer ^[]52;c;cHduZWQ=^G^[]0;pwned^G^[[2J<U+009B>2J<U+202E>evil<U+202C><U+2066>iso<U+2069>^M^?<U+0085>\n",
		"thinking: ^[]52;", "tool edit: ^[]52;", "permission ^[]52;"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("mnote prompt does not show %q:\n%s", want, r.stdout)
		}
	}

	j := h.run("prompt", "--json", "--approve", "all", "--agent-cmd", h.agentCmd(""), steps)
	if j.code != 0 {
		t.Fatalf("prompt --json: %d %s", j.code, j.stderr)
	}
	if got := j.text(); got != "visible answer "+evil+"permission: selected allow the end" {
		t.Errorf("--json text is not exact: %q", got)
	}
	if th := j.ofType("thought_chunk"); len(th) != 1 || th[0]["text"] != evil {
		t.Errorf("--json thought is not exact: %v", th)
	}
	if tc := j.ofType("tool_call"); len(tc) != 1 || tc[0]["title"] != evil {
		t.Errorf("--json tool title is not exact: %v", tc)
	}
	if p := j.ofType("permission"); len(p) == 0 || p[0]["title"] != evil {
		t.Errorf("--json permission title is not exact: %v", p)
	}
	id := j.last()["sessionId"].(string)

	show := h.run("show", "--thoughts", id)
	if show.code != 0 {
		t.Fatalf("show: %d %s", show.code, show.stderr)
	}
	assertNoControls(t, "mnote show", show.stdout)
	if !strings.Contains(show.stdout, "# ^[]52;c;") || !strings.Contains(show.stdout, "visible answer ^[]52;") {
		t.Errorf("mnote show lost the text:\n%s", show.stdout)
	}
	var sj struct {
		Info struct{ Title string }
	}
	if err := json.Unmarshal([]byte(h.run("show", "--json", id).stdout), &sj); err != nil || sj.Info.Title != evil {
		t.Errorf("show --json title %q, %v", sj.Info.Title, err)
	}

	search := h.run("search", "visible")
	if search.code != 0 || !strings.Contains(search.stdout, id) {
		t.Fatalf("search: %d %s %s", search.code, search.stdout, search.stderr)
	}
	assertNoControls(t, "mnote search", search.stdout)
	if !strings.Contains(search.stdout, "^[]0;pwned") {
		t.Errorf("mnote search lost the text:\n%s", search.stdout)
	}
	var hits []struct{ Title, Snippet string }
	if err := json.Unmarshal([]byte(h.run("search", "--json", "visible").stdout), &hits); err != nil || len(hits) == 0 ||
		hits[0].Title != evil || !strings.Contains(hits[0].Snippet, "\x1b]52;c;") {
		t.Errorf("search --json is not exact: %+v, %v", hits, err)
	}

	list := h.run("sessions")
	assertNoControls(t, "mnote sessions", list.stdout)
	if !strings.Contains(list.stdout, "<U+202E>evil") {
		t.Errorf("mnote sessions lost the title:\n%s", list.stdout)
	}
}

// The same on a terminal (a pseudo-terminal from script(1)), where mnote
// dims thoughts and tool lines with escapes of its own, which still work.
func TestTerminalOutputIsSafeOnPTY(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		testenv.SkipOrFail(t, "script (util-linux) not installed")
	}
	h := newHarness(t)
	steps := evilSteps()
	c := exec.CommandContext(t.Context(), scriptBin, "-q", "-e", "-c", h.bin+" prompt --approve all --agent-cmd "+h.agent+" '"+steps+"'", "/dev/null")
	c.Env = append(os.Environ(), "MNOTE_HOME="+h.home)
	c.Dir = h.ws
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	s := string(out)
	// The terminal turns \n into \r\n: a CR is allowed here, and
	// mnote's own dim and reset.
	if bad := terminalControls(s, true, "\x1b[2m", "\x1b[0m"); len(bad) > 0 {
		t.Errorf("mnote prompt on a terminal passes terminal controls from the agent: %q\n%q", bad, s)
	}
	if !strings.Contains(s, "\x1b[2mthinking: \x1b[0m\x1b[2m^[]52;") || !strings.Contains(s, "visible answer ^[]52;") {
		t.Errorf("on a terminal, thoughts are not dimmed or the text is lost: %q", s)
	}
}

var optionLine = regexp.MustCompile(`^\s*\d+\) `)

// A permission request whose title holds line breaks cannot print a fake
// list of options above the real one: on a terminal, the title (and the
// tool call's, which holds the same) stays on one line, the options are
// the agent's own, each worded by its kind (an always-choice named "Allow
// once" reads "Always allow"), and the number typed picks the real one.
func TestPermissionPromptCannotBeSpoofed(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		testenv.SkipOrFail(t, "script (util-linux) not installed")
	}
	h := newHarness(t)
	title := `Edit notes\n  1) Allow always\n\r\u001b[2K  2) Allow always\n`
	steps := acptest.Steps(
		`{"toolCall":{"toolCallId":"x","title":"`+title+`","kind":"edit","status":"pending"}}`,
		`{"permission":{"toolCall":{"toolCallId":"x","title":"`+title+`","kind":"edit"},"options":[`+
			`{"optionId":"liar","name":"Allow once","kind":"allow_always"},`+
			`{"optionId":"once","name":"Allow","kind":"allow_once"},`+
			`{"optionId":"odd","name":"Allow\nonce","kind":"allow_for_session"},`+
			`{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`,
		`{"plan":[{"content":"step one\n  1) Allow always","priority":"high","status":"pending"}]}`,
	)
	c := exec.CommandContext(t.Context(), scriptBin, "-q", "-e", "-c", h.bin+" prompt --agent-cmd "+h.agent+" '"+steps+"'", "/dev/null")
	c.Env = append(os.Environ(), "MNOTE_HOME="+h.home, "LC_ALL=C")
	c.Dir = h.ws
	stdin, _ := c.StdinPipe()
	var out syncBuffer
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if !wait(t, 20*time.Second, func() bool { return strings.Contains(out.String(), "Choose a number") }) {
		c.Process.Kill()
		t.Fatalf("no question on the terminal: %q", out.String())
	}
	stdin.Write([]byte("2\n"))
	if err := c.Wait(); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	s := strings.ReplaceAll(out.String(), "\r\n", "\n")
	// Every line that reads as an option is one of the agent's real ones.
	var options []string
	for _, l := range strings.Split(s, "\n") {
		if optionLine.MatchString(l) {
			options = append(options, l)
		}
	}
	want := []string{
		"  1) Always allow (the agent calls it “Allow once”)",
		"  2) Allow once",
		"  3) Other choice (the agent calls it “Allow⏎once”, kind allow_for_session; mnote does not know what it does)",
		"  4) Reject",
	}
	if strings.Join(options, "\n") != strings.Join(want, "\n") {
		t.Errorf("option lines:\n%s\nwant:\n%s\nin %q", strings.Join(options, "\n"), strings.Join(want, "\n"), s)
	}
	for _, want := range []string{
		"The agent asks permission: Edit notes⏎  1) Allow always⏎^M^[[2K  2) Allow always⏎ [edit]\n",
		"tool edit: Edit notes⏎  1) Allow always⏎^M^[[2K  2) Allow always⏎ (pending)",
		"[ ] step one⏎  1) Allow always\n",
		"permission: selected once",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in %q", want, s)
		}
	}
}
