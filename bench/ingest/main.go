// Command ingest measures how fast mnote takes a flood of ACP updates,
// against a plain reference loop reading the same agent output in the same
// run: bufio.Reader plus encoding/json into a small struct holding the
// method and sessionUpdate — the least any ACP client must do.
//
// Four streams, each from the test agent through a pipe:
//   - an empty turn (what any turn costs: start, initialize, session/new,
//     a prompt answered at once; the median of 11 runs at least);
//   - a turn of 200,000 updates (90% ~40-byte message chunks, 5% thoughts,
//     5% tool call / update pairs);
//   - a session/load that replays those 200,000 updates;
//   - one 20 MiB message chunk.
//
// For each, mnote runs `mnote prompt --agent-cmd … --json > /dev/null`
// (thread model, transcript and index included), and again with
// persistence off, and the table prints wall times, the ratios against the
// reference and mnote's peak memory: RSS and anonymous memory, sampled
// from /proc every 5 ms (the target: client memory under 30 MB).
//
// mnote is the headless build of the same code (go build -tags
// sqlite_fts5 .) unless -mnote names another. The app's own build links
// GTK and WebKit, whose libraries add a constant to the RSS of any
// command; with -desktop naming that build, the footer shows that
// constant (`mnote version`). Run it with `make bench` or
//
//	go run -tags sqlite_fts5 ./bench/ingest [-runs 3] [-n 200000] [-desktop build/bin/mnote]
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	runs := flag.Int("runs", 3, "runs of each measurement (the median is shown)")
	n := flag.Int("n", 200000, "updates in the flood")
	hugeMiB := flag.Int("huge", 20, "size of the huge chunk in MiB")
	mnoteBin := flag.String("mnote", "", "mnote binary (default: build one)")
	agentBin := flag.String("agent", "", "mnote-testagent binary (default: build one)")
	desktopBin := flag.String("desktop", "", "the app's build, to show what its libraries add (optional)")
	flag.Parse()
	if err := run(*runs, *n, *hugeMiB, *mnoteBin, *agentBin, *desktopBin); err != nil {
		fmt.Fprintln(os.Stderr, "ingest:", err)
		os.Exit(1)
	}
}

type result struct {
	wall time.Duration
	// rssKB and anonKB are the peaks of mnote's VmRSS and RssAnon, sampled
	// every 5 ms from /proc (not getrusage's maxrss, which also counts the
	// agent: a child mnote waited for). anonKB is the memory the process
	// itself allocated, without the pages of its binary and shared
	// libraries that RSS also counts (the desktop build maps GTK and
	// WebKit: about 45 MB of clean, shared file pages).
	rssKB, anonKB int64
	events        int
}

