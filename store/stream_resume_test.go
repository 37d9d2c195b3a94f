package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"mnote/store/sqlitedb"
	"mnote/thread"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// copyIndex copies a closed index (with its -wal and -shm, if any) into a
// new folder and opens the copy.
func copyIndex(t *testing.T, src string) *Index {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "mnote.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(src + suffix)
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		}
		must(t, err)
		must(t, os.WriteFile(dst+suffix, b, 0o600))
	}
	ix, err := OpenIndex(t.Context(), dst)
	must(t, err)
	t.Cleanup(func() { ix.Close() })
	return ix
}

// writeLong writes, through s (whose Indexer, if any, observes live), a
// session of four turns with over 2,000 updates: a long thought and a
// long answer in small chunks, short answers split by tool calls, many
// tool calls, and a fourth turn left open mid-answer.
func writeLong(t *testing.T, s *sessionScript, v *vocab) {
	t.Helper()
	s.start("Long one", "/ws/long", 1_700_000_000_000)
	s.prompt("explain the quokka " + v.sentence(10))
	s.answer("agent_thought_chunk", v.sentence(300), 16)
	s.answer("agent_message_chunk", "quokka "+v.sentence(1500), 5)
	s.toolCall("edit", "Edit notes/a.md", "allow_once")
	s.answer("agent_message_chunk", "Short one: wombat.", 5)
	s.end("end_turn", 100, 200)
	s.prompt("and the numbat?")
	s.answer("agent_message_chunk", "Looking at the numbat.", 4)
	s.toolCall("read", "Read notes/b.md", "")
	s.answer("agent_message_chunk", "Found it.", 4)
	s.toolCall("edit", "Edit notes/b.md", "reject_once")
	s.answer("agent_thought_chunk", v.sentence(40), 8)
	s.answer("agent_message_chunk", "Done with the numbat.", 4)
	s.end("end_turn", 110, 210)
	s.prompt("list every bilby")
	for range 40 {
		s.toolCall("read", "Read notes/c.md", "")
	}
	s.answer("agent_message_chunk", "bilby "+v.sentence(600), 10)
	s.end("end_turn", 120, 220)
	s.prompt("last: the dugong")
	s.answer("agent_thought_chunk", v.sentence(20), 8)
	s.answer("agent_message_chunk", "The dugong "+v.sentence(50), 7)
	must(t, s.err)
}

