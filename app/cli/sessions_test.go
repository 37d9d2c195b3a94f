package cli_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"mnote/acp/acptest"
)

// kill -9 of mnote mid-stream loses nothing that was flushed: every line
// on disk is whole, and the session reopens with its text.
func TestKillMidStreamKeepsFlushedLines(t *testing.T) {
	h := newHarness(t)
	c := h.cmd("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(`{"message":"first words "}`, `{"sleepMs":100}`, `{"flood":2000000,"mix":"chunks"}`))
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var sessionID string
	seen := 0
	for sc.Scan() {
		var m map[string]any
		json.Unmarshal(sc.Bytes(), &m)
		if m["type"] == "session" {
			sessionID = m["sessionId"].(string)
		}
		if m["type"] == "message_chunk" {
			seen++
		}
		if seen == 20000 {
			break
		}
	}
	// Let the 100 ms flush happen for what was shown, then kill.
	time.Sleep(300 * time.Millisecond)
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()

	path := filepath.Join(h.home, "data", "transcripts", sessionID+".jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	updates := 0
	for i, l := range lines[:len(lines)-1] {
		var rec struct {
			Seq  int64  `json:"seq"`
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %d is not whole: %v", i+1, err)
		}
		if rec.Kind == "session/update" {
			updates++
		}
	}
	// Everything shown more than 100 ms before the kill is on disk.
	if updates < 20000 {
		t.Fatalf("only %d updates on disk after %d were shown", updates, seen)
	}
	// The session reopens: its index row is reconciled and its text shows.
	r := h.run("show", sessionID)
	if r.code != 0 || !strings.Contains(r.stdout, "first words") {
		t.Fatalf("show after kill: %d %q %q", r.code, r.stdout[:min(200, len(r.stdout))], r.stderr)
	}
	r = h.run("sessions", "--json")
	var rows []map[string]any
	json.Unmarshal([]byte(r.stdout), &rows)
	if len(rows) != 1 || rows[0]["updates"].(float64) < 20000 {
		t.Fatalf("sessions after kill: %s", r.stdout)
	}
}

// Deleting the index gives back the same sessions.
func TestIndexRebuildsFromTranscripts(t *testing.T) {
	h := newHarness(t)
	for _, text := range []string{"alpha note about gardens", "beta note about rivers"} {
		if r := h.run("prompt", "--agent-cmd", h.agent, text); r.code != 0 {
			t.Fatalf("prompt: %s", r.stderr)
		}
	}
	// A richer session, continued once: thoughts, tools, a permission,
	// answers split by tool calls (indexed together), a plan.
	r := h.run("prompt", "--json", "--approve", "all", "--agent-cmd", h.agentCmd(""), acptest.Steps(
		`{"thought":"consider the estuary"}`, `{"message":"Rivers meet the sea","chunk":3}`,
		`{"toolCall":{"toolCallId":"t1","title":"Read delta.md","kind":"read","status":"pending"}}`,
		`{"permission":{"toolCall":{"toolCallId":"t1"}}}`, `{"toolCallUpdate":{"toolCallId":"t1","status":"completed"}}`,
		`{"message":" at the mangrove delta"}`, `{"plan":[{"content":"map","priority":"high","status":"pending"}]}`))
	id := r.last()["sessionId"].(string)
	if r := h.run("prompt", "--session", id, acptest.Steps(`{"message":"tidal flats"}`)); r.code != 0 {
		t.Fatalf("continue: %s", r.stderr)
	}
	before := h.run("sessions", "--json").stdout
	hits := h.run("search", "--json", "rivers").stdout
	for _, q := range []string{"mangrove", "tidal", "estuary"} {
		hq := h.run("search", "--json", q).stdout
		if q == "estuary" && strings.Contains(hq, `"Role": "assistant"`) {
			t.Errorf("thoughts are indexed: %s", hq) // (the prompt holds the word too)
		}
		if q != "estuary" && !strings.Contains(hq, id) {
			t.Errorf("search %q: %s", q, hq)
		}
	}
	db := filepath.Join(h.home, "data", "mnote.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(db + suffix)
	}
	after := h.run("sessions", "--json").stdout
	var a, b []map[string]any
	json.Unmarshal([]byte(before), &a)
	json.Unmarshal([]byte(after), &b)
	if len(a) != 3 || !reflect.DeepEqual(a, b) {
		t.Fatalf("sessions before:\n%s\nafter:\n%s", before, after)
	}
	if h.run("search", "--json", "rivers").stdout != hits || !strings.Contains(hits, "rivers") {
		t.Fatalf("search differs after rebuild: %s", hits)
	}
	for _, q := range []string{"mangrove", "tidal"} {
		if !strings.Contains(h.run("search", "--json", q).stdout, id) {
			t.Errorf("search %q after rebuild", q)
		}
	}
	if r := h.run("reindex"); r.code != 0 || !strings.Contains(r.stdout, "3 sessions") {
		t.Fatalf("reindex: %s %s", r.stdout, r.stderr)
	}
}

// A session continues with session/load; the replayed history is neither
// recorded again nor shown twice.
func TestContinueSessionWithLoad(t *testing.T) {
	h := newHarness(t)
	r := h.run("prompt", "--json", "--agent-cmd", h.agentCmd(""), acptest.Steps(`{"message":"one"}`, `{"toolCall":{"toolCallId":"a","title":"Read","kind":"read","status":"completed"}}`))
	id := r.last()["sessionId"].(string)
	r = h.run("prompt", "--json", "--session", id, acptest.Steps(`{"message":"two"}`))
	if r.code != 0 || r.lines[0]["how"] != "load" {
		t.Fatalf("continue: %d %v %s", r.code, r.lines, r.stderr)
	}
	if r.text() != "two" {
		t.Fatalf("replayed history was printed: %q", r.text())
	}
	show := h.run("show", "--json", id)
	var v struct {
		Thread struct {
			Entries []struct {
				Kind string `json:"kind"`
				Text string `json:"text"`
			} `json:"entries"`
		} `json:"thread"`
	}
	json.Unmarshal([]byte(show.stdout), &v)
	var kinds []string
	for _, e := range v.Thread.Entries {
		kinds = append(kinds, e.Kind+":"+e.Text)
	}
	want := []string{"user_message:" + acptest.Steps(`{"message":"one"}`, `{"toolCall":{"toolCallId":"a","title":"Read","kind":"read","status":"completed"}}`), "assistant_message:one", "tool_call:", "user_message:" + acptest.Steps(`{"message":"two"}`), "assistant_message:two"}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("thread after load:\n%q\nwant\n%q", kinds, want)
	}
	b, _ := os.ReadFile(filepath.Join(h.home, "data", "transcripts", id+".jsonl"))
	if n := strings.Count(string(b), `"text":"one"`); n != 1 {
		t.Fatalf("the first answer is in the transcript %d times", n)
	}
}

func TestRmRestoreExportSearch(t *testing.T) {
	h := newHarness(t)
	r := h.run("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(`{"message":"the quick brown fox"}`))
	id := r.last()["sessionId"].(string)
	if r := h.run("search", "quick fox"); !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "«quick»") {
		t.Fatalf("search: %s", r.stdout)
	}
	md := h.run("export", "--format", "md", id[:10])
	if md.code != 0 || !strings.Contains(md.stdout, "the quick brown fox") || !strings.Contains(md.stdout, "## You") {
		t.Fatalf("export md: %s %s", md.stdout, md.stderr)
	}
	jl := h.run("export", "--format", "jsonl", id)
	if n := strings.Count(jl.stdout, "\n"); n < 5 || !strings.HasPrefix(jl.stdout, `{"v":1,"seq":1`) {
		t.Fatalf("export jsonl: %q", jl.stdout[:min(200, len(jl.stdout))])
	}
	if r := h.run("rm", id); r.code != 0 {
		t.Fatalf("rm: %s", r.stderr)
	}
	if r := h.run("sessions", "--json"); strings.Contains(r.stdout, id) {
		t.Fatalf("removed session still listed")
	}
	if r := h.run("search", "fox"); strings.Contains(r.stdout, id) {
		t.Fatalf("removed session still found")
	}
	if r := h.run("restore", id); r.code != 0 {
		t.Fatalf("restore: %s", r.stderr)
	}
	if r := h.run("sessions", "--json"); !strings.Contains(r.stdout, id) {
		t.Fatalf("restored session not listed: %s", r.stdout)
	}
	for _, p := range []string{filepath.Join(h.home, "data"), filepath.Join(h.home, "data", "transcripts")} {
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v", p, st.Mode())
		}
	}
	if st, _ := os.Stat(filepath.Join(h.home, "data", "transcripts", id+".jsonl")); st.Mode().Perm() != 0o600 {
		t.Errorf("transcript mode %v", st.Mode())
	}
}

