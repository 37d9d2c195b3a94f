package agents_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/acp/acptest/fakemodel"
	"mnote/app"
	"mnote/thread"
)

// Many sessions at once on real agents, offline: Qwen Code, OpenCode and
// Reasonix, two sessions each, each session with its own process
// (SessionsPerAgent 1, so six processes: the pool's cap), prompted in
// parallel through the window's services; one turn is cancelled, one
// agent is killed mid-turn (and its session carries on in a new process).
// Then every turn is in its session's transcript, the processes never
// outnumbered the cap, none is left once the sessions are closed, and the
// memory of mnote and its children is back near where it started.
// Where a published agent is not installed (and MNOTE_E2E_AGENTS=1 does
// not ask for it), the test agent stands in for it.
//
// It is not parallel: it counts this process's children and its memory,
// which other tests' agents would blur.
func TestManySessions(t *testing.T) {
	const maxAgents = 6
	specs := []agentSpec{orTestAgent(t, qwen), orTestAgent(t, opencode), orTestAgent(t, reasonix)}
	hs := make([]*harness, len(specs))
	for i, spec := range specs {
		hs[i] = newHarness(t, spec)
	}
	main := hs[len(hs)-1]
	for _, h := range hs[:len(hs)-1] {
		main.adopt(h)
	}
	for i := range 2 * len(specs) {
		if err := os.WriteFile(filepath.Join(main.ws, fmt.Sprintf("notes/s%d.md", i+1)), []byte("# Note\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	main.inAppWith(func(c *app.Config) {
		c.MaxAgents, c.SessionsPerAgent, c.AgentIdle = maxAgents, 1, time.Second
	}, func(a *appRun) {
		self := os.Getpid()
		before := memoryNow(self)
		t.Logf("before the sessions: mnote %s, %d children", mib(before.self), before.children)

		// Watch the agent processes (this process's children) and the
		// memory while the sessions run.
		var mu sync.Mutex
		most, peak := 0, before
		stop := make(chan struct{})
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			for {
				m := memorySample(self)
				mu.Lock()
				most = max(most, m.children)
				if m.total() > peak.total() {
					peak = m
				}
				mu.Unlock()
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		}()

		type sess struct {
			id   string
			h    *harness
			text string
		}
		// The session to crash is created last, so that its process is
		// the one that appears then (sessions.create starts it, or its
		// first prompt does).
		var ss []sess
		var roots0 []int
		for i, h := range hs {
			for j := range 2 {
				n := 2*i + j + 1
				if n == 2*len(hs) {
					roots0 = agentRoots(self)
				}
				ss = append(ss, sess{id: a.createWith(h.spec.name), h: h, text: h.editPrompt(main.ws, fmt.Sprintf("notes/s%d.md", n))})
			}
		}
		// Reasonix's second session is killed mid-turn; Qwen's second
		// is cancelled. Both stall in the model first.
		crash, cancelled := &ss[5], &ss[1]
		crash.text = crash.h.stallPrompt("notes/s6.md")
		cancelled.text = cancelled.h.stallPrompt("notes/s2.md")

		results := make([]chan turnResult, len(ss))
		from := a.rec.Len()
		results[5] = a.startTurn(crash.id, crash.text)
		a.waitThought(crash.id, from)
		victim := slices.DeleteFunc(agentRoots(self), func(p int) bool { return slices.Contains(roots0, p) })
		if len(victim) != 1 {
			t.Fatalf("the crashing session's process: %v new processes", victim)
		}
		from = a.rec.Len()
		for i, s := range ss[:5] {
			results[i] = a.startTurn(s.id, s.text)
		}
		a.waitThought(cancelled.id, from)
		a.mustCall("sessions.cancel", map[string]any{"id": cancelled.id}, nil)
		killAgent(t, victim[0], crash.h.agentBin)

		for i, s := range ss {
			r := <-results[i]
			switch {
			case r.err != nil:
				t.Errorf("%s session %d: %v", s.h.spec.name, i+1, r.err)
			case &ss[i] == crash:
				notices := a.notices(crash.id)
				if r.StopReason != "error" || len(notices) == 0 {
					t.Errorf("the killed agent's turn ended %q (%s); notices %v", r.StopReason, r.Error, notices)
				}
				t.Logf("killed agent: the turn ended %q; the window was told %v", r.StopReason, notices)
			case &ss[i] == cancelled:
				if r.StopReason != "cancelled" {
					t.Errorf("the cancelled turn ended %q (%s)", r.StopReason, r.Error)
				}
			case r.StopReason != "end_turn":
				t.Errorf("%s session %d ended %q: %s", s.h.spec.name, i+1, r.StopReason, r.Error)
			}
		}
		// The killed agent's session goes on in a new process.
		if r := <-a.startTurn(crash.id, crash.h.editPrompt(main.ws, "notes/s6.md")); r.err != nil || r.StopReason != "end_turn" {
			t.Errorf("after the crash: %+v", r)
		}
		if got, err := os.ReadFile(filepath.Join(main.ws, "notes/s6.md")); err != nil || string(got) != "# Note\nhi\n" {
			t.Errorf("after the crash the note is %q (%v)", got, err)
		}

		// Every turn is in its transcript.
		for i, s := range ss {
			want := 1
			if &ss[i] == crash {
				want = 2
			}
			if got := turnsEnded(t, main.transcriptPath(s.id)); len(got) != want {
				t.Errorf("%s session %d: transcript turns %v, want %d", s.h.spec.name, i+1, got, want)
			}
		}

		for _, s := range ss {
			a.mustCall("sessions.close", map[string]any{"id": s.id}, nil)
		}
		// Closed sessions' processes stop after AgentIdle.
		deadline := time.Now().Add(30 * time.Second)
		for len(agentRoots(self)) > 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		close(stop)
		<-watched
		if left := agentRoots(self); len(left) > 0 {
			t.Errorf("agent processes still running 30 s after their sessions closed: %v", left)
		}
		for _, h := range hs {
			h.noLeftovers()
		}
		mu.Lock()
		defer mu.Unlock()
		if most > maxAgents {
			t.Errorf("%d agent processes ran at once, more than the pool's cap %d", most, maxAgents)
		}
		after := memoryNow(self)
		t.Logf("agent processes at most %d (cap %d); memory: before %s, peak %s (mnote %s + %d processes %s), after %s",
			most, maxAgents, mib(before.total()), mib(peak.total()), mib(peak.self), peak.children, mib(peak.kids), mib(after.total()))
		// mnote's heap may keep some of what it grew to; the agents'
		// hundreds of MiB must be gone.
		if after.kids != 0 || after.self > before.self+96<<20 {
			t.Errorf("memory after the sessions closed: mnote %s (before %s), children %s", mib(after.self), mib(before.self), mib(after.kids))
		}
	})
}

// adopt runs other's agent from h's MNOTE_HOME: its entry in h's
// config.json, its key in h's secrets, its model working in h's folder.
func (h *harness) adopt(other *harness) {
	t := h.t
	t.Helper()
	script := filepath.Join(filepath.Dir(other.modelLog), "model-script.json")
	var s fakemodel.Script
	b, err := os.ReadFile(script)
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil {
		t.Fatal(err)
	}
	s.Dir = h.ws
	b, _ = json.Marshal(s)
	if err := os.WriteFile(script, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var mine, theirs map[string]map[string]json.RawMessage
	for _, c := range []struct {
		dir string
		v   *map[string]map[string]json.RawMessage
	}{{h.mnoteHm, &mine}, {other.mnoteHm, &theirs}} {
		b, err := os.ReadFile(filepath.Join(c.dir, "config.json"))
		if err == nil {
			err = json.Unmarshal(b, c.v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	mine["agent_servers"][other.spec.name] = theirs["agent_servers"][other.spec.name]
	b, _ = json.Marshal(mine)
	if err := os.WriteFile(filepath.Join(h.mnoteHm, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if other.spec.keyVar != "" {
		c := h.cmd(t.Context(), "agents", "--set-key", other.spec.name, other.spec.keyVar)
		c.Stdin = strings.NewReader(other.apiKey + "\n")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("mnote agents --set-key %s: %v\n%s", other.spec.name, err, out)
		}
	}
}

// notices are the notice events of a session so far (level: message).
func (a *appRun) notices(id string) []string {
	var out []string
	for _, ev := range a.rec.Events() {
		var te threadEvent
		var n app.NoticePayload
		if ev.Name == app.EventThread && json.Unmarshal(ev.Data, &te) == nil && te.SessionID == id &&
			te.Type == app.EvNotice && json.Unmarshal(te.Payload, &n) == nil {
			out = append(out, n.Level+": "+n.Message)
		}
	}
	return out
}

// createWith starts a session with the named agent.
func (a *appRun) createWith(agent string) string {
	a.t.Helper()
	var sum app.SessionSummary
	a.mustCall("sessions.create", map[string]any{"agent": agent}, &sum)
	return sum.ID
}

type turnResult struct {
	app.TurnPayload
	err error
}

// startTurn sends a prompt and follows the turn in the background,
// allowing every permission request, until it ends.
func (a *appRun) startTurn(id, text string) chan turnResult {
	out := make(chan turnResult, 1)
	from := a.rec.Len()
	var started app.TurnStarted
	if err := a.call("sessions.prompt", map[string]any{"id": id, "text": text}, &started); err != nil {
		out <- turnResult{err: err}
		return out
	}
	go func() {
		ctx, cancel := a.ctx()
		defer cancel()
		for {
			var te threadEvent
			i, _, err := a.rec.Wait(ctx, from, func(ev app.RecordedEvent) bool {
				te = threadEvent{}
				return ev.Name == app.EventThread && json.Unmarshal(ev.Data, &te) == nil && te.SessionID == id &&
					(te.Type == app.EvPermission || te.Type == app.EvTurn)
			})
			if err != nil {
				out <- turnResult{err: fmt.Errorf("turn %d: %w", started.Turn, err)}
				return
			}
			from = i + 1
			if te.Type == app.EvPermission {
				var req app.PermissionRequest
				_ = json.Unmarshal(te.Payload, &req)
				opt := ""
				for _, o := range req.Options {
					if opt == "" && (o.Kind == "allow_once" || o.Kind == "allow_always") {
						opt = o.OptionID
					}
				}
				if err := a.call("permissions.decide", map[string]any{"sessionId": id, "requestId": req.RequestID, "optionId": opt}, nil); err != nil {
					out <- turnResult{err: err}
					return
				}
				continue
			}
			var tp app.TurnPayload
			if json.Unmarshal(te.Payload, &tp) == nil && tp.State == "ended" && tp.Turn == started.Turn {
				out <- turnResult{TurnPayload: tp}
				return
			}
		}
	}()
	return out
}

// waitThought waits until the session shows a thought (an event from
// index from on): a stall prompt's turn is running and the model (or the
// test agent) is waiting in it.
func (a *appRun) waitThought(id string, from int) {
	a.t.Helper()
	ctx, cancel := a.ctx()
	defer cancel()
	_, _, err := a.rec.Wait(ctx, from, func(ev app.RecordedEvent) bool {
		var te struct {
			SessionID string `json:"sessionId"`
			Type      string `json:"type"`
			Payload   struct {
				Kind string `json:"kind"`
			} `json:"payload"`
		}
		return ev.Name == app.EventThread && json.Unmarshal(ev.Data, &te) == nil && te.SessionID == id &&
			te.Type == app.EvEntry && te.Payload.Kind == thread.EntryThought
	})
	if err != nil {
		a.t.Fatalf("session %s never showed a thought: %v", id, err)
	}
}

// orTestAgent is spec, or the test agent in its place when spec's agent
// is not installed and MNOTE_E2E_AGENTS=1 does not ask for it.
func orTestAgent(t *testing.T, spec agentSpec) agentSpec {
	if _, err := os.Stat(filepath.Join(agentsBin(), spec.command)); err == nil || os.Getenv("MNOTE_E2E_AGENTS") == "1" {
		return spec
	}
	t.Logf("%s is not installed: the test agent stands in for it", spec.name)
	return agentSpec{name: spec.name + "-stand-in", command: "mnote-testagent", bin: acptest.TestAgent(t),
		setup: func(*harness) map[string]string { return nil }}
}

// editPrompt asks the agent to add the line "hi" to a note of the
// folder ws: in words for
// a published agent (the fake model does it), as steps for the test agent.
func (h *harness) editPrompt(ws, rel string) string {
	if h.spec.bin == "" {
		return fmt.Sprintf("Add a line 'hi' to %s", rel)
	}
	b, _ := json.Marshal([]any{
		map[string]any{"writeFile": map[string]any{"path": filepath.Join(ws, rel), "content": "# Note\nhi\n"}},
		map[string]any{"message": "Done."},
	})
	return string(b)
}

// stallPrompt is a turn that shows a thought and then waits (until it is
// cancelled or its agent dies).
func (h *harness) stallPrompt(rel string) string {
	if h.spec.bin == "" {
		return "[stall] Think about " + rel + " for a long while"
	}
	return `[{"thought":"thinking about ` + rel + `"},{"sleepMs":600000}]`
}

// turnsEnded lists the turns a transcript ended (its turn_ended records).
func turnsEnded(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r struct {
			Kind string `json:"kind"`
			Data struct {
				Turn       int    `json:"turn"`
				StopReason string `json:"stopReason"`
			} `json:"data"`
		}
		if json.Unmarshal(l, &r) == nil && r.Kind == "turn_ended" {
			out = append(out, fmt.Sprintf("%d:%s", r.Data.Turn, r.Data.StopReason))
		}
	}
	return out
}

// killAgent kills (SIGKILL) the agent program under an agent process:
// the descendant of root running bin.
func killAgent(t *testing.T, root int, bin string) {
	t.Helper()
	target, _ := filepath.EvalSymlinks(bin)
	for _, p := range descendants(root) {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		if bytes.Contains(cmd, []byte(bin)) || (target != "" && bytes.Contains(cmd, []byte(filepath.Dir(target)))) {
			if err := syscall.Kill(p, syscall.SIGKILL); err != nil {
				t.Fatalf("kill %d: %v", p, err)
			}
			t.Logf("killed the agent, process %d: %s", p, bytes.ReplaceAll(bytes.TrimRight(cmd, "\x00"), []byte{0}, []byte{' '}))
			return
		}
	}
	t.Fatalf("no process of %s under %d", bin, root)
}

// proc is one process of /proc.
type proc struct {
	pid, ppid int
	rss       int64 // bytes
}

func procs() []proc {
	var out []proc
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "status"))
		if err != nil {
			continue
		}
		p := proc{}
		for _, l := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(l, ":")
			f := strings.Fields(v)
			if len(f) == 0 {
				continue
			}
			switch k {
			case "Pid":
				p.pid, _ = strconv.Atoi(f[0])
			case "PPid":
				p.ppid, _ = strconv.Atoi(f[0])
			case "VmRSS":
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				p.rss = kb << 10
			}
		}
		out = append(out, p)
	}
	return out
}

// descendants lists root's descendants (not root).
func descendants(root int) []int {
	all := procs()
	var out []int
	frontier := []int{root}
	for len(frontier) > 0 {
		var next []int
		for _, p := range all {
			if slices.Contains(frontier, p.ppid) {
				out = append(out, p.pid)
				next = append(next, p.pid)
			}
		}
		frontier = next
	}
	return out
}

// agentRoots are this process's children: the agent processes mnote's
// services started (each with its own children).
func agentRoots(self int) []int {
	var out []int
	for _, p := range procs() {
		if p.ppid == self && p.rss > 0 {
			out = append(out, p.pid)
		}
	}
	return out
}

// memory is the resident memory of mnote (this process, which runs the
// services) and of all its descendants.
type memory struct {
	self, kids int64
	children   int // direct children: agent processes
}

func (m memory) total() int64 { return m.self + m.kids }

func memoryNow(self int) memory {
	runtime.GC()
	debug.FreeOSMemory()
	return memorySample(self)
}

// memorySample is memoryNow without collecting mnote's garbage first.
func memorySample(self int) memory {
	var m memory
	all := procs()
	rss := map[int]int64{}
	for _, p := range all {
		rss[p.pid] = p.rss
		if p.pid == self {
			m.self = p.rss
		}
		if p.ppid == self && p.rss > 0 {
			m.children++
		}
	}
	for _, d := range descendants(self) {
		m.kids += rss[d]
	}
	return m
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
