package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"mnote/thread"
)

// Benchmark fixtures are built once per test binary run in a temp folder
// that TestMain removes.
var (
	benchMu   sync.Mutex
	benchRoot string
	benchDirs = map[string]string{}
)

func benchDir(b *testing.B, name string, build func(dir string)) string {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if d, ok := benchDirs[name]; ok {
		return d
	}
	if benchRoot == "" {
		var err error
		if benchRoot, err = os.MkdirTemp("", "mnote-store-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	d := filepath.Join(benchRoot, name)
	if err := os.MkdirAll(d, 0o700); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	build(d)
	b.Logf("built %s fixture in %v", name, time.Since(t0).Round(time.Millisecond))
	benchDirs[name] = d
	return d
}

func cleanupBenchData() {
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
}

// plainEnvelope is the reference decode target: the envelope with the data
// left raw, decoded with encoding/json.
type plainEnvelope struct {
	V    int             `json:"v"`
	Seq  int64           `json:"seq"`
	TsMs int64           `json:"ts_ms"`
	Dir  string          `json:"dir"`
	Kind string          `json:"kind"`
	Data json.RawMessage `json:"data"`
}

// plainRead is the reference: bufio + encoding/json of each line.
func plainRead(b *testing.B, path string) (records int) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var env plainEnvelope
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			b.Fatal(err)
		}
		records++
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return records
}

func dirBytes(b *testing.B, dir string) (files []string, total int64) {
	files, err := listTranscripts(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		fi, _ := os.Stat(f)
		total += fi.Size()
	}
	return files, total
}

