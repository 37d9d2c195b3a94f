package workspace_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"mnote/workspace"
)

// The speed targets of issue 5, on a workspace of 10,000 Markdown files in
// 1,000 folders: the full tree in under 1 s, the watcher set up in under
// 2 s, an external change delivered within 300 ms. bench/workspace/run.sh
// prints the figures against them.

const (
	benchFolders  = 1000
	benchPerDir   = 10
	benchTopLevel = 20 // folders at the top; the rest nested below them
)

var (
	bigOnce sync.Once
	bigDir  string
	bigErr  error
)

// bigWorkspace builds the 10,000-file workspace once per test binary (it
// is removed by TestMain).
func bigWorkspace(b *testing.B) string {
	b.Helper()
	bigOnce.Do(func() {
		bigDir, bigErr = os.MkdirTemp("", "mnote-bench-ws-")
		if bigErr != nil {
			return
		}
		body := strings.Repeat("Some text of a note, with a [link](other.md) and *emphasis*.\n", 16)
		for d := 0; d < benchFolders; d++ {
			var folder string
			if d < benchTopLevel {
				folder = fmt.Sprintf("area %02d", d)
			} else {
				folder = filepath.Join(fmt.Sprintf("area %02d", d%benchTopLevel), fmt.Sprintf("topic %03d", d))
			}
			if bigErr = os.MkdirAll(filepath.Join(bigDir, folder), 0o755); bigErr != nil {
				return
			}
			for f := 0; f < benchPerDir; f++ {
				p := filepath.Join(bigDir, folder, fmt.Sprintf("note %d.md", f))
				if bigErr = os.WriteFile(p, []byte(fmt.Sprintf("# Note %d/%d\n\n%s", d, f, body)), 0o644); bigErr != nil {
					return
				}
			}
		}
	})
	if bigErr != nil {
		b.Fatalf("build the benchmark workspace: %v", bigErr)
	}
	return bigDir
}

// BenchmarkTree10k: the full tree (every folder and Markdown file) of the
// 10,000-file workspace. Target: under 1 s.
func BenchmarkTree10k(b *testing.B) {
	dir := bigWorkspace(b)
	w, _ := openDir(b, dir, workspace.Options{})
	b.ResetTimer()
	for b.Loop() {
		t, err := w.Tree(workspace.TreeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(t.Children); n != benchTopLevel {
			b.Fatalf("%d top-level folders", n)
		}
	}
}

// BenchmarkFind10k: one @-mention query over the 10,000 files.
func BenchmarkFind10k(b *testing.B) {
	dir := bigWorkspace(b)
	w, _ := openDir(b, dir, workspace.Options{})
	for b.Loop() {
		if ms, err := w.Find("topic 5 note 3", workspace.FindOptions{}); err != nil || len(ms) == 0 {
			b.Fatalf("find: %d, %v", len(ms), err)
		}
	}
}

// BenchmarkWatchSetup10k: Watch on the 10,000-file workspace (one inotify
// watch per folder, every folder read). Target: under 2 s.
func BenchmarkWatchSetup10k(b *testing.B) {
	dir := bigWorkspace(b)
	for b.Loop() {
		w, err := workspace.Open(dir, workspace.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Watch(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		w.Close()
		b.StartTimer()
	}
}

// BenchmarkWatchLatency10k: from an external write to a file deep in the
// 10,000-file workspace to the subscriber's callback (the debounce
// included). Reports p50 and p95 in ms. Target: under 300 ms.
func BenchmarkWatchLatency10k(b *testing.B) {
	dir := bigWorkspace(b)
	w, _ := openDir(b, dir, workspace.Options{})
	seen := make(chan string, 64)
	w.Subscribe(func(e workspace.Event) {
		for _, c := range e.Changes {
			seen <- c.Path
		}
	})
	if err := w.Watch(); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		d := benchTopLevel + (i*37)%(benchFolders-benchTopLevel) // a nested folder
		rel := fmt.Sprintf("area %02d/topic %03d/note %d.md", d%benchTopLevel, d, i%benchPerDir)
		start := time.Now()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(fmt.Sprintf("# changed %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		timeout := time.After(10 * time.Second)
	wait:
		for {
			select {
			case p := <-seen:
				if p == rel {
					break wait
				}
			case <-timeout:
				b.Fatalf("no event for %s", rel)
			}
		}
		lat = append(lat, time.Since(start))
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*95/100)]), "p95-ms")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkCheckpointPrime10k: the first scan of the 10,000-file
// workspace into an empty checkpoint store (reads and stores everything;
// runs in the background from Open).
func BenchmarkCheckpointPrime10k(b *testing.B) {
	dir := bigWorkspace(b)
	for b.Loop() {
		b.StopTimer()
		state := b.TempDir()
		b.StartTimer()
		w, err := workspace.Open(dir, workspace.Options{StateDir: state})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Checkpoints().Ready(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		w.Close()
		b.StartTimer()
	}
}

// BenchmarkTurn10k: BeginTurn, an agent-like write of one file on disk,
// EndTurn (stored checkpoint) on the 10,000-file workspace, primed.
func BenchmarkTurn10k(b *testing.B) {
	dir := bigWorkspace(b)
	w, _ := openDir(b, dir, workspace.Options{StateDir: b.TempDir()})
	cps := w.Checkpoints()
	if err := cps.Ready(); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "area 00", "note 0.md")
	orig, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.WriteFile(p, orig, 0o644) })
	i := 0
	for b.Loop() {
		id := fmt.Sprint("bench-", i)
		if err := cps.BeginTurn(id); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# turn %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		cp, err := cps.EndTurn(id)
		if err != nil || len(cp.Files) != 1 {
			b.Fatalf("end turn: %+v, %v", cp, err)
		}
		i++
	}
}
