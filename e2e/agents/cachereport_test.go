package agents_test

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The prompt-cache report (bench/reasonix-cache/run.sh): the design's
// three scenarios run through mnote's window services on real agents,
// offline, against the fake model's simulated DeepSeek prompt cache.
// MNOTE_CACHE_REPORT=FILE runs them all on Reasonix and the baseline agents
// and writes the report to FILE; without it TestCacheReport is a short
// smoke (two turns of scenario A on Reasonix) that checks the figures add
// up.

// cacheScenario is one of the design's scenarios.
type cacheScenario struct {
	key, title string
	bar        float64 // the design's bar for the session's hit rate
	// cli: each turn is its own `mnote prompt` (a new mnote and agent
	// process that loads the session), not a turn in the window.
	cli   bool
	notes []string
	turns []cacheTurnSpec
}

// cacheTurnSpec is one prompt: its text and the note open in the window
// (sent as the prompt's context, as the window does).
type cacheTurnSpec struct{ text, open string }

// cacheTurn is what the model server counted over one turn's requests.
type cacheTurn struct {
	requests  int
	hit, miss int64
	diverged  []string
}

func (c cacheTurn) rate() float64 { return ratio(c.hit, c.miss) }

func ratio(hit, miss int64) float64 {
	if hit+miss == 0 {
		return 0
	}
	return float64(hit) / float64(hit+miss)
}

// cacheRun is one scenario on one agent.
type cacheRun struct {
	agent    string
	scenario cacheScenario
	turns    []cacheTurn
	took     time.Duration
}

func (r cacheRun) rate() float64 {
	var hit, miss int64
	for _, t := range r.turns {
		hit, miss = hit+t.hit, miss+t.miss
	}
	return ratio(hit, miss)
}

func cacheScenarios(short bool) []cacheScenario {
	note := func(i int) string { return fmt.Sprintf("notes/topic-%d.md", i) }
	a := cacheScenario{key: "A", title: "one note edited 5 times in a row", bar: 0.80, notes: []string{note(1)}}
	for i := range 5 {
		a.turns = append(a.turns, cacheTurnSpec{fmt.Sprintf("Add a line 'hi' to %s (edit %d)", note(1), i+1), note(1)})
	}
	if short {
		a.turns = a.turns[:2]
		return []cacheScenario{a}
	}
	b := cacheScenario{key: "B", title: "five notes edited in turn", bar: 0.50}
	for i := range 5 {
		b.notes = append(b.notes, note(i+1))
		b.turns = append(b.turns, cacheTurnSpec{fmt.Sprintf("Add a line 'hi' to %s", note(i+1)), note(i + 1)})
	}
	c := cacheScenario{key: "C", title: "one session of 10 turns", bar: 0.60, notes: []string{note(1), note(2)}}
	for i := range 10 {
		// The person moves between two notes and sometimes has none open.
		n := note(1 + i%2)
		open := n
		if i%3 == 2 {
			open = ""
		}
		c.turns = append(c.turns, cacheTurnSpec{fmt.Sprintf("Add a line 'hi' to %s (turn %d)", n, i+1), open})
	}
	cli := cacheScenario{key: "A-cli", title: "scenario A through `mnote prompt`: a new mnote and agent process each turn (session/load), no open note",
		bar: 0.80, notes: a.notes, cli: true}
	for _, ts := range a.turns {
		cli.turns = append(cli.turns, cacheTurnSpec{text: ts.text})
	}
	return []cacheScenario{a, b, c, cli}
}

// noteText is a note of a few hundred tokens, different for each path.
func noteText(rel string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", strings.TrimSuffix(filepath.Base(rel), ".md"))
	for i := range 12 {
		fmt.Fprintf(&b, "- Point %d of %s: the cache keeps a prompt's prefix, so stable text first and changing text last.\n", i+1, rel)
	}
	return b.String()
}