// BenchmarkRebuild indexes 300 sessions (~75 MB of JSONL) from scratch and
// reports MB/s against a plain single-threaded bufio + encoding/json read
// of the same files.
func BenchmarkRebuild(b *testing.B) {
	dir := benchDir(b, "rebuild", func(dir string) {
		v := newVocab(11, 20000)
		for i := range 300 {
			id := fmt.Sprintf("sess-%04d", i)
			w, err := CreateTranscript(filepath.Join(dir, id+".jsonl"), WriterOptions{})
			if err != nil {
				b.Fatal(err)
			}
			writeSession(b, w, nil, id, "Session "+id, "/ws", 25, v)
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	files, total := dirBytes(b, dir)
	mb := float64(total) / 1e6

	t0 := time.Now()
	for _, f := range files {
		plainRead(b, f)
	}
	ref := time.Since(t0)

	ix, err := OpenIndex(b.Context(), filepath.Join(b.TempDir(), "mnote.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	var took time.Duration
	for b.Loop() {
		t := time.Now()
		if err := ix.Rebuild(b.Context(), dir, nil); err != nil {
			b.Fatal(err)
		}
		took += time.Since(t)
	}
	rows, _ := ix.ListSessions(b.Context(), ListOptions{Limit: 1000})
	if len(rows) != len(files) {
		b.Fatalf("%d sessions indexed of %d", len(rows), len(files))
	}
	per := took / time.Duration(b.N)
	b.ReportMetric(mb, "MB")
	b.ReportMetric(mb/per.Seconds(), "MB/s")
	b.ReportMetric(mb/ref.Seconds(), "ref-MB/s")
	b.ReportMetric(ref.Seconds()/per.Seconds(), "x-ref")
}

// BenchmarkLoadThread100k loads one transcript of 100,000 entries and
// reports the time and the rate against a plain bufio + encoding/json read
// of the same file.
func BenchmarkLoadThread100k(b *testing.B) {
	dir := benchDir(b, "load100k", func(dir string) {
		w, err := CreateTranscript(filepath.Join(dir, "big.jsonl"), WriterOptions{})
		if err != nil {
			b.Fatal(err)
		}
		writeShaped(b, w, nil, "big", "Big", "/ws", 20_000, newVocab(12, 20000), shape{chunk: 64, permEvery: 4})
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	})
	path := filepath.Join(dir, "big.jsonl")
	fi, _ := os.Stat(path)

	t0 := time.Now()
	records := plainRead(b, path)
	ref := time.Since(t0)

	var took time.Duration
	var entries int
	for b.Loop() {
		t := time.Now()
		th, _, _, err := LoadThread(path)
		if err != nil {
			b.Fatal(err)
		}
		took += time.Since(t)
		entries = th.Len()
	}
	if entries != 100_000 {
		b.Fatalf("%d entries", entries)
	}
	per := took / time.Duration(b.N)
	b.ReportMetric(float64(fi.Size())/1e6, "MB")
	b.ReportMetric(float64(records), "records")
	b.ReportMetric(float64(per.Milliseconds()), "load-ms")
	b.ReportMetric(float64(ref.Milliseconds()), "ref-ms")
	b.ReportMetric(ref.Seconds()/per.Seconds(), "x-ref-rate")
}

// BenchmarkSearch1M searches an index of 1,000,000 messages (built once,
// through the Indexer) with 200 queries and reports p50/p95 latency,
// against the bare FTS5 ranking query as the reference. A third of the
// vocabulary is Chinese words (written without spaces between them), so
// about half the queries hold Chinese, and one in ten is one Chinese
// character.
func BenchmarkSearch1M(b *testing.B) {
	const sessions, turnsPer = 1000, 500 // two messages a turn
	v := newMixedVocab(13, 20000)
	var fixtureBuild time.Duration
	dir := benchDir(b, "search1m-mixed", func(dir string) {
		t0 := time.Now()
		defer func() { fixtureBuild = time.Since(t0) }()
		ix, err := OpenIndex(b.Context(), filepath.Join(dir, "mnote.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer ix.Close()
		buildSearchIndex(b, ix, sessions, turnsPer, v)
	})
	ix, err := OpenIndex(b.Context(), filepath.Join(dir, "mnote.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	var n int
	ix.r.QueryRow(`SELECT count(*) FROM messages_fts`).Scan(&n)
	if n != 2*sessions*turnsPer {
		b.Fatalf("%d FTS rows", n)
	}

	queries := make([]string, 200)
	for i := range queries {
		switch i % 10 {
		case 0, 1, 2, 3: // one word
			queries[i] = v.rareWord()
		case 4, 5, 6: // two words
			queries[i] = v.rareWord() + " " + v.rareWord()
		case 7, 8: // typing the second word
			w := v.rareWord()
			queries[i] = v.rareWord() + " " + w[:min(len(w), 3+i%3)]
		default: // three words, one common; or one Chinese character
			queries[i] = v.words[v.rng.IntN(100)] + " " + v.rareWord() + " " + v.rareWord()
			if i%20 == 19 {
				han := []rune(hanChars)
				queries[i] = string(han[v.rng.IntN(len(han))])
			}
		}
	}
	ctx := context.Background()
	measure := func(run func(q string) int) (p50, p95 time.Duration, hits int) {
		lat := make([]time.Duration, len(queries))
		for i, q := range queries {
			t := time.Now()
			hits += run(q)
			lat[i] = time.Since(t)
		}
		slices.Sort(lat)
		return lat[len(lat)/2], lat[len(lat)*95/100], hits
	}
	var p50, p95, r50, r95 time.Duration
	var hits int
	for b.Loop() {
		p50, p95, hits = measure(func(q string) int {
			h, err := ix.Search(ctx, q, 20)
			if err != nil {
				b.Fatal(err)
			}
			return len(h)
		})
		r50, r95, _ = measure(func(q string) int {
			order := "rank"
			if allOneCJK(q) {
				order = "rowid DESC"
			}
			rows, err := ix.r.QueryContext(ctx, `SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY `+order+` LIMIT 20`, ftsQuery(q))
			if err != nil {
				b.Fatal(err)
			}
			k := 0
			for rows.Next() {
				k++
			}
			rows.Close()
			return k
		})
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(float64(fixtureBuild.Seconds()), "build-s")
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p95), "p95-ms")
	b.ReportMetric(ms(r95), "ref-p95-ms")
	b.ReportMetric(ms(r50), "ref-p50-ms")
	b.ReportMetric(float64(hits)/float64(len(queries)), "hits/query")
	b.ReportMetric(ms(p95)/ms(r95), "x-ref-p95")
}

// buildSearchIndex feeds sessions of prompt + answer turns through
// Indexers (with hints, as live) and flushes them as Rebuild does, 50
// sessions (50,000 messages) a transaction.
func buildSearchIndex(b testing.TB, ix *Index, sessions, turnsPer int, v *vocab) {
	t0 := time.Now()
	var pending []*Indexer
	for s := range sessions {
		id := fmt.Sprintf("s%05d", s)
		x := ix.NewIndexer(id)
		x.live = false
		seq := int64(0)
		rec := func(dir, kind string, data []byte) Record {
			seq++
			return Record{V: 1, Seq: seq, TsMs: 1_700_000_000_000 + seq, Dir: dir, Kind: kind, Data: data}
		}
		x.Observe(rec(DirApp, KindSession, fmt.Appendf(nil, `{"id":%q,"title":"Session %d","workspace":"/ws","createdMs":1}`, id, s)), nil)
		for t := 1; t <= turnsPer; t++ {
			x.Observe(rec(DirApp, KindTurnStarted, fmt.Appendf(nil, `{"turn":%d}`, t)), nil)
			prompt := v.sentence(12)
			x.Observe(rec(DirApp, KindPrompt, fmt.Appendf(nil, `{"turn":%d,"blocks":[{"type":"text","text":%q}],"text":%q}`, t, prompt, prompt)), nil)
			answer := v.sentence(40)
			content, _ := json.Marshal(thread.ContentBlock{Type: "text", Text: answer})
			u := &thread.Update{SessionUpdate: thread.KindAgentMessageChunk, Content: content}
			x.Observe(rec(DirIn, KindSessionUpdate, nil), u)
			x.Observe(rec(DirApp, KindTurnEnded, fmt.Appendf(nil, `{"turn":%d,"stopReason":"end_turn"}`, t)), nil)
		}
		pending = append(pending, x)
		if len(pending) == 50 || s == sessions-1 {
			if err := ix.flushAll(context.Background(), pending); err != nil {
				b.Fatal(err)
			}
			pending = pending[:0]
		}
	}
	b.Logf("indexed %d messages in %v", 2*sessions*turnsPer, time.Since(t0).Round(time.Millisecond))
}
