package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"mnote/acp/acptest"
	"mnote/cloudsync/cloudsynctest"
	"mnote/controlplane/pgtest"
)

// A shared session end to end with three mnote homes — ada's laptop,
// bob's machine and ada's desktop — against a real control plane on
// loopback, each turn on the member's own test agent.
func TestSharedSessionCommands(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		cp := cloudsynctest.New(t)
		sharedSessionCommands(t, []*cloudsynctest.Server{cp}, filepath.Dir(strings.TrimPrefix(cp.DB, "sqlite:")))
	})
	t.Run("postgres", func(t *testing.T) {
		pg := pgtest.StartForTest(t)
		db, err := pg.CreateDB(t.Context(), "shared_cli")
		if err != nil {
			t.Fatal(err)
		}
		// Its data folder: tables, write-ahead log, server log. Three
		// servers on the one database: ada, bob and ada's second machine
		// each reach another, as behind a load balancer.
		cps := []*cloudsynctest.Server{cloudsynctest.NewOn(t, db), cloudsynctest.NewOn(t, db), cloudsynctest.NewOn(t, db)}
		sharedSessionCommands(t, cps, pg.Dir)
	})
}

// sharedSessionCommands runs the test on the control plane servers cps
// (one database, whose files are under dbDir): ada uses the first, bob
// the second, ada's second machine the third (the first again when fewer).
func sharedSessionCommands(t *testing.T, cps []*cloudsynctest.Server, dbDir string) {
	srv := func(i int) *cloudsynctest.Server { return cps[i%len(cps)] }
	tokA, tokB := cps[0].AddUser("ada"), cps[0].AddUser("bob")
	ada, bob, desk := newHarness(t), newHarness(t), newHarness(t)
	for _, h := range []*harness{ada, bob, desk} {
		h.env = append(os.Environ(), "MNOTE_HOME="+h.home, "LANG=C", "LC_ALL=", "LC_MESSAGES=")
	}
	expect := func(r run, code int, want ...string) run {
		t.Helper()
		for _, w := range want {
			if r.code != code || !strings.Contains(r.stdout+r.stderr, w) {
				t.Fatalf("exit %d (want %d), want %q in:\n%s%s", r.code, code, w, r.stdout, r.stderr)
			}
		}
		return r
	}
	for h, at := range map[*harness]struct {
		tok string
		cp  *cloudsynctest.Server
	}{ada: {tokA, srv(0)}, bob: {tokB, srv(1)}} {
		expect(h.runIn(at.tok+"\n", "sync", "set", "--url", at.cp.URL, "--token-stdin"), 0, "Signed in")
		expect(h.run("sync", "on"), 0, "Sync is on")
		expect(h.run("devices", "--json"), 0, `"this": true`)
	}
	const (
		promptCanary = "CANARYPROMPT5f1e"
		answerCanary = "CANARYANSWER77ab"
		noteCanary   = "CANARYNOTE9c3d"
		inputCanary  = "CANARYINPUT0b1b"
		outputCanary = "CANARYOUTPUT4e4e"
	)
	note := filepath.Join(ada.ws, "缓存设计.md")
	if err := os.WriteFile(note, []byte("# 缓存\n"+noteCanary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// ada's session, private at first.
	r := expect(ada.run("prompt", "--json", "--agent-cmd", ada.agentCmd(""), "a private start"), 0)
	id := r.last()["sessionId"].(string)
	expect(ada.run("share", id), 2, "--members")
	expect(ada.run("share", id, "--members"), 0, "is shared")
	expect(ada.run("members", id, "add", "bob", "--role", "editor"), 0, "bob is now in session ")
	expect(ada.run("members", id), 0, "ada", "owner", "bob", "editor")
	expect(ada.run("devices"), 0, "(this device)")

	// ada's first shared turn: a tool call whose input and output stay
	// with her, a note read by her agent.
	steps := acptest.Steps(
		`{"toolCall":{"toolCallId":"t1","title":"Read `+note+`","kind":"read","status":"pending","rawInput":{"path":"`+note+`","q":"`+inputCanary+`"}}}`,
		`{"readFile":{"path":"`+note+`"}}`,
		`{"toolCallUpdate":{"toolCallId":"t1","status":"completed","rawOutput":{"out":"`+outputCanary+`"}}}`,
		`{"message":"ada found `+answerCanary+`"}`,
	)
	r = expect(ada.run("prompt", "--json", "--session", id, "--agent-cmd", ada.agentCmd(`{"turns":[`+steps+`]}`), "look into it "+promptCanary), 0)
	if len(r.ofType("shared")) != 1 {
		t.Fatalf("no shared line:\n%s", r.stdout)
	}

	// bob sees the session with his role, runs a turn on his own agent:
	// it gets the earlier turns of the projection, none of ada's tool
	// input or output.
	expect(bob.run("sessions"), 0, id, "editor")
	r = expect(bob.run("prompt", "--json", "--session", id, "--agent-cmd", bob.agentCmd(""), "what did ada find?"), 0)
	if sh := r.ofType("shared"); len(sh) != 1 || sh[0]["context"] != "earlier" {
		t.Fatalf("bob's shared line: %v", sh)
	}
	given := r.text() // the test agent echoes what it was given
	for _, want := range []string{"what did ada find?", "User ada (turn 1):", "look into it " + promptCanary, answerCanary} {
		if !strings.Contains(given, want) {
			t.Errorf("bob's agent was not given %q:\n%s", want, given)
		}
	}
	for _, never := range []string{inputCanary, outputCanary, "Read ", ada.ws} {
		if strings.Contains(given, never) {
			t.Errorf("bob's agent was given ada's private %q:\n%s", never, given)
		}
	}
	// What bob sees of ada's tool call: its title, without her folder's
	// path (what leaves her machine is redacted as a share is).
	if show := expect(bob.run("show", id), 0, "缓存设计.md"); strings.Contains(show.stdout, ada.ws) || strings.Contains(show.stdout, filepath.Base(ada.ws)+"/") {
		t.Errorf("bob sees ada's local path:\n%s", show.stdout)
	}
	// ada sees bob's turn with its actor.
	shown := expect(ada.run("show", id), 0, "## Turn 1 · ada", "## Turn 2 · bob", "what did ada find?")
	if strings.Contains(shown.stdout, inputCanary) {
		t.Errorf("show carries a tool input:\n%s", shown.stdout)
	}
	// Showing again records nothing twice.
	before := transcriptCount(t, ada, id)
	expect(ada.run("show", id), 0)
	if after := transcriptCount(t, ada, id); after != before {
		t.Fatalf("shared entries recorded twice: %d then %d", before, after)
	}

	// Without the control plane a member's turn fails visibly and nothing
	// reaches the agent (invariant 9).
	srv(1).Inject(cloudsynctest.Fault{Method: "POST", PathPrefix: "/v1/sessions/" + id + "/lease", Status: 503})
	expect(bob.run("prompt", "--session", id, "--agent-cmd", bob.agentCmd(""), "while it was down"), 3, "The turn did not run", "Your prompt is kept")
	if b, _ := os.ReadFile(filepath.Join(bob.home, "data", "transcripts", id+".jsonl")); bytes.Contains(b, []byte("while it was down")) {
		t.Fatal("a turn ran unshared")
	}

	// A viewer's prompt is refused, by the server too.
	expect(ada.run("members", id, "add", "bob", "--role", "viewer"), 0)
	refused := expect(bob.run("prompt", "--session", id, "--agent-cmd", bob.agentCmd(""), "may I?"), 3, "does not let you run turns")
	t.Logf("a viewer's prompt:\n%s", refused.stderr)

	// ada's desktop pairs: both show the same 12 digits.
	pair := ada.cmd("devices", "pair")
	pair.Stdin = strings.NewReader("yes\n")
	var pairErr bytes.Buffer
	pair.Stderr = &pairErr
	stdout, err := pair.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := pair.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var code string
	var pairOut strings.Builder
	for sc.Scan() {
		pairOut.WriteString(sc.Text() + "\n")
		if m := regexp.MustCompile(`devices join \S+ (\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			code = m[1]
			break
		}
	}
	if code == "" {
		t.Fatalf("no pairing code: %s %s", pairOut.String(), pairErr.String())
	}
	joined := expect(desk.runIn(tokA+"\nyes\n", "devices", "join", srv(2).URL, code), 0, "is now one of ada's devices")
	for sc.Scan() {
		pairOut.WriteString(sc.Text() + "\n")
	}
	if err := pair.Wait(); err != nil {
		t.Fatalf("pair: %v\n%s%s", err, pairOut.String(), pairErr.String())
	}
	sas := regexp.MustCompile(`same 12 digits: (\d{3} \d{3} \d{3} \d{3}|[\d ]{12,})`)
	a, b := sas.FindStringSubmatch(pairOut.String()), sas.FindStringSubmatch(joined.stdout)
	if a == nil || b == nil || a[1] != b[1] {
		t.Fatalf("codes differ or missing:\n%s\n---\n%s", pairOut.String(), joined.stdout)
	}
	if ds := expect(desk.run("devices", "--json"), 0, `"this": true`).stdout; strings.Count(ds, `"fingerprint"`) != 2 {
		t.Fatalf("the desktop lists:\n%s", ds)
	}
	// ada's laptop follows the session live while the desktop continues
	// it on its own agent.
	follow := ada.cmd("show", "--follow", "--json", id)
	fout, err := follow.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	fsc := bufio.NewScanner(fout)
	expect(desk.run("prompt", "--session", id, "--agent-cmd", desk.agentCmd(""), "from the desktop"), 0)
	seen := map[string]bool{}
	for fsc.Scan() {
		var o struct {
			Seq   int64  `json:"seq"`
			Actor string `json:"actor"`
			Entry struct {
				Text string `json:"text"`
			} `json:"entry"`
		}
		if err := json.Unmarshal(fsc.Bytes(), &o); err != nil {
			t.Fatalf("follow printed %q: %v", fsc.Text(), err)
		}
		key := fmt.Sprint(o.Seq)
		if seen[key] {
			t.Fatalf("entry %d printed twice", o.Seq)
		}
		seen[key] = true
		if o.Entry.Text == "from the desktop" && o.Actor == "ada" {
			break
		}
	}
	follow.Process.Signal(syscall.SIGINT)
	if err := follow.Wait(); err != nil {
		t.Fatalf("show --follow ended with %v", err)
	}
	expect(ada.run("show", id), 0, "## Turn 3 · ada", "from the desktop")

	// Removing bob starts a new epoch: what follows is not his to read.
	expect(ada.run("members", id, "remove", "bob"), 0, "was removed")
	// ada's laptop continues its own agent session (session/load) and is
	// given what ran elsewhere since its last turn: the desktop's turn.
	r = expect(ada.run("prompt", "--json", "--session", id, "--agent-cmd", ada.agentCmd(""), "after bob left"), 0)
	if sh := r.ofType("shared"); len(sh) != 1 || sh[0]["context"] != "load" {
		t.Fatalf("ada's shared line: %v", sh)
	}
	if given := r.text(); !strings.Contains(given, "User ada (turn 3):\nfrom the desktop") || !strings.Contains(given, "User bob (turn 2):") {
		t.Errorf("ada's laptop agent was given:\n%s", given)
	}
	r = bob.run("show", id)
	if strings.Contains(r.stdout, "after bob left") {
		t.Fatalf("a removed member reads a later turn:\n%s", r.stdout)
	}
	expect(r, 0, "what did ada find?") // what he had stays on his machine

	// Thoughts reach the members (and the actor's other machines) only
	// when the actor chooses to share them.
	for _, c := range []struct {
		flags   []string
		thought string
	}{{nil, "THOUGHTKEPT3a1f"}, {[]string{"--share-thoughts"}, "THOUGHTSHARED9c2e"}} {
		script := ada.agentCmd(`{"turns":[` + acptest.Steps(`{"thought":"`+c.thought+`"}`, `{"message":"ok"}`) + `]}`)
		args := append([]string{"prompt", "--json", "--session", id, "--agent-cmd", script}, c.flags...)
		expect(ada.run(append(args, "think about it")...), 0, `"type":"shared"`)
	}
	if r := expect(desk.run("show", id), 0, "THOUGHTSHARED9c2e"); strings.Contains(r.stdout, "THOUGHTKEPT3a1f") {
		t.Errorf("ada's desktop sees a thought her laptop did not share:\n%s", r.stdout)
	}
	// A tool call's summary (the files it touched, a diff's line counts)
	// only when the actor chooses; its input and output never.
	for _, c := range []struct {
		flags []string
		title string
	}{{nil, "EditKept"}, {[]string{"--share-tool-summaries"}, "EditShared"}} {
		tool := `{"toolCall":{"toolCallId":"e1","title":"` + c.title + `","kind":"edit","status":"completed",` +
			`"rawInput":{"path":"` + note + `","text":"` + inputCanary + `"},"rawOutput":{"out":"` + outputCanary + `"},` +
			`"locations":[{"path":"` + note + `"}],` +
			`"content":[{"type":"diff","path":"` + note + `","oldText":"# 缓存\n","newText":"# 缓存\n` + inputCanary + `\n"}]}}`
		script := ada.agentCmd(`{"turns":[` + acptest.Steps(tool, `{"message":"edited"}`) + `]}`)
		args := append([]string{"prompt", "--json", "--session", id, "--agent-cmd", script}, c.flags...)
		expect(ada.run(append(args, "edit it")...), 0, `"type":"shared"`)
	}
	r = expect(desk.run("show", id), 0, "EditKept", "EditShared", "    缓存设计.md +1 −0\n")
	if strings.Count(r.stdout, "缓存设计.md +1 −0") != 1 {
		t.Errorf("a summary the actor did not share, or none:\n%s", r.stdout)
	}
	for _, c := range []string{inputCanary, outputCanary, ada.ws} {
		if strings.Contains(r.stdout, c) {
			t.Errorf("ada's desktop sees %q:\n%s", c, r.stdout)
		}
	}

	// The control plane never held a word of it: not in its database
	// files, its logs, or anything sent to it.
	for _, cp := range cps {
		cp.Close()
	}
	var files []string
	filepath.WalkDir(dbDir, func(p string, d os.DirEntry, err error) error { //nolint:errcheck // what cannot be read is not checked
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatalf("no database files under %s", dbDir)
	}
	// The scan reads what the database holds: the session's id is there.
	found := false
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(id)) {
			found = true
			break
		}
	}
	if !found {
		t.Fatalf("the session id is in no file under %s: the scan proves nothing", dbDir)
	}
	for _, c := range []string{promptCanary, answerCanary, noteCanary, inputCanary, outputCanary} {
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(c)) {
				t.Errorf("the control plane's %s holds %s", f, c)
			}
		}
		for _, cp := range cps {
			if bytes.Contains(cp.Logs(), []byte(c)) {
				t.Errorf("the control plane logged %s", c)
			}
			if bytes.Contains(cp.Sent(), []byte(c)) {
				t.Errorf("%s was sent to the control plane in clear", c)
			}
		}
	}
}

// transcriptCount counts a transcript's shared-entry records.
func transcriptCount(t *testing.T, h *harness, id string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.home, "data", "transcripts", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte(`"kind":"shared_entry"`))
}