func TestResumeStreamIndexerMatchesWhole(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	v := newVocab(11, 3000)
	const id = "long"
	path := e.p.TranscriptPath(id)
	s := liveScript(t, e, id, func(s *sessionScript) { writeLong(t, s, v) })
	row, err := e.ix.GetSession(ctx, id)
	must(t, err)
	lastSeq := s.w.Seq()
	e.ix.Close()
	ixA, ixB := copyIndex(t, e.p.DB), copyIndex(t, e.p.DB)

	w, err := OpenTranscript(path, WriterOptions{}) // first, as the app does
	must(t, err)
	xa, err := ixA.ResumeStreamIndexer(ctx, path)
	must(t, err)
	xb, err := ixB.ResumeIndexer(ctx, path)
	must(t, err)
	ia, ib := xa.Info(), xb.Info()
	if !reflect.DeepEqual(ia, ib) {
		t.Fatalf("Info differs\nstream: %+v\nwhole:  %+v", ia, ib)
	}
	if ia.Turns != row.Turns || ia.Messages != row.Messages || ia.ToolCalls != row.ToolCalls || ia.Updates != row.Updates ||
		ia.Turns != 4 || ia.Updates < 2000 || ia.ToolCalls < 40 || ia.Status != StatusRunning {
		t.Fatalf("info %+v\nrow %+v", ia, row)
	}
	whole, _, _, err := LoadThread(path)
	must(t, err)
	if n := len(xb.Thread().Entries()); n != len(whole.Entries()) || n != whole.Len() || n < 50 {
		t.Errorf("whole resume keeps %d entries, the transcript has %d", n, whole.Len())
	}
	if n := len(xa.Thread().Entries()); n > 4 || n == 0 || xa.Thread().Len() != whole.Len() {
		t.Errorf("stream resume keeps %d entries of %d (Len %d)", n, whole.Len(), xa.Thread().Len())
	}

	// The same records go on, observed by both.
	s = newScriptAt(s, w)
	s.answer("agent_message_chunk", " and the platypus "+v.sentence(30), 7) // the open message goes on
	s.toolCall("edit", "Edit notes/d.md", "allow_once")
	s.answer("agent_message_chunk", "echidna too.", 4)
	s.end("end_turn", 130, 230)
	s.prompt("one more: axolotl")
	s.answer("agent_message_chunk", "Axolotl "+v.sentence(100), 9)
	s.end("end_turn", 140, 240)
	must(t, s.err)
	must(t, w.Close())
	_, err = ReadTranscript(path, func(rec Record) error {
		if rec.Seq > lastSeq {
			rec.Data = bytes.Clone(rec.Data)
			xa.Observe(rec, nil)
			xb.Observe(rec, nil)
		}
		return nil
	})
	must(t, err)
	for _, x := range []*Indexer{xa, xb} {
		must(t, x.Flush())
	}
	if ia, ib := xa.Info(), xb.Info(); !reflect.DeepEqual(ia, ib) || ia.Turns != 5 || ia.Status != "ready" {
		t.Fatalf("after more records, Info differs\nstream: %+v\nwhole:  %+v", ia, ib)
	}
	if n := len(xa.Thread().Entries()); n > 4 {
		t.Errorf("stream thread keeps %d entries after more records", n)
	}
	da, db := (&testEnv{p: e.p, ix: ixA}).dump(t), (&testEnv{p: e.p, ix: ixB}).dump(t)
	if !reflect.DeepEqual(da, db) {
		t.Fatalf("indexes differ\nstream: %+v\nwhole:  %+v", da.Sessions, db.Sessions)
	}
	fi, _ := os.Stat(path)
	if r := da.Sessions[0]; r.IndexedBytes != fi.Size() || r.TranscriptBytes != fi.Size() || r.Turns != 5 || r.IndexedSeq != w.Seq() {
		t.Errorf("session row %+v, file %d bytes, %d records", r, fi.Size(), w.Seq())
	}
	queries := []string{"quokka", "wombat", "numbat", "bilby", "dugong", "platypus", "dugong platypus", "echidna", "axolotl", "the", v.words[200], v.words[900]}
	for _, q := range queries {
		ha, err := ixA.Search(ctx, q, 100)
		must(t, err)
		hb, err := ixB.Search(ctx, q, 100)
		must(t, err)
		if !reflect.DeepEqual(ha, hb) {
			t.Errorf("search %q: stream %+v\nwhole %+v", q, ha, hb)
		}
		if len(ha) == 0 && q != v.words[200] && q != v.words[900] {
			t.Errorf("search %q: no hit", q)
		}
	}
	// The continued message is one row holding both parts, and the short
	// answer after the tool call joined it.
	if hits, _ := ixA.Search(ctx, "dugong platypus echidna", 10); len(hits) != 1 || len(hits[0].Entries) != 2 {
		t.Errorf("continued message: %+v", hits)
	}
	// And both are what a rebuild makes of the transcript.
	sameAsRebuild(t, &testEnv{p: e.p, ix: copyIndex(t, ixA.Path())}, da)
}

// newScriptAt is a copy of s (its turn, tool and request numbering) that
// writes to w and observes nothing.
func newScriptAt(s *sessionScript, w *Writer) *sessionScript {
	c := *s
	c.w, c.x = w, nil
	return &c
}