func run(runs, n, hugeMiB int, mnoteBin, agentBin, desktopBin string) error {
	tmp, err := os.MkdirTemp("", "mnote-bench-ingest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if mnoteBin == "" {
		mnoteBin = filepath.Join(tmp, "mnote")
		if err := goBuild(mnoteBin, "."); err != nil {
			return err
		}
	}
	if agentBin == "" {
		agentBin = filepath.Join(tmp, "mnote-testagent")
		if err := goBuild(agentBin, "./cmd/mnote-testagent"); err != nil {
			return err
		}
	}
	// The agent runs in another folder: make the paths absolute.
	for _, p := range []*string{&mnoteBin, &agentBin} {
		if abs, err := filepath.Abs(*p); err == nil {
			*p = abs
		}
	}
	ws := filepath.Join(tmp, "ws")
	state := filepath.Join(tmp, "agent-state")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{ws, state, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	flood := fmt.Sprintf(`[{"flood":%d,"mix":"bench"}]`, n)
	huge := fmt.Sprintf(`[{"hugeMessage":%d}]`, hugeMiB<<20)
	agentCmd := agentBin + " --state " + state

	// Seed the session that the load measurements reload: one mnote
	// session whose agent session holds the flood.
	env := append(os.Environ(), "MNOTE_HOME="+home)
	// Seed the session that the load measurements reload: one mnote
	// session whose agent session holds the flood.
	out, err := cmdEnv(exec.Command(mnoteBin, "prompt", "--json", "--agent-cmd", agentCmd, "--cwd", ws, flood), env).Output()
	if err != nil {
		return fmt.Errorf("seed session: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var seed struct {
		SessionID string `json:"sessionId"`
	}
	var agentSession struct {
		AgentSessionID string `json:"agentSessionId"`
	}
	_ = json.Unmarshal([]byte(lines[len(lines)-1]), &seed)
	_ = json.Unmarshal([]byte(lines[0]), &agentSession)
	if seed.SessionID == "" || agentSession.AgentSessionID == "" {
		return fmt.Errorf("seed session: unexpected output %q", lines[0])
	}

	type scenario struct {
		name   string
		ref    func() (result, error)
		mnote  func(persist bool) (result, error)
		events int
		runs   int // 0: the -runs flag
	}
	scenarios := []scenario{
		{
			// What every turn costs before it streams: start, the agent's
			// initialize and session/new, a prompt answered at once.
			name: "an empty turn",
			ref:  func() (result, error) { return reference(agentBin, state, ws, "", `[]`) },
			mnote: func(persist bool) (result, error) {
				return mnote(mnoteBin, env, persist, "prompt", "--json", "--agent-cmd", agentCmd, "--cwd", ws, `[]`)
			},
			runs: max(runs, 11),
		},
		{
			name: fmt.Sprintf("%d updates in one turn", n),
			ref:  func() (result, error) { return reference(agentBin, state, ws, "", flood) },
			mnote: func(persist bool) (result, error) {
				return mnote(mnoteBin, env, persist, "prompt", "--json", "--agent-cmd", agentCmd, "--cwd", ws, flood)
			},
			events: n,
		},
		{
			name: fmt.Sprintf("%d updates replayed by session/load", n),
			ref: func() (result, error) {
				return reference(agentBin, state, ws, agentSession.AgentSessionID, `[]`)
			},
			mnote: func(persist bool) (result, error) {
				return mnote(mnoteBin, env, persist, "prompt", "--json", "--session", seed.SessionID, "--agent-cmd", agentCmd, "--cwd", ws, `[]`)
			},
			events: n, // the replay is dropped (the session has it), not counted again
		},
		{
			name: fmt.Sprintf("one %d MiB chunk", hugeMiB),
			ref:  func() (result, error) { return reference(agentBin, state, ws, "", huge) },
			mnote: func(persist bool) (result, error) {
				return mnote(mnoteBin, env, persist, "prompt", "--json", "--agent-cmd", agentCmd, "--cwd", ws, huge)
			},
		},
	}
	fmt.Printf("ingest benchmark: median of %d runs (an empty turn: %d), %s, GOMAXPROCS %d\n\n", runs, max(runs, 11), runtime.GOOS+"/"+runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Printf("%-40s %10s %10s %8s %10s %8s %9s %9s %9s\n", "stream", "reference", "mnote", "ratio", "no-persist", "ratio", "persist×", "peak RSS", "peak anon")
	for _, sc := range scenarios {
		var refs, ons, offs []result
		n := runs
		if sc.runs > 0 {
			n = sc.runs
		}
		for range n {
			r, err := sc.ref()
			if err != nil {
				return fmt.Errorf("%s, reference: %w", sc.name, err)
			}
			refs = append(refs, r)
			on, err := sc.mnote(true)
			if err != nil {
				return fmt.Errorf("%s, mnote: %w", sc.name, err)
			}
			ons = append(ons, on)
			off, err := sc.mnote(false)
			if err != nil {
				return fmt.Errorf("%s, mnote without persistence: %w", sc.name, err)
			}
			offs = append(offs, off)
		}
		ref, on, off := median(refs), median(ons), median(offs)
		if sc.events > 0 && (ref.events < sc.events || on.events < sc.events) {
			return fmt.Errorf("%s: reference saw %d updates, mnote %d, want at least %d", sc.name, ref.events, on.events, sc.events)
		}
		fmt.Printf("%-40s %10s %10s %7.2f× %10s %7.2f× %8.2f× %6.1f MB %6.1f MB\n", sc.name,
			secs(ref.wall), secs(on.wall), ratio(on, ref), secs(off.wall), ratio(off, ref),
			ratio(off, on), float64(on.rssKB)/1024, float64(on.anonKB)/1024)
	}
	fmt.Println("\nratio: time ÷ the reference's (lower is faster; target ≤ 1.00×).")
	fmt.Println("persist×: speed with persistence on ÷ off (target ≥ 0.85×).")
	fmt.Println("peak RSS / peak anon: mnote with persistence; anon leaves out the binary's and libraries' file pages (target: client memory < 30 MB).")
	if desktopBin != "" {
		fmt.Println("\nmnote prompt waiting for its agent (what any command costs before it streams):")
		for _, b := range []struct{ name, bin string }{{"this build", mnoteBin}, {"the app's build (GTK, WebKit)", desktopBin}} {
			rss, anon, err := waiting(b.bin, env, ws)
			if err != nil {
				return err
			}
			fmt.Printf("  %-32s RSS %5.1f MB, anon %5.1f MB\n", b.name, float64(rss)/1024, float64(anon)/1024)
		}
	}
	return nil
}

// waiting samples mnote's memory while it waits for an agent that never
// answers initialize (it exits after half a second).
func waiting(bin string, env []string, ws string) (rss, anon int64, err error) {
	cmd := exec.Command(bin, "prompt", "--agent-cmd", "sleep 0.5", "--cwd", ws, "hello")
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", bin, err)
	}
	memory := sampleMemory(cmd.Process.Pid)
	_ = cmd.Wait() // it fails: the agent exits
	rss, anon = memory()
	return rss, anon, nil
}

// secs is d in seconds, or in milliseconds under a second.
func secs(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func ratio(a, b result) float64 { return a.wall.Seconds() / b.wall.Seconds() }

func median(rs []result) result {
	slices.SortFunc(rs, func(a, b result) int { return int(a.wall - b.wall) })
	return rs[len(rs)/2]
}

func goBuild(out, pkg string) error {
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-tags", "sqlite_fts5", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s (run from the repository root): %w", pkg, err)
	}
	return nil
}

func cmdEnv(c *exec.Cmd, env []string) *exec.Cmd {
	c.Env = env
	return c
}

// sampleMemory samples /proc/pid/status until the returned func is
// called, which returns the largest VmRSS and RssAnon seen (kB).
func sampleMemory(pid int) func() (rss, anon int64) {
	var peakRSS, peakAnon atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	path := fmt.Sprintf("/proc/%d/status", pid)
	raise := func(peak *atomic.Int64, v string) {
		kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if kb > peak.Load() {
			peak.Store(kb)
		}
	}
	go func() {
		defer close(stopped)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if b, err := os.ReadFile(path); err == nil {
				for _, line := range strings.Split(string(b), "\n") {
					if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
						raise(&peakRSS, v)
					} else if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
						raise(&peakAnon, v)
					}
				}
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() (int64, int64) {
		close(done)
		<-stopped
		return peakRSS.Load(), peakAnon.Load()
	}
}

// mnote runs mnote with stdout to /dev/null, as a user would pipe it
// away, then reads how many updates the session received from the index
// (`mnote sessions --json`: the newest session is this run's).
func mnote(bin string, env []string, persist bool, args ...string) (result, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	if !persist {
		cmd.Env = append(slices.Clone(env), "MNOTE_BENCH_NO_PERSIST=1")
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return result{}, err
	}
	defer devnull.Close()
	cmd.Stdout = devnull
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	memory := sampleMemory(cmd.Process.Pid)
	err = cmd.Wait()
	wall := time.Since(start)
	rssKB, anonKB := memory()
	if err != nil {
		return result{}, fmt.Errorf("%w: %s", err, stderr.String())
	}
	res := result{wall: wall, rssKB: rssKB, anonKB: anonKB}
	if !persist {
		return res, nil // nothing recorded to count from
	}
	out, err := cmdEnv(exec.Command(bin, "sessions", "--json", "--limit", "1"), env).Output()
	if err != nil {
		return result{}, fmt.Errorf("mnote sessions: %w", err)
	}
	var rows []struct {
		Updates int `json:"updates"`
	}
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) == 0 {
		return result{}, fmt.Errorf("mnote sessions: %q", out)
	}
	res.events = rows[0].Updates
	return res, nil
}