// Without session/load, continuing uses session/resume; without either, a
// new agent session, and the user is told.
func TestContinueWithResumeOrNewBinding(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, how, note string
	}{
		{"resume", `{"loadSession":false,"resume":true}`, "resume", ""},
		{"new binding", `{"loadSession":false}`, "new_fallback", "cannot load or resume"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			r := h.run("prompt", "--json", "--agent-cmd", h.agentCmd(tc.scenario), acptest.Steps(`{"message":"one"}`))
			id := r.last()["sessionId"].(string)
			r = h.run("prompt", "--json", "--session", id, acptest.Steps(`{"message":"two"}`))
			if r.code != 0 || r.lines[0]["how"] != tc.how || !strings.Contains(r.stderr, tc.note) {
				t.Fatalf("continue: %d %v %q", r.code, r.lines[0], r.stderr)
			}
			var v struct {
				Info struct{ Bindings []struct{ How string } }
			}
			json.Unmarshal([]byte(h.run("show", "--json", id).stdout), &v)
			if len(v.Info.Bindings) != 2 || v.Info.Bindings[1].How != tc.how {
				t.Fatalf("bindings %+v", v.Info.Bindings)
			}
		})
	}
}

// A second mnote cannot write to a session another one has open.
func TestSessionBusy(t *testing.T) {
	h := newHarness(t)
	r := h.run("prompt", "--json", "--agent-cmd", h.agentCmd(""), acptest.Steps(`{"message":"one"}`))
	id := r.last()["sessionId"].(string)
	c := h.cmd("prompt", "--json", "--session", id, acptest.Steps(`{"message":"long"}`, `{"sleepMs":3000}`))
	out, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() && !strings.Contains(sc.Text(), "long") {
	}
	r = h.run("prompt", "--session", id, "x")
	c.Process.Kill()
	c.Wait()
	if r.code == 0 || !strings.Contains(r.stderr, "open in another mnote process") {
		t.Fatalf("second writer: %d %q", r.code, r.stderr)
	}
}