// writeTagged writes a session whose every message holds a word of its
// own ("tg<n>x"), ending mid-answer when open is set.
func writeTagged(t *testing.T, s *sessionScript, turns int, open bool) {
	t.Helper()
	v := newVocab(21, 2000)
	n := 0
	tag := func() string { n++; return fmt.Sprintf("tg%dx", n) }
	s.start("Tagged", "/ws", 1_700_000_000_000)
	for i := range turns {
		s.prompt("question " + tag() + " " + v.sentence(5))
		s.answer("agent_thought_chunk", v.sentence(30), 9)
		s.answer("agent_message_chunk", "Long answer "+tag()+" "+v.sentence(200+100*i), 7)
		s.toolCall("read", "Read notes/b.md", "")
		s.answer("agent_message_chunk", "short "+tag(), 4)
		s.toolCall("edit", "Edit notes/a.md", "allow_once")
		s.answer("agent_message_chunk", "shorter "+tag(), 4)
		s.end("end_turn", 10, 20)
	}
	if open {
		s.prompt("open question " + tag())
		s.answer("agent_message_chunk", "streaming "+tag()+" "+v.sentence(40), 6)
	}
	must(t, s.err)
}

var tagRE = regexp.MustCompile(`tg\d+x`)

// checkTagsSearchable finds every message's tag with Search, on the
// entry that holds it.
func checkTagsSearchable(t *testing.T, ix *Index, path string) int {
	t.Helper()
	th, _, _, err := LoadThread(path)
	must(t, err)
	n := 0
	for _, ent := range th.Entries() {
		if ent.Kind != thread.EntryUserMessage && ent.Kind != thread.EntryAssistantMessage {
			continue
		}
		for _, tag := range tagRE.FindAllString(ent.Text, -1) {
			n++
			hits, err := ix.Search(t.Context(), tag, 10)
			must(t, err)
			if len(hits) != 1 || !strings.Contains(" "+strings.Join(hits[0].Entries, " ")+" ", " "+ent.ID+" ") {
				t.Errorf("tag %s of entry %s: hits %+v", tag, ent.ID, hits)
			}
		}
	}
	return n
}

// changes is SQLite's count of rows written on the index's one writer
// connection.
func changes(t *testing.T, ix *Index) int64 {
	t.Helper()
	var n int64
	must(t, ix.w.QueryRowContext(t.Context(), `SELECT total_changes()`).Scan(&n))
	return n
}

// liveScript writes a session with write the way the app does (Writer
// and live Indexer, flushed at the end) and returns its script.
func liveScript(t *testing.T, e *testEnv, id string, write func(*sessionScript)) *sessionScript {
	t.Helper()
	path := e.p.TranscriptPath(id)
	w, err := CreateTranscript(path, WriterOptions{})
	must(t, err)
	s := newScript(w, id)
	s.x = e.ix.NewIndexer(id)
	s.x.SetPath(path)
	write(s)
	must(t, w.Close())
	must(t, s.x.Flush())
	return s
}

// sameAsRebuild checks that a rebuild of the index gives want, but for a
// session left running by a Writer that is gone: it is interrupted.
func sameAsRebuild(t *testing.T, e *testEnv, want indexDump) {
	t.Helper()
	want.Sessions = slices.Clone(want.Sessions)
	for i, r := range want.Sessions {
		if r.Status == StatusRunning && writerGone(e.p.TranscriptPath(r.ID)) {
			want.Sessions[i].Status = StatusInterrupted
		}
	}
	must(t, e.ix.Rebuild(t.Context(), e.p.Transcripts, nil))
	if got := e.dump(t); !reflect.DeepEqual(want, got) {
		t.Errorf("resumed index differs from a rebuild\n%+v\n%+v", want.FTS, got.FTS)
	}
}

