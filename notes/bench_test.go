package notes

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mnote/store/ftstoken"
)

// benchWords are the words of generated notes: English and Chinese.
var benchWords = strings.Fields("the of and to in is note agent session search index cache design markdown link heading " +
	"缓存 命中率 设计 检索 笔记 搜索 索引 数据 模型 文件 会话 智能体 权限 工具 调用 思考 过程 检查点 撤销 文档 知识库 链接 标题")

// writeNotes writes n notes in n/10 folders, about 2 KB each, and returns
// their paths.
func writeNotes(tb testing.TB, dir string, n int, seed uint64) []string {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []string
	for i := range n {
		rel := fmt.Sprintf("f%03d/note-%05d.md", i%(max(n/10, 1)), i)
		var b strings.Builder
		fmt.Fprintf(&b, "# Note %d 笔记\n\n", i)
		for l := range 30 {
			for w := range 12 {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(benchWords[rng.IntN(len(benchWords))])
			}
			if l%10 == 9 {
				fmt.Fprintf(&b, " [[note-%05d]] uniq%dw%d", rng.IntN(n), i, l)
			}
			b.WriteByte('\n')
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
		out = append(out, rel)
	}
	return out
}

// BenchmarkBuild10k builds the index of 10,000 notes in 1,000 folders,
// against the reference of walking and reading the same files.
func BenchmarkBuild10k(b *testing.B) {
	dir := b.TempDir()
	writeNotes(b, dir, 10000, 1)
	var build, read time.Duration
	for b.Loop() {
		t0 := time.Now()
		var bytes int
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(p)
				bytes += len(data)
			}
			return nil
		})
		read = time.Since(t0)
		ix, err := Open(b.Context(), filepath.Join(b.TempDir(), "n.db"), openWS(b, dir), Options{})
		if err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		st, err := ix.Sync(b.Context(), nil)
		build = time.Since(t0)
		ix.Close()
		if err != nil || st.Notes != 10000 {
			b.Fatalf("%+v %v", st, err)
		}
	}
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(read.Seconds(), "read-s")
	b.ReportMetric(build.Seconds()/read.Seconds(), "x-read")
}

func percentile(lat []time.Duration, p int) time.Duration {
	slices.Sort(lat)
	return lat[len(lat)*p/100]
}

// BenchmarkSearch100k searches 100,000 notes with 200 queries (English,
// Chinese, two words, one Chinese character) and reports p50/p95 against
// the bare FTS5 query.
func BenchmarkSearch100k(b *testing.B) {
	dir := b.TempDir()
	writeNotes(b, dir, 100000, 2)
	ix, err := Open(b.Context(), filepath.Join(b.TempDir(), "n.db"), openWS(b, dir), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	t0 := time.Now()
	if _, err := ix.Sync(b.Context(), nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed 100,000 notes in %v", time.Since(t0).Round(time.Millisecond))
	rng := rand.New(rand.NewPCG(3, 3))
	queries := make([]string, 200)
	for i := range queries {
		switch i % 5 {
		case 0:
			queries[i] = fmt.Sprintf("uniq%dw%d", rng.IntN(100000), 9)
		case 1:
			queries[i] = benchWords[rng.IntN(len(benchWords))] + " " + benchWords[rng.IntN(len(benchWords))]
		case 2:
			queries[i] = "命中率 " + fmt.Sprintf("uniq%dw19", rng.IntN(100000))
		case 3:
			queries[i] = benchWords[16+rng.IntN(len(benchWords)-16)]
		default:
			cjk := []rune("缓命设检笔搜索数模文会智权工调思过检撤档知链标")
			queries[i] = string(cjk[rng.IntN(len(cjk))])
		}
	}
	var p50, p95, r95 time.Duration
	for b.Loop() {
		lat := make([]time.Duration, len(queries))
		ref := make([]time.Duration, len(queries))
		for i, q := range queries {
			t := time.Now()
			if _, err := ix.Search(b.Context(), q, SearchOptions{Limit: 20}); err != nil {
				b.Fatal(err)
			}
			lat[i] = time.Since(t)
			t = time.Now()
			rows, err := ix.r.QueryContext(b.Context(), `SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rank LIMIT 20`, ftstoken.Query(q))
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
			}
			rows.Close()
			ref[i] = time.Since(t)
		}
		p95, r95 = percentile(lat, 95), percentile(ref, 95)
		p50 = lat[len(lat)/2]
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p95), "p95-ms")
	b.ReportMetric(ms(r95), "ref-p95-ms")
	b.ReportMetric(ms(p95)/ms(r95), "x-ref-p95")
}

// BenchmarkChangeSearchable writes a note of a 10,000-note index and
// updates it as the watcher does, until a search finds the new text:
// p95 of 100 changes, against the reference of writing the file alone.
func BenchmarkChangeSearchable(b *testing.B) {
	dir := b.TempDir()
	rels := writeNotes(b, dir, 10000, 4)
	ix, err := Open(b.Context(), filepath.Join(b.TempDir(), "n.db"), openWS(b, dir), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Sync(b.Context(), nil); err != nil {
		b.Fatal(err)
	}
	var p95, w95 time.Duration
	k := 0
	for b.Loop() {
		lat := make([]time.Duration, 100)
		wr := make([]time.Duration, 100)
		for i := range lat {
			k++
			rel := rels[(k*7919)%len(rels)]
			word := fmt.Sprintf("变更%d", k)
			t := time.Now()
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte("# changed\n"+word+" fresh"+fmt.Sprint(k)+"\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			wr[i] = time.Since(t)
			if err := ix.Update(b.Context(), rel); err != nil {
				b.Fatal(err)
			}
			hits, err := ix.Search(b.Context(), "fresh"+fmt.Sprint(k), SearchOptions{})
			if err != nil || len(hits) != 1 || hits[0].Path != rel {
				b.Fatalf("%v %v", hits, err)
			}
			lat[i] = time.Since(t)
		}
		p95, w95 = percentile(lat, 95), percentile(wr, 95)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(p95), "p95-ms")
	b.ReportMetric(ms(w95), "write-p95-ms")
}
