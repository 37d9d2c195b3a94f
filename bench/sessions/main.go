// Command sessions measures mnote running many chat sessions at once: for
// N = 1, 3 and 9 sessions prompted in parallel, each a few turns on the
// test agent (cmd/mnote-testagent: a message and a flood of updates per
// turn), it prints the wall time from the first prompt to the last turn's
// end and the peak resident memory of mnote and its children (the agent
// processes), with the N = 1 run as the reference ratio.
//
// The sessions run through mnote's window services in this process
// (app.New, called through the Bridge as the window calls them), with the
// pool's defaults (up to 8 sessions share one agent process, at most 6
// processes). Memory is sampled from /proc every 10 ms. Times are printed,
// never judged: they depend on the machine.
//
//	go run -tags sqlite_fts5 ./bench/sessions [-n 1,3,9] [-turns 3] [-updates 20000] [-runs 3] [-agent BIN] [-mnote BIN]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"mnote/acp/runtimes"
	"mnote/app"
	"mnote/store"
)

func main() {
	ns := flag.String("n", "1,3,9", "numbers of parallel sessions")
	turns := flag.Int("turns", 3, "turns per session")
	updates := flag.Int("updates", 20000, "updates the agent streams per turn")
	runs := flag.Int("runs", 3, "runs of each N (the median time and the highest peak are shown)")
	agentBin := flag.String("agent", "", "mnote-testagent binary (default: build one)")
	mnoteBin := flag.String("mnote", "", "mnote binary, for the notes tools' command (default: build one)")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err := run(*ns, *turns, *updates, *runs, *agentBin, *mnoteBin); err != nil {
		fmt.Fprintln(os.Stderr, "sessions:", err)
		os.Exit(1)
	}
}

func run(nsFlag string, turns, updates, runs int, agentBin, mnoteBin string) error {
	var ns []int
	for _, f := range strings.Split(nsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-n: %q is not a number of sessions", f)
		}
		ns = append(ns, n)
	}
	tmp, err := os.MkdirTemp("", "mnote-bench-sessions-")
	if err != nil {
		return fmt.Errorf("temp folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	if agentBin, err = built(agentBin, tmp, "mnote-testagent", "./cmd/mnote-testagent"); err != nil {
		return err
	}
	if mnoteBin, err = built(mnoteBin, tmp, "mnote", "."); err != nil {
		return err
	}
	fmt.Printf("mnote: %d turns per session, each a message and %d updates from the test agent; %d runs per N\n\n", turns, updates, runs)
	fmt.Printf("%8s %10s %8s %12s %8s %12s %10s\n", "sessions", "time", "×N=1", "peak memory", "×N=1", "of which mnote", "agents")
	var ref result
	for _, n := range ns {
		var rs []result
		for r := range runs {
			res, err := once(filepath.Join(tmp, fmt.Sprintf("n%d-run%d", n, r)), n, turns, updates, agentBin, mnoteBin)
			if err != nil {
				return fmt.Errorf("%d sessions: %w", n, err)
			}
			rs = append(rs, res)
		}
		slices.SortFunc(rs, func(a, b result) int { return int(a.took - b.took) })
		res := rs[len(rs)/2]
		for _, r := range rs {
			if r.peak > res.peak {
				res.peak, res.peakSelf, res.agents = r.peak, r.peakSelf, r.agents
			}
		}
		if ref.took == 0 {
			ref = res
		}
		fmt.Printf("%8d %10s %8.2f %12s %8.2f %12s %10d\n", n, res.took.Round(time.Millisecond),
			float64(res.took)/float64(ref.took), mib(res.peak), float64(res.peak)/float64(ref.peak), mib(res.peakSelf), res.agents)
	}
	return nil
}