// When the index covers the whole file, resuming writes nothing; what
// comes next is indexed, the message that was streaming included.
func TestResumeCoveredWritesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	const id = "cov"
	path := e.p.TranscriptPath(id)
	s := liveScript(t, e, id, func(s *sessionScript) { writeTagged(t, s, 3, true) })
	before := e.dump(t)
	if row := before.Sessions[0]; row.Status != StatusRunning {
		t.Fatalf("row %+v", row)
	}
	rows := e.count(t, "SELECT count(*) FROM messages_fts")
	for _, resume := range []func(context.Context, string) (*Indexer, error){e.ix.ResumeStreamIndexer, e.ix.ResumeIndexer} {
		c0 := changes(t, e.ix)
		x, err := resume(ctx, path)
		must(t, err)
		if x.flushes != 0 || changes(t, e.ix) != c0 {
			t.Errorf("resume of a covered file wrote: %d flushes, %d rows changed", x.flushes, changes(t, e.ix)-c0)
		}
	}
	if after := e.dump(t); !reflect.DeepEqual(before, after) {
		t.Fatal("resume of a covered file changed the index")
	}

	w, err := OpenTranscript(path, WriterOptions{})
	must(t, err)
	x, err := e.ix.ResumeStreamIndexer(ctx, path)
	must(t, err)
	s = newScriptAt(s, w)
	s.x = x
	s.answer("agent_message_chunk", " then tg900x follows", 5) // the open message goes on
	s.end("end_turn", 1, 1)
	s.prompt("later tg901x")
	s.answer("agent_message_chunk", "answer tg902x", 5)
	s.end("end_turn", 1, 1)
	must(t, s.err)
	must(t, w.Close())
	must(t, x.Flush())
	if x.flushes == 0 {
		t.Error("no flush after new records")
	}
	if got := e.count(t, "SELECT count(*) FROM messages_fts"); got != rows+2 {
		t.Errorf("%d FTS rows, want %d (the open message rewritten in place, two new)", got, rows+2)
	}
	hits, err := e.ix.Search(ctx, "streaming tg900x", 10)
	if err != nil || len(hits) != 1 {
		t.Errorf("continued message: %+v %v", hits, err)
	}
	if n := checkTagsSearchable(t, e.ix, path); n != 3*4+2+3 {
		t.Errorf("%d tags, want 17", n)
	}
	sameAsRebuild(t, e, e.dump(t))
}

// When the index does not cover the file, resuming writes its rows again.
func TestResumeStaleRewrites(t *testing.T) {
	for _, stale := range []string{"indexed_bytes", "removed"} {
		for _, open := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/open=%v", stale, open), func(t *testing.T) {
				e := newEnv(t)
				ctx := t.Context()
				const id = "stale"
				path := e.p.TranscriptPath(id)
				liveScript(t, e, id, func(s *sessionScript) { writeTagged(t, s, 3, open) })
				want := e.dump(t)
				tags := 3 * 4 // one in every message
				if open {
					tags += 2
				}
				switch stale {
				case "indexed_bytes":
					_, err := e.ix.w.ExecContext(ctx, `UPDATE sessions SET indexed_bytes = 1 WHERE id = ?`, id)
					must(t, err)
				case "removed":
					must(t, e.ix.Remove(ctx, id))
					if hits, _ := e.ix.Search(ctx, "tg1x", 10); len(hits) != 0 {
						t.Fatalf("removed session searchable: %+v", hits)
					}
				}
				c0 := changes(t, e.ix)
				x, err := e.ix.ResumeStreamIndexer(ctx, path)
				must(t, err)
				if x.flushes != 1 || changes(t, e.ix)-c0 < int64(len(want.FTS)) {
					t.Errorf("stale resume: %d flushes, %d rows changed, %d FTS rows", x.flushes, changes(t, e.ix)-c0, len(want.FTS))
				}
				got := e.dump(t)
				if !reflect.DeepEqual(want, got) {
					t.Errorf("rewritten index differs\nwant %+v\ngot  %+v", want.Sessions, got.Sessions)
				}
				fi, _ := os.Stat(path)
				if r := got.Sessions[0]; r.IndexedBytes != fi.Size() {
					t.Errorf("row covers %d bytes of %d", r.IndexedBytes, fi.Size())
				}
				if n := checkTagsSearchable(t, e.ix, path); n != tags {
					t.Errorf("%d tags, want %d", n, tags)
				}
				sameAsRebuild(t, e, got)
			})
		}
	}
}

func hashSize(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	must(t, db.QueryRowContext(t.Context(), `SELECT v FROM messages_fts_config WHERE k = 'hashsize'`).Scan(&n))
	return n
}

