package cli_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/internal/testenv"
)

const cliAsk = `{"elicit":{"message":"Pick a size","requestedSchema":{"type":"object","properties":{` +
	`"name":{"type":"string","title":"Name"},` +
	`"count":{"type":"integer","minimum":1,"maximum":5},` +
	`"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]}},` +
	`"required":["name","count"]}}}`

// Without a terminal to ask on, a question is declined and stderr says so.
func TestPromptDeclinesQuestionsWithoutTerminal(t *testing.T) {
	h := newHarness(t)
	r := h.run("prompt", "--json", "--agent-cmd", h.agentCmd(""), acptest.Steps(cliAsk))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.text() != "elicit: decline" {
		t.Fatalf("agent said %q", r.text())
	}
	if !strings.Contains(r.stderr, `asked a question ("Pick a size"); declined (no terminal to ask on)`) {
		t.Fatalf("stderr %q", r.stderr)
	}
}

// On a terminal the fields are asked one by one; a value outside the
// schema is asked again, never sent.
func TestPromptAsksQuestionsOnTerminal(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		testenv.SkipOrFail(t, "script (util-linux) not installed")
	}
	h := newHarness(t)
	c := exec.CommandContext(t.Context(), scriptBin, "-q", "-e", "-c", h.bin+" prompt --agent-cmd "+h.agent+" '"+acptest.Steps(cliAsk)+"'", "/dev/null")
	c.Env = append(os.Environ(), "MNOTE_HOME="+h.home)
	stdin, _ := c.StdinPipe()
	var out syncBuffer
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if !wait(t, 20*time.Second, func() bool { return strings.Contains(out.String(), "Answer it?") }) {
		c.Process.Kill()
		t.Fatalf("no question on the terminal: %q", out.String())
	}
	stdin.Write([]byte("y\nAnn\n9\n3\n2\n"))
	if err := c.Wait(); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	for _, want := range []string{"The agent asks: Pick a size", "not accepted (max)", "2) Green", `elicit: accept {"color":"g","count":3,"name":"Ann"}`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in %q", want, out.String())
		}
	}
}
