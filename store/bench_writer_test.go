package store

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"mnote/thread"
)

// cpuTimes returns the process's user and system CPU time.
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// BenchmarkAppend200k appends 200,000 records of ~200 bytes (one line,
// envelope included) and reports the process CPU time (user and system,
// the system part being mostly the kernel copying 40 MB into the page
// cache) per 200k, against json.Marshal of the same envelopes as the
// reference.
func BenchmarkAppend200k(b *testing.B) {
	const n = 200_000
	data := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`)
	dir := b.TempDir()
	var user, sys, wall time.Duration
	var w0size int64
	for i := 0; b.Loop(); i++ {
		w, err := CreateTranscript(filepath.Join(dir, strconv.Itoa(i)+".jsonl"), WriterOptions{})
		if err != nil {
			b.Fatal(err)
		}
		u0, s0 := cpuTimes()
		t0 := time.Now()
		for range n {
			if _, err := w.Append(DirIn, KindSessionUpdate, data); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0)
		u1, s1 := cpuTimes()
		user += u1 - u0
		sys += s1 - s0
		w0size = w.Size()
		w.Close()
	}
	type env struct {
		V    int             `json:"v"`
		Seq  int64           `json:"seq"`
		TsMs int64           `json:"ts_ms"`
		Dir  string          `json:"dir"`
		Kind string          `json:"kind"`
		Data json.RawMessage `json:"data"`
	}
	t0 := time.Now()
	for i := range n {
		json.Marshal(env{1, int64(i), 1, DirIn, KindSessionUpdate, data})
	}
	ref := time.Since(t0)
	b.ReportMetric(float64(user.Milliseconds())/float64(b.N), "user-ms/200k")
	b.ReportMetric(float64(sys.Milliseconds())/float64(b.N), "sys-ms/200k")
	b.ReportMetric(float64(w0size)/n, "bytes/record")
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms/200k")
	b.ReportMetric(float64(ref)/float64(wall)*float64(b.N), "x-faster-than-json.Marshal")
}

// BenchmarkObserve200k streams 200,000 agent_message_chunk records with
// their decoded updates (as the live path has them) through a live
// Indexer, flushing at the end like a turn end. It reports the process CPU
// time of the Observe calls (automatic flushes included) and of the last
// flush, and the transactions written, against thread.Apply of the same
// updates alone (the least any live path does with them).
func BenchmarkObserve200k(b *testing.B) {
	const n = 200_000
	ix, err := OpenIndex(b.Context(), filepath.Join(b.TempDir(), "mnote.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	v := newVocab(21, 5000)
	updates := make([]*thread.Update, 1000)
	datas := make([][]byte, len(updates))
	for i := range updates {
		text := v.word() + " "
		content, _ := json.Marshal(thread.ContentBlock{Type: "text", Text: text})
		updates[i] = &thread.Update{SessionUpdate: thread.KindAgentMessageChunk, Content: content}
		datas[i] = []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":` + string(content) + `}}}`)
	}
	var observe, flush, ref time.Duration
	var flushes int
	for i := 0; b.Loop(); i++ {
		x := ix.NewIndexer("obs-" + strconv.Itoa(i))
		seq := int64(0)
		rec := func(dir, kind string, data []byte) Record {
			seq++
			return Record{V: 1, Seq: seq, TsMs: 1_700_000_000_000 + seq, Dir: dir, Kind: kind, Data: data, End: seq * 200}
		}
		x.Observe(rec(DirApp, KindSession, []byte(`{"id":"x","title":"t","workspace":"/ws","createdMs":1}`)), nil)
		x.Observe(rec(DirApp, KindTurnStarted, []byte(`{"turn":1}`)), nil)
		x.Observe(rec(DirApp, KindPrompt, []byte(`{"turn":1,"blocks":[{"type":"text","text":"go"}],"text":"go"}`)), nil)
		u0, s0 := cpuTimes()
		for j := range n {
			x.Observe(rec(DirIn, KindSessionUpdate, datas[j%len(datas)]), updates[j%len(updates)])
		}
		x.Observe(rec(DirApp, KindTurnEnded, []byte(`{"turn":1,"stopReason":"end_turn"}`)), nil)
		u1, s1 := cpuTimes()
		if err := x.Flush(); err != nil {
			b.Fatal(err)
		}
		u2, s2 := cpuTimes()
		observe += u1 - u0 + s1 - s0
		flush += u2 - u1 + s2 - s1
		flushes += x.flushes

		th := thread.New()
		th.AddUserPrompt([]thread.ContentBlock{{Type: "text", Text: "go"}})
		t0 := time.Now()
		for j := range n {
			th.Apply(updates[j%len(updates)])
		}
		ref += time.Since(t0)
	}
	if info := ix.NewIndexer("x").Info(); info.ID != "x" {
		b.Fatal(info)
	}
	b.ReportMetric(float64(observe.Microseconds())/1000/float64(b.N), "observe-cpu-ms")
	b.ReportMetric(float64(flush.Microseconds())/1000/float64(b.N), "last-flush-cpu-ms")
	b.ReportMetric(float64(flushes)/float64(b.N), "tx/200k")
	b.ReportMetric(float64(ref.Microseconds())/1000/float64(b.N), "ref-apply-ms")
	b.ReportMetric(float64(observe)/float64(ref), "x-ref")
}