// built returns bin, or builds the package into dir.
func built(bin, dir, name, pkg string) (string, error) {
	if bin != "" {
		return filepath.Abs(bin)
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	return out, nil
}

type result struct {
	took           time.Duration
	peak, peakSelf int64 // bytes: mnote and its children, mnote alone
	agents         int   // agent processes at the peak
}

// once runs n sessions in parallel in a fresh data folder.
func once(dir string, n, turns, updates int, agentBin, mnoteBin string) (result, error) {
	var res result
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "notes")
	for _, d := range []string{home, ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return res, fmt.Errorf("folders: %w", err)
		}
	}
	var steps []any
	for t := range turns {
		steps = append(steps, []any{map[string]any{"message": fmt.Sprintf("turn %d", t+1)}, map[string]any{"flood": updates}})
	}
	scenario, _ := json.Marshal(map[string]any{"turns": steps})
	scenarioFile := filepath.Join(dir, "scenario.json")
	if err := os.WriteFile(scenarioFile, scenario, 0o600); err != nil {
		return res, fmt.Errorf("scenario: %w", err)
	}
	cfg, _ := json.Marshal(map[string]any{"agent_servers": map[string]any{
		"testagent": map[string]any{"command": agentBin, "args": []string{"--scenario", scenarioFile}},
	}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600); err != nil {
		return res, fmt.Errorf("config: %w", err)
	}
	data := filepath.Join(home, "data")
	em := &turnCounter{}
	svc, err := app.New(app.Config{
		Paths: store.Paths{ConfigFile: filepath.Join(home, "config.json"), DataDir: data, DB: filepath.Join(data, "mnote.db"),
			Transcripts: filepath.Join(data, "transcripts"), Trash: filepath.Join(data, "trash"),
			LogDir: filepath.Join(home, "logs"), StateDir: filepath.Join(home, "state")},
		Workspace: ws, Emitter: em, MCPCommand: mnoteBin,
		Detector: runtimes.NewDetector(runtimes.DetectOptions{Inherited: true}),
	})
	if err != nil {
		return res, fmt.Errorf("services: %w", err)
	}
	defer svc.Shutdown()
	call := func(method string, args, out any) error {
		b, _ := json.Marshal(args)
		r, err := svc.Bridge().Call(method, string(b))
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if out != nil {
			return json.Unmarshal([]byte(r), out)
		}
		return nil
	}
	ids := make([]string, n)
	for i := range ids {
		var sum app.SessionSummary
		if err := call("sessions.create", map[string]any{"agent": "testagent"}, &sum); err != nil {
			return res, err
		}
		ids[i] = sum.ID
	}

	self := os.Getpid()
	stop := make(chan struct{})
	var sampled sync.WaitGroup
	sampled.Add(1)
	go func() {
		defer sampled.Done()
		for {
			m := sample(self)
			if m.total() > res.peak {
				res.peak, res.peakSelf, res.agents = m.total(), m.self, m.children
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	errs := make(chan error, n)
	for _, id := range ids {
		go func() {
			for t := 1; t <= turns; t++ {
				if err := call("sessions.prompt", map[string]any{"id": id, "text": fmt.Sprintf("turn %d", t)}, nil); err != nil {
					errs <- err
					return
				}
				if e := em.wait(id, t); e.stopReason != "end_turn" {
					errs <- fmt.Errorf("session %s turn %d ended %q", id, t, e.stopReason)
					return
				}
			}
			errs <- nil
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			close(stop)
			sampled.Wait()
			return res, err
		}
	}
	res.took = time.Since(start)
	close(stop)
	sampled.Wait()
	return res, nil
}

type turnEnd struct {
	session    string
	turn       int
	stopReason string
}

// turnCounter is the window's side of the events: it encodes each as the
// window's transport would and keeps only the turns' ends.
type turnCounter struct {
	mu   sync.Mutex
	seen []turnEnd
	cond *sync.Cond
}

func (c *turnCounter) Emit(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil || name != app.EventThread {
		return
	}
	var ev struct {
		SessionID string          `json:"sessionId"`
		Type      string          `json:"type"`
		Payload   app.TurnPayload `json:"payload"`
	}
	if json.Unmarshal(b, &ev) != nil || ev.Type != app.EvTurn || ev.Payload.State != "ended" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cond == nil {
		c.cond = sync.NewCond(&c.mu)
	}
	c.seen = append(c.seen, turnEnd{ev.SessionID, ev.Payload.Turn, ev.Payload.StopReason})
	c.cond.Broadcast()
}

// wait waits until the session's turn has ended.
func (c *turnCounter) wait(session string, turn int) turnEnd {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cond == nil {
		c.cond = sync.NewCond(&c.mu)
	}
	for {
		for _, e := range c.seen {
			if e.session == session && e.turn == turn {
				return e
			}
		}
		c.cond.Wait()
	}
}

// memory is the resident memory of this process (mnote's services) and
// of its descendants.
type memory struct {
	self, kids int64
	children   int
}

func (m memory) total() int64 { return m.self + m.kids }

func sample(self int) memory {
	type proc struct {
		ppid int
		rss  int64
	}
	all := map[int]proc{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "status"))
		if err != nil {
			continue
		}
		var pid int
		var p proc
		for _, l := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(l, ":")
			f := strings.Fields(v)
			if len(f) == 0 {
				continue
			}
			switch k {
			case "Pid":
				pid, _ = strconv.Atoi(f[0])
			case "PPid":
				p.ppid, _ = strconv.Atoi(f[0])
			case "VmRSS":
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				p.rss = kb << 10
			}
		}
		all[pid] = p
	}
	m := memory{self: all[self].rss}
	frontier := []int{self}
	for len(frontier) > 0 {
		var next []int
		for pid, p := range all {
			if slices.Contains(frontier, p.ppid) {
				m.kids += p.rss
				next = append(next, pid)
				if p.ppid == self && p.rss > 0 {
					m.children++
				}
			}
		}
		frontier = next
	}
	return m
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