// reference is the plain client loop: it starts the agent, runs
// initialize and session/new (or session/load of loadID), sends the prompt,
// and decodes every line into a small struct until the prompt's answer.
func reference(agentBin, state, ws, loadID, promptText string) (result, error) {
	start := time.Now()
	cmd := exec.Command(agentBin, "--state", state)
	cmd.Dir = ws
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return result{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	defer cmd.Wait()
	defer stdin.Close()
	r := bufio.NewReaderSize(stdout, 64<<10)
	type msg struct {
		ID     *int   `json:"id"`
		Method string `json:"method"`
		Params struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
			} `json:"update"`
		} `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	send := func(s string) error { _, err := io.WriteString(stdin, s+"\n"); return err }
	var long []byte
	readUntil := func(id int) (json.RawMessage, int, error) {
		updates := 0
		for {
			line, err := r.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				long = append(long[:0], line...)
				for errors.Is(err, bufio.ErrBufferFull) {
					line, err = r.ReadSlice('\n')
					long = append(long, line...)
				}
				line = long
			}
			if err != nil {
				return nil, updates, fmt.Errorf("agent output: %w", err)
			}
			var m msg
			if err := json.Unmarshal(line, &m); err != nil {
				return nil, updates, err
			}
			if m.Method == "session/update" {
				updates++
			}
			if m.ID != nil && *m.ID == id && m.Method == "" {
				return m.Result, updates, nil
			}
		}
	}
	if err := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`); err != nil {
		return result{}, err
	}
	if _, _, err := readUntil(1); err != nil {
		return result{}, err
	}
	sessionID := loadID
	updates := 0
	if loadID == "" {
		send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + quote(ws) + `,"mcpServers":[]}}`)
		res, _, err := readUntil(2)
		if err != nil {
			return result{}, err
		}
		var s struct {
			SessionID string `json:"sessionId"`
		}
		json.Unmarshal(res, &s)
		sessionID = s.SessionID
	} else {
		send(`{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":` + quote(loadID) + `,"cwd":` + quote(ws) + `,"mcpServers":[]}}`)
		_, n, err := readUntil(2)
		if err != nil {
			return result{}, err
		}
		updates += n
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":` + quote(sessionID) + `,"prompt":[{"type":"text","text":` + quote(promptText) + `}]}}`)
	_, n, err := readUntil(3)
	if err != nil {
		return result{}, err
	}
	updates += n
	stdin.Close()
	cmd.Wait()
	return result{wall: time.Since(start), events: updates}, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
