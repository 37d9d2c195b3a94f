package agents_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"mnote/cloudsync/cloudsynctest"
)

// A shared session with a real agent on each side, offline: ada's turn
// runs on her Reasonix, she shares the session with bob as an editor, and
// bob's turn runs on his own Reasonix in his own folder. His agent is
// given the conversation as the members see it — ada's prompt and answer —
// and nothing of her tool calls: not the contents of her note, which her
// agent read and edited. ada sees bob's turn, with his name.
func TestSharedSessionOnRealAgents(t *testing.T) {
	cp := cloudsynctest.New(t)
	ada := newHarness(t, reasonix)
	t.Setenv("MNOTE_E2E_MODEL_BODIES", t.TempDir()) // bob's model log keeps whole requests
	bob := newHarness(t, reasonix)

	const noteCanary = "ADA-NOTE-CANARY-5e21"
	if err := os.WriteFile(filepath.Join(ada.ws, notePath), []byte("# Hello\n"+noteCanary+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(h *harness, stdin string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		c := h.cmd(ctx, args...)
		c.Stdin = strings.NewReader(stdin)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("mnote %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tokens := map[string]string{}
	for h, who := range map[*harness]string{ada: "ada", bob: "bob"} {
		tokens[who] = cp.AddUser(who)
		run(h, tokens[who]+"\n", "sync", "set", "--url", cp.URL, "--token-stdin")
		run(h, "", "sync", "on")
		run(h, "", "devices", "--json")
	}

	r := ada.prompt("", prompt1, "")
	if r.code != 0 {
		t.Fatalf("ada's turn: exit %d\n%s", r.code, r.stderr)
	}
	id, _ := r.session()["sessionId"].(string)
	if !strings.Contains(ada.note(), noteCanary) || !strings.HasSuffix(ada.note(), "hi\n") {
		t.Fatalf("ada's agent did not edit her note: %q", ada.note())
	}
	run(ada, "", "share", id, "--members")
	run(ada, "", "members", id, "add", "bob", "--role", "editor")
	// ada's turns before the share stay hers; one after it is shared.
	if r := ada.prompt(id, prompt2, ""); r.code != 0 {
		t.Fatalf("ada's shared turn: exit %d\n%s", r.code, r.stderr)
	}

	// bob's turn, on his own agent, in his own folder.
	memberArgs := func(h *harness) []string {
		args := []string{"prompt", "--json", "--approve", "all", "--timeout", "2m", "--session", id, "--agent", reasonix.name, "--cwd", h.ws}
		for _, o := range reasonix.options {
			args = append(args, "--option", o)
		}
		return args
	}
	out := run(bob, "", append(memberArgs(bob), prompt1)...)
	if !strings.Contains(out, `"type":"shared"`) || !strings.Contains(out, `"context":"earlier"`) || !strings.Contains(out, "Done: I added a line") {
		t.Fatalf("bob's shared turn:\n%s", out)
	}
	if got := bob.note(); got != "# Hello\nhi\n" {
		t.Fatalf("bob's note is %q: his agent works on his own folder", got)
	}
	if strings.Count(ada.note(), "hi\n") != 2 {
		t.Fatalf("ada's note changed by bob's turn: %q", ada.note())
	}

	// What bob's agent was given: the shared conversation, none of ada's
	// tool calls.
	var sawContext bool
	for _, req := range bob.requests() {
		body := string(req.Body)
		if len(body) == 0 {
			t.Fatal("bob's model log kept no request bodies")
		}
		if strings.Contains(body, noteCanary) {
			t.Errorf("bob's agent was given the contents of ada's note (request %d)", req.N)
		}
		if strings.Contains(body, "again") && strings.Contains(body, "User ada") {
			sawContext = true
		}
	}
	if !sawContext {
		t.Error("bob's agent was not given ada's shared turn as context")
	}

	// ada sees bob's turn with his name.
	show := run(ada, "", "show", id)
	if !strings.Contains(show, "bob") || !strings.Contains(show, answer) {
		t.Fatalf("ada's view of the session lacks bob's turn:\n%s", show)
	}

	// ada's desktop joins her account and continues the session on its
	// own Reasonix: it is given the whole conversation (ada's and bob's
	// turns), still none of the contents of her laptop's note.
	desk := newHarness(t, reasonix)
	code, paired := startPairing(t, ada)
	run(desk, tokens["ada"]+"\nyes\n", "devices", "join", cp.URL, code)
	if err := paired(); err != nil {
		t.Fatal(err)
	}
	out = run(desk, "", append(memberArgs(desk), prompt2)...)
	if !strings.Contains(out, `"context":"earlier"`) || !strings.Contains(out, "Done: I added a line") {
		t.Fatalf("the desktop's shared turn:\n%s", out)
	}
	var deskSaw bool
	for _, req := range desk.requests() {
		body := string(req.Body)
		if strings.Contains(body, noteCanary) {
			t.Errorf("the desktop's agent was given the contents of the laptop's note (request %d)", req.N)
		}
		if strings.Contains(body, "User bob") && strings.Contains(body, "User ada") {
			deskSaw = true
		}
	}
	if !deskSaw {
		t.Error("the desktop's agent was not given ada's and bob's turns")
	}
	// Back on the laptop, the session goes on: every turn is there once,
	// in order, with its actor.
	// Her Reasonix holds the session (it loads it) and is given the turns
	// run elsewhere since her last: bob's and the desktop's.
	r = ada.prompt(id, prompt2, "")
	if r.code != 0 {
		t.Fatalf("ada's turn after the desktop's: exit %d\n%s", r.code, r.stderr)
	}
	if sh := r.ofType("shared"); len(sh) != 1 || sh[0]["context"] != "load" {
		t.Errorf("ada's laptop after the desktop's turn: %v", sh)
	}
	show = run(ada, "", "show", id)
	var turns []string
	for _, l := range strings.Split(show, "\n") {
		if strings.HasPrefix(l, "## ") {
			turns = append(turns, l)
		}
	}
	if got := strings.Join(turns, "|"); got != "## Turn 1 · ada|## Turn 2 · bob|## Turn 3 · ada|## Turn 4 · ada" {
		t.Fatalf("the laptop shows turns %q:\n%s", got, show)
	}
	if n := strings.Count(show, answer); n != 4 {
		t.Fatalf("the laptop shows %d whole answers, want 4:\n%s", n, show)
	}
}

// startPairing runs `mnote devices pair` on h, answering yes to the
// codes' comparison; it returns the pairing code and a wait for the
// command's end.
func startPairing(t *testing.T, h *harness) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	pair := h.cmd(ctx, "devices", "pair")
	pair.Stdin = strings.NewReader("yes\n")
	var stderr bytes.Buffer
	pair.Stderr = &stderr
	stdout, err := pair.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := pair.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var out strings.Builder
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if m := regexp.MustCompile(`devices join \S+ (\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			return m[1], func() error {
				defer cancel()
				for sc.Scan() {
					out.WriteString(sc.Text() + "\n")
				}
				if err := pair.Wait(); err != nil {
					return fmt.Errorf("devices pair: %w\n%s%s", err, out.String(), stderr.String())
				}
				return nil
			}
		}
	}
	cancel()
	t.Fatalf("no pairing code:\n%s%s", out.String(), stderr.String())
	return "", nil
}