func TestFTSHashSize(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if n := hashSize(t, e.ix.r); n != 262144 {
		t.Fatalf("new index: hashsize %d", n)
	}
	v := newVocab(31, 1000)
	for i := range 3 {
		e.liveSession(t, fmt.Sprintf("h%d", i), "", "/ws", 2, v)
	}
	var during []int
	// Read from the progress callback, on another connection.
	must(t, e.ix.Rebuild(ctx, e.p.Transcripts, func(done, total int) { during = append(during, hashSize(t, e.ix.r)) }))
	if !slices.Equal(during, []int{8388608, 8388608, 8388608}) {
		t.Errorf("hashsize during the rebuild: %v, want 8388608 at each of 3 files", during)
	}
	if n := hashSize(t, e.ix.r); n != 262144 {
		t.Errorf("after the rebuild: hashsize %d", n)
	}

	// A rebuild cut short (a crash) leaves the big buffer in the file.
	e.ix.Close()
	db, err := sql.Open("sqlite3", sqlitedb.DSN(e.p.DB, "_busy_timeout=5000"))
	must(t, err)
	_, err = db.ExecContext(ctx, `INSERT INTO messages_fts(messages_fts, rank) VALUES('hashsize', 8388608)`)
	must(t, err)
	if n := hashSize(t, db); n != 8388608 {
		t.Fatalf("set hashsize: %d", n)
	}
	db.Close()
	ix, err := OpenIndex(ctx, e.p.DB)
	must(t, err)
	defer ix.Close()
	if n := hashSize(t, ix.r); n != 262144 {
		t.Errorf("reopened: hashsize %d, want 262144", n)
	}
}

// writeLog logs the sizes of the writes and fails write number failAt
// (1-based; 0: none) after passing keep bytes of it to the file.
type writeLog struct {
	fileWriter
	lens         []int
	failAt, keep int
}

func (f *writeLog) Write(b []byte) (int, error) {
	f.lens = append(f.lens, len(b))
	if len(f.lens) == f.failAt {
		k, _ := f.fileWriter.Write(b[:min(f.keep, len(b))])
		return k, syscall.ENOSPC
	}
	return f.fileWriter.Write(b)
}

// hugeData is a JSON value of exactly n bytes.
func hugeData(n int, c byte) []byte {
	b := append([]byte(`{"text":"`), bytes.Repeat([]byte{c}, n-len(`{"text":""}`))...)
	for i := 9; i < len(b); i += 4099 {
		b[i] = 'a' + byte(i%26)
	}
	return append(b, `"}`...)
}

func TestHugeRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	var wl *writeLog
	now := int64(1000)
	w, err := CreateTranscript(path, WriterOptions{Now: func() int64 { now++; return now }, FlushDelay: time.Hour,
		wrap: func(f fileWriter) fileWriter { wl = &writeLog{fileWriter: f}; return wl }})
	must(t, err)
	const huge = 3 << 20
	datas := [][]byte{[]byte(`{"a":1}`), hugeData(huge, 'x'), []byte(`{"a":2}`), []byte(`{"a":3}`), hugeData(huge, 'y'), hugeData(huge, 'z'), []byte(`{"a":4}`)}
	var want []byte
	for i, d := range datas {
		before := len(wl.lens)
		rec, err := w.AppendRecord(DirIn, KindSessionUpdate, d)
		must(t, err)
		want = appendRecord(want, rec.Seq, rec.TsMs, DirIn, KindSessionUpdate, d)
		if rec.Seq != int64(i+1) || rec.End != w.Size() || rec.End != int64(len(want)) {
			t.Fatalf("record %d: seq %d end %d, Size %d, want end %d", i, rec.Seq, rec.End, w.Size(), len(want))
		}
		if len(d) == huge {
			head := len(appendRecordHead(nil, rec.Seq, rec.TsMs, DirIn, KindSessionUpdate))
			got := wl.lens[before:]
			if n := len(got); n < 3 || got[n-3] != head || got[n-2] != huge || got[n-1] != len(recordTail) {
				t.Errorf("huge record %d written as %v, want ... %d %d %d", i, got, head, huge, len(recordTail))
			}
		}
	}
	must(t, w.Flush())
	if fi, err := os.Stat(path); err != nil || fi.Size() != w.Size() {
		t.Fatalf("Size %d, file %v %v", w.Size(), fi.Size(), err)
	}
	must(t, w.Close())
	if raw, _ := os.ReadFile(path); !bytes.Equal(raw, want) {
		t.Fatalf("file of %d bytes differs from the %d bytes of the records", len(raw), len(want))
	}
	recs, st := readAll(t, path)
	if len(recs) != len(datas) || st.Torn || st.Corrupt != 0 || st.Bytes != int64(len(want)) || st.LastSeq != int64(len(datas)) {
		t.Fatalf("read back %d records, %+v", len(recs), st)
	}
	for i, r := range recs {
		if r.Seq != int64(i+1) || !bytes.Equal(r.Data, datas[i]) {
			t.Errorf("record %d: seq %d, %d bytes of data, want %d", i, r.Seq, len(r.Data), len(datas[i]))
		}
	}
}