// startMidTurn starts `mnote prompt` on a turn that sleeps and returns
// once the agent has said "started", with the session id.
func (h *harness) startMidTurn() (*exec.Cmd, string) {
	h.t.Helper()
	c := h.cmd("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(`{"message":"started"}`, `{"sleepMs":600000}`))
	out, err := c.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		c.Process.Kill()
		c.Wait()
	})
	sc := bufio.NewScanner(out)
	id := ""
	for sc.Scan() {
		var m map[string]any
		json.Unmarshal(sc.Bytes(), &m)
		if m["type"] == "session" {
			id = m["sessionId"].(string)
		}
		if m["type"] == "message_chunk" && m["text"] == "started" {
			return c, id
		}
	}
	h.t.Fatalf("mnote prompt ended before the turn started: %v", sc.Err())
	return nil, ""
}

func (h *harness) statuses() map[string]string {
	h.t.Helper()
	r := h.run("sessions", "--json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		h.t.Fatalf("sessions --json: %v %s %s", err, r.stdout, r.stderr)
	}
	st := map[string]string{}
	for _, row := range rows {
		st[row["id"].(string)] = row["status"].(string)
	}
	return st
}

// kill -9 of mnote mid-turn: the session is "interrupted" from the next
// command on, and after mnote reindex, not "running" forever; a session
// whose mnote is still running stays "running".
func TestKilledMidTurnIsInterrupted(t *testing.T) {
	h := newHarness(t)
	killed, killedID := h.startMidTurn()
	_, aliveID := h.startMidTurn()
	// The live index writes every 500 ms.
	var st map[string]string
	if !wait(t, 20*time.Second, func() bool {
		st = h.statuses()
		return st[killedID] == "running" && st[aliveID] == "running"
	}) {
		t.Fatalf("mid-turn: %v", st)
	}
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	if st := h.statuses(); st[killedID] != "interrupted" || st[aliveID] != "running" {
		t.Fatalf("after kill -9 of one mnote: %v", st)
	}
	if r := h.run("sessions"); !strings.Contains(r.stdout, "interrupted") {
		t.Errorf("mnote sessions does not say interrupted:\n%s", r.stdout)
	}
	if r := h.run("reindex"); r.code != 0 {
		t.Fatalf("reindex: %s", r.stderr)
	}
	if st := h.statuses(); st[killedID] != "interrupted" || st[aliveID] != "running" {
		t.Fatalf("after reindex: %v", st)
	}
}