// runCacheScenario runs one scenario in one session of a fresh world (a
// fresh agent process, so a fresh cache).
func runCacheScenario(t *testing.T, spec agentSpec, sc cacheScenario) cacheRun {
	h := newHarness(t, spec)
	for _, n := range sc.notes {
		if err := os.WriteFile(filepath.Join(h.ws, n), []byte(noteText(n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := cacheRun{agent: spec.name, scenario: sc}
	start := time.Now()
	if sc.cli {
		id := ""
		for _, ts := range sc.turns {
			before := len(h.requests())
			r := h.prompt(id, ts.text, "")
			if r.code != 0 {
				t.Fatalf("%s %s: exit %d\n%s", spec.name, sc.key, r.code, r.stderr)
			}
			id, _ = r.session()["sessionId"].(string)
			run.turns = append(run.turns, h.cacheTurn(before))
		}
	} else {
		h.inApp(func(a *appRun) {
			id := a.create()
			for _, ts := range sc.turns {
				before := len(h.requests())
				args := map[string]any{"id": id, "text": ts.text}
				if ts.open != "" {
					args["context"] = map[string]any{"path": ts.open}
				}
				a.turnWith(args)
				run.turns = append(run.turns, h.cacheTurn(before))
			}
		})
	}
	for i, ct := range run.turns {
		if ct.hit%64 != 0 || ct.hit+ct.miss == 0 {
			t.Errorf("%s %s turn %d: %d hit, %d miss tokens", spec.name, sc.key, i+1, ct.hit, ct.miss)
		}
	}
	run.took = time.Since(start)
	t.Logf("%s scenario %s: hit rate %.1f%% over %d turns in %s", spec.name, sc.key, 100*run.rate(), len(run.turns), run.took.Round(time.Millisecond))
	return run
}

// cacheTurn sums what the model server counted from request before on.
func (h *harness) cacheTurn(before int) cacheTurn {
	var ct cacheTurn
	for _, q := range h.requests()[before:] {
		ct.requests++
		if q.Usage != nil {
			ct.hit += q.Usage.PromptCacheHitTokens
			ct.miss += q.Usage.PromptCacheMissTokens
		}
		if q.CacheDiverged != "" {
			ct.diverged = append(ct.diverged, q.CacheDiverged)
		}
	}
	return ct
}

func TestCacheReport(t *testing.T) {
	out := os.Getenv("MNOTE_CACHE_REPORT")
	if out == "" {
		// The smoke: two turns on Reasonix; the second reuses the first's
		// prefix (its system prompt and tools at least).
		runs := []cacheRun{runCacheScenario(t, reasonix, cacheScenarios(true)[0])}
		if r := runs[0].turns[1].rate(); r < 0.5 {
			t.Errorf("Reasonix, turn 2 of scenario A: hit rate %.2f, want at least 0.5; diverged at %q", r, runs[0].turns[1].diverged)
		}
		if md := cacheReport(runs, ""); !strings.Contains(md, "| A | reasonix |") || !strings.Contains(md, "simulated") {
			t.Errorf("report:\n%s", md)
		}
		return
	}
	agents := []agentSpec{reasonix}
	for _, name := range strings.Split(cmp.Or(os.Getenv("MNOTE_CACHE_BASELINE"), "qwen,opencode"), ",") {
		switch name {
		case "qwen":
			agents = append(agents, qwen)
		case "opencode":
			agents = append(agents, opencode)
		default:
			t.Fatalf("MNOTE_CACHE_BASELINE: %q is not qwen or opencode", name)
		}
	}
	var runs []cacheRun
	for _, spec := range agents {
		for _, sc := range cacheScenarios(false) {
			runs = append(runs, runCacheScenario(t, spec, sc))
		}
	}
	var extra string
	if f := os.Getenv("MNOTE_CACHE_REPORT_NOTES"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		extra = string(b)
	}
	if err := os.WriteFile(out, []byte(cacheReport(runs, extra)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", out)
}

// sparkline draws rates (0…1) as block characters.
func sparkline(rates []float64) string {
	const bars = "▁▂▃▄▅▆▇█"
	r := []rune(bars)
	var b strings.Builder
	for _, x := range rates {
		b.WriteRune(r[min(len(r)-1, max(0, int(x*float64(len(r)-1)+0.5)))])
	}
	return b.String()
}

// trend says how the hit rate goes from the second turn (the first warm
// one) to the last.
func trend(rates []float64) string {
	if len(rates) < 3 {
		return "—"
	}
	d := rates[len(rates)-1] - rates[1]
	switch {
	case d > 0.02:
		return "rising"
	case d < -0.02:
		return "falling"
	}
	return "flat"
}

// cacheReport renders the report; notes (Markdown) goes after the tables.
func cacheReport(runs []cacheRun, notes string) string {
	var b strings.Builder
	b.WriteString(`# Prompt-cache report: Reasonix through mnote

Generated by ` + "`bench/reasonix-cache/run.sh`" + ` (the test TestCacheReport in e2e/agents).

**The cache is simulated; the prompts are real.** Each scenario runs the real,
pinned agent (Reasonix 1.38.11; the baselines Qwen Code 0.24.4 and OpenCode 1.18.33) through mnote's
window services (sessions.create, sessions.prompt with the open note as the
prompt's context, the notes tools over MCP), offline, against mnote's fake
DeepSeek server (cmd/mnote-fakemodel). The agents send the prompts they would
send DeepSeek; the server counts prompt-cache hits the way DeepSeek documents
its cache: the longest prefix of the request's prompt that any earlier request
to the same server sent, in whole units of 64 tokens. The prompt is the system
message(s), then the tool definitions, then the other messages; a token is a
run of ASCII letters and digits or any other single character. A real tokenizer
counts fewer tokens, so the absolute numbers differ from DeepSeek's bill; the
hit rate — where the prompt stops matching — is what this measures.

A turn's figures are the sums over all the model requests of the turn (a read,
an edit, the answer, and any side request the agent makes). The session's hit
rate is over all its turns, the first (cold) one included; the bar is the
design's.

## Sessions

"rewrites" counts the model requests whose prompt changed the text of the
earlier prompt it shares the longest prefix with, instead of extending it:
each is a place where something ahead of stable text changed and the cache
was lost from there on (the server logs where: Request.CacheDiverged).

| scenario | agent | turns | requests | rewrites | hit rate | bar | | per turn | trend |
|---|---|---|---|---|---|---|---|---|---|
`)
	for _, r := range runs {
		var rates []float64
		for _, t := range r.turns {
			rates = append(rates, t.rate())
		}
		ok := "✓"
		if r.rate() < r.scenario.bar {
			ok = "✗"
		}
		reqs, rewrites := 0, 0
		for _, t := range r.turns {
			reqs, rewrites = reqs+t.requests, rewrites+len(t.diverged)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %.1f %% | ≥ %.0f %% | %s | %s | %s |\n", r.scenario.key, r.agent, len(r.turns),
			reqs, rewrites, 100*r.rate(), 100*r.scenario.bar, ok, sparkline(rates), trend(rates))
	}
	for _, r := range runs {
		fmt.Fprintf(&b, "\n## %s — scenario %s: %s\n\n", r.agent, r.scenario.key, r.scenario.title)
		b.WriteString("| turn | requests | prompt_cache_hit_tokens | prompt_cache_miss_tokens | hit rate |\n|---|---|---|---|---|\n")
		var divs []string
		for i, t := range r.turns {
			fmt.Fprintf(&b, "| %d | %d | %d | %d | %.1f %% |\n", i+1, t.requests, t.hit, t.miss, 100*t.rate())
			for _, d := range t.diverged {
				if !slices.Contains(divs, d) {
					divs = append(divs, d)
				}
			}
		}
		if len(divs) > 0 {
			fmt.Fprintf(&b, "\nWhere a prompt rewrote an earlier one instead of extending it (%d places; first shown):\n\n", len(divs))
			for _, d := range divs[:min(3, len(divs))] {
				fmt.Fprintf(&b, "- `%s`\n", strings.ReplaceAll(d, "`", "'"))
			}
		}
	}
	if notes != "" {
		b.WriteString("\n" + strings.TrimSpace(notes) + "\n")
	}
	return b.String()
}