// A huge record's write fails: the error is returned and sticky, and
// reopening repairs the torn tail.
func TestHugeRecordWriteFails(t *testing.T) {
	for _, c := range []struct {
		name         string
		failAt, keep int
		kept         bool // the record survives: it lost only its newline
	}{
		{"head", 1, 10, false},
		{"data", 2, 1 << 20, false},
		{"tail", 3, 0, false},
		{"newline", 3, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "huge.jsonl")
			var wl *writeLog
			w, err := CreateTranscript(path, WriterOptions{FlushDelay: time.Hour,
				wrap: func(f fileWriter) fileWriter { wl = &writeLog{fileWriter: f, keep: c.keep}; return wl }})
			must(t, err)
			small := [][]byte{[]byte(`{"a":1}`), []byte(`{"a":2}`), []byte(`{"a":3}`)}
			for _, d := range small {
				_, err := w.Append(DirIn, KindSessionUpdate, d)
				must(t, err)
			}
			must(t, w.Flush())
			good, _ := os.ReadFile(path)
			wl.failAt = len(wl.lens) + c.failAt // the huge record's head is write 1
			big := hugeData(3<<20, 'q')
			if _, err := w.AppendRecord(DirIn, KindSessionUpdate, big); !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("huge append: %v, want ENOSPC", err)
			}
			if len(wl.lens) != wl.failAt {
				t.Errorf("writes after the failure: %v", wl.lens)
			}
			_, err = w.Append(DirApp, KindTitle, []byte(`{}`))
			for i, err := range []error{err, w.Flush(), w.Sync(), w.Close()} {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Errorf("call %d after the failure: %v", i, err)
				}
			}
			w, err = OpenTranscript(path, WriterOptions{})
			must(t, err)
			wantRecs := slices.Clone(small)
			if c.kept {
				wantRecs = append(wantRecs, big)
			}
			if seq, err := w.Append(DirApp, KindTitle, []byte(`{"title":"after"}`)); err != nil || seq != int64(len(wantRecs)+1) {
				t.Fatalf("append after reopen: seq %d, %v", seq, err)
			}
			must(t, w.Close())
			if raw, _ := os.ReadFile(path); !bytes.HasPrefix(raw, good) {
				t.Fatal("the records before the failed one changed")
			}
			recs, st := readAll(t, path)
			if len(recs) != len(wantRecs)+1 || st.Torn || st.Corrupt != 0 || recs[len(recs)-1].Kind != KindTitle {
				t.Fatalf("after reopen: %d records, %+v", len(recs), st)
			}
			for i, d := range append(wantRecs, []byte(`{"title":"after"}`)) {
				if recs[i].Seq != int64(i+1) || !bytes.Equal(recs[i].Data, d) {
					t.Errorf("record %d: seq %d, %d bytes", i, recs[i].Seq, len(recs[i].Data))
				}
			}
		})
	}
}
