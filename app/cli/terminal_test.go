package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"mnote/acp/acptest"
)

const colourSteps = `{"terminal":{"command":"printf","args":["\\033[31mred\\033[0m plain\\n"],"toolCallId":"run-1"}}`

// mnote prompt runs an agent's terminals too: text mode shows the command,
// its output without escape sequences and its exit, as plain lines.
func TestPromptTerminalText(t *testing.T) {
	h := newHarness(t)
	c := h.cmd("prompt", "--agent-cmd", h.agent, acptest.Steps(colourSteps, `{"terminalWait":"t"}`, `{"terminalRelease":"t"}`))
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	s := string(out)
	for _, want := range []string{"terminal: $ printf", "red plain\n", "terminal exit 0"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in %q", want, s)
		}
	}
	if strings.Contains(s, "\x1b[") || strings.Contains(s, "^[") || strings.Contains(s, "\r") {
		t.Errorf("escape sequences reach the text output: %q", s)
	}
}

// --json keeps the exact output (escapes included) and the exit; show
// --json has the terminal from the transcript.
func TestPromptTerminalJSONAndShow(t *testing.T) {
	h := newHarness(t)
	r := h.run("prompt", "--json", "--agent-cmd", h.agentCmd(""), acptest.Steps(colourSteps, `{"terminalWait":"t"}`,
		`{"terminal":{"name":"k","command":"sleep","args":["100"]}}`, `{"terminalKill":"k"}`, `{"terminalRelease":"k"}`, `{"terminalRelease":"t"}`))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var data strings.Builder
	for _, l := range r.ofType("terminal_output") {
		data.WriteString(l["data"].(string))
	}
	if data.String() != "\x1b[31mred\x1b[0m plain\r\n" {
		t.Fatalf("terminal output %q", data.String())
	}
	var exit0, killed bool
	for _, l := range r.ofType("terminal") {
		if l["exitCode"] == float64(0) {
			exit0 = true
		}
		if l["signal"] == "SIGKILL" {
			killed = true
		}
	}
	if !exit0 || !killed {
		t.Fatalf("terminal lines %v", r.ofType("terminal"))
	}
	id := r.last()["sessionId"].(string)
	var show struct {
		Thread struct {
			Terminals []struct {
				Command  string `json:"command"`
				Output   string `json:"output"`
				Released bool   `json:"released"`
			} `json:"terminals"`
		} `json:"thread"`
	}
	if err := json.Unmarshal([]byte(h.run("show", "--json", id).stdout), &show); err != nil {
		t.Fatal(err)
	}
	if ts := show.Thread.Terminals; len(ts) != 2 || ts[0].Output != "\x1b[31mred\x1b[0m plain\r\n" || !ts[0].Released || ts[1].Command != "sleep" {
		t.Fatalf("show --json terminals %+v", show.Thread.Terminals)
	}
}
