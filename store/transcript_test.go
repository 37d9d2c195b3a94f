package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"mnote/internal/testenv"
)

func readAll(t *testing.T, path string) ([]Record, ReadStats) {
	t.Helper()
	var recs []Record
	st, err := ReadTranscript(path, func(r Record) error {
		r.Data = append(json.RawMessage(nil), r.Data...)
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs, st
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.jsonl")
	now := int64(1000)
	w, err := CreateTranscript(path, WriterOptions{Now: func() int64 { now++; return now }})
	if err != nil {
		t.Fatal(err)
	}
	s := newScript(w, "s1")
	s.start("Hello", "/ws", 5)
	s.prompt("Write a \"haiku\"\nplease")
	s.answer("agent_message_chunk", "Old pond — frog jumps in, sound of water.", 7)
	if _, err := w.Append(DirIn, "weird\"kind\n", []byte("{\n \"a\": 1\n}")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendMalformed(DirIn, []byte("not json \x00 \xff")); err != nil {
		t.Fatal(err)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	wantSeq := w.Seq()
	size := w.Size()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if fi.Size() != size {
		t.Errorf("Size() %d, file %d", size, fi.Size())
	}
	raw, _ := os.ReadFile(path)
	for i, line := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d not JSON: %v: %s", i+1, err, line)
		}
	}
	recs, st := readAll(t, path)
	if st.Corrupt != 0 || st.Torn || int64(len(recs)) != wantSeq || st.LastSeq != wantSeq || st.Bytes != size {
		t.Fatalf("stats %+v, %d records, want %d", st, len(recs), wantSeq)
	}
	for i, r := range recs {
		if r.Seq != int64(i+1) || r.V != 1 || r.TsMs != 1001+int64(i) {
			t.Fatalf("record %d: %+v", i, r)
		}
	}
	if recs[0].Kind != KindSession || recs[0].Dir != DirApp {
		t.Errorf("first record %+v", recs[0])
	}
	weird := recs[len(recs)-2]
	if weird.Kind != "weird\"kind\n" || string(weird.Data) != `{"a":1}` {
		t.Errorf("weird record %q %s", weird.Kind, weird.Data)
	}
	var mal string
	if err := json.Unmarshal(recs[len(recs)-1].Data, &mal); err != nil || !strings.HasPrefix(mal, "not json") {
		t.Errorf("malformed record %s: %v", recs[len(recs)-1].Data, err)
	}
}

func TestMalformedTruncated(t *testing.T) {
	line := bytes.Repeat([]byte("é"), MaxMalformedBytes) // 2 MiB
	var s string
	if err := json.Unmarshal(MalformedData(line), &s); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(s, "…[truncated 1048576 bytes]") || len(s) > MaxMalformedBytes+40 {
		t.Errorf("got %d bytes ending %q", len(s), s[len(s)-40:])
	}
}

func TestTornLineTruncatedOnOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := newScript(w, "s")
	s.start("t", "/ws", 1)
	s.prompt("hi")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	last := w.Seq()
	good, _ := os.ReadFile(path)
	// A crash mid-write: half a record, no newline.
	torn := `{"v":1,"seq":99,"ts_ms":5,"dir":"in","kind":"session/update","data":{"jsonrpc":"2.0","meth`
	if err := os.WriteFile(path, append(append([]byte(nil), good...), torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, st := readAll(t, path)
	if !st.Torn || int64(len(recs)) != last || st.Corrupt != 0 {
		t.Fatalf("reading torn file: %+v, %d records", st, len(recs))
	}
	w, err = OpenTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Size() != int64(len(good)) {
		t.Errorf("size after open %d, want %d", w.Size(), len(good))
	}
	seq, err := w.Append(DirApp, KindTitle, []byte(`{"title":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if seq != last+1 {
		t.Errorf("seq %d, want %d", seq, last+1)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, st = readAll(t, path)
	if st.Torn || st.Corrupt != 0 || int64(len(recs)) != last+1 || recs[len(recs)-1].Kind != KindTitle {
		t.Fatalf("after append: %+v, %d records", st, len(recs))
	}

	// A complete record that lost only its newline is kept.
	raw, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.TrimSuffix(raw, []byte("\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err = OpenTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if seq, _ := w.Append(DirApp, KindTitle, []byte(`{"title":"y"}`)); seq != last+2 {
		t.Errorf("seq %d, want %d", seq, last+2)
	}
	w.Close()
	recs, st = readAll(t, path)
	if st.Corrupt != 0 || int64(len(recs)) != last+2 {
		t.Fatalf("after newline repair: %+v, %d records", st, len(recs))
	}
}

func TestCorruptMiddleLineSkipped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := newScript(w, "s")
	s.start("t", "/ws", 1)
	s.prompt("hi")
	s.answer("agent_message_chunk", "hello there, how are you", 5)
	w.Close()
	raw, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(raw, []byte("\n"))
	// Line 3: a torn record glued to the next one; line 5: garbage.
	lines[2] = append(lines[2][:len(lines[2])/2:len(lines[2])/2], lines[3]...)
	lines[4] = []byte("garbage{\n")
	var out []byte
	for i, l := range lines {
		if i == 3 {
			continue
		}
		out = append(out, l...)
	}
	os.WriteFile(path, out, 0o600)
	recs, st := readAll(t, path)
	if st.Corrupt != 2 || len(st.CorruptLines) != 2 || st.CorruptLines[0] != 3 || st.CorruptLines[1] != 4 {
		t.Fatalf("stats %+v", st)
	}
	if int64(len(recs)) != w.Seq()-3 || recs[len(recs)-1].Seq != w.Seq() {
		t.Fatalf("%d records, last %+v; wrote %d", len(recs), recs[len(recs)-1], w.Seq())
	}
	// Appending continues after the last good record.
	w, err = OpenTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if seq, _ := w.Append(DirApp, KindTitle, []byte(`{}`)); seq != recs[len(recs)-1].Seq+1 {
		t.Errorf("seq %d", seq)
	}
}

func TestLongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	big := `{"text":"` + strings.Repeat("x", 5<<20) + `"}`
	w.Append(DirIn, KindSessionUpdate, []byte(`{"a":1}`))
	w.Append(DirIn, KindSessionUpdate, []byte(big))
	w.Append(DirIn, KindSessionUpdate, []byte(`{"a":2}`))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, st := readAll(t, path)
	if len(recs) != 3 || len(recs[1].Data) != len(big) || string(recs[2].Data) != `{"a":2}` || st.Corrupt != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestDirModes(t *testing.T) {
	t.Setenv("MNOTE_HOME", filepath.Join(t.TempDir(), "home"))
	p := DefaultPaths()
	if err := p.Ensure(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{p.DataDir, p.Transcripts, p.Trash, p.LogDir, p.StateDir, filepath.Dir(p.ConfigFile)} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v", d, fi.Mode().Perm())
		}
	}
	if filepath.Base(p.ConfigFile) != "config.json" || filepath.Base(p.DB) != "mnote.db" || !strings.HasSuffix(p.LogDir, "logs") {
		t.Errorf("paths %+v", p)
	}
}

func TestXDGPaths(t *testing.T) {
	root := t.TempDir()
	t.Setenv("MNOTE_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "c"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(root, "d"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "s"))
	p := DefaultPaths()
	want := Paths{
		ConfigFile:  filepath.Join(root, "c", "mnote", "config.json"),
		DataDir:     filepath.Join(root, "d", "mnote"),
		DB:          filepath.Join(root, "d", "mnote", "mnote.db"),
		Transcripts: filepath.Join(root, "d", "mnote", "transcripts"),
		Trash:       filepath.Join(root, "d", "mnote", "trash"),
		LogDir:      filepath.Join(root, "s", "mnote", "logs"),
		StateDir:    filepath.Join(root, "s", "mnote"),
	}
	if p != want {
		t.Errorf("got %+v\nwant %+v", p, want)
	}
}

func TestSecondWriterBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sess-1.jsonl")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenTranscript(path, WriterOptions{})
	if !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("second writer: %v", err)
	}
	if !strings.Contains(err.Error(), "sess-1") {
		t.Errorf("error does not name the session: %v", err)
	}
	// A reader is fine while the writer holds the lock.
	w.Append(DirApp, KindTitle, []byte(`{}`))
	w.Flush()
	if _, st := readAll(t, path); st.Records != 1 {
		t.Errorf("reader saw %+v", st)
	}
	w.Close()
	w2, err := OpenTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatalf("after close: %v", err)
	}
	w2.Close()
}

// TestHelperProcess is the child of TestSecondProcessBusy: it holds a
// Writer until its stdin closes.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv("MNOTE_STORE_HELPER")
	if path == "" {
		t.Skip("helper process only")
	}
	w, err := OpenTranscript(path, WriterOptions{})
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	buf := make([]byte, 1)
	os.Stdin.Read(buf)
	w.Close()
	os.Exit(0)
}

func TestSecondProcessBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sess-2.jsonl")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "MNOTE_STORE_HELPER="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	line := make([]byte, 7)
	if _, err := stdout.Read(line); err != nil || string(line) != "locked\n" {
		t.Fatalf("child said %q: %v", line, err)
	}
	_, err = OpenTranscript(path, WriterOptions{})
	if !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("open while child holds it: %v", err)
	}
	var be *BusyError
	if errors.As(err, &be) && be.PID != 0 && be.PID != cmd.Process.Pid {
		t.Errorf("busy pid %d, child %d", be.PID, cmd.Process.Pid)
	}
	t.Log(err)
	stdin.Close()
	cmd.Wait()
	w, err = OpenTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatalf("after child exit: %v", err)
	}
	w.Close()
}

// failingFile fails every write after limit bytes with ENOSPC.
type failingFile struct {
	fileWriter
	limit, n int
}

func (f *failingFile) Write(b []byte) (int, error) {
	if f.n+len(b) > f.limit {
		k := max(0, f.limit-f.n)
		f.fileWriter.Write(b[:k])
		f.n += k
		return k, syscall.ENOSPC
	}
	f.n += len(b)
	return f.fileWriter.Write(b)
}

func TestStickyWriteError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var reports atomic.Int32
	var reported atomic.Value
	w, err := CreateTranscript(path, WriterOptions{
		OnError: func(err error) { reports.Add(1); reported.Store(err) },
		wrap:    func(f fileWriter) fileWriter { return &failingFile{fileWriter: f, limit: 300} },
	})
	if err != nil {
		t.Fatal(err)
	}
	s := newScript(w, "s")
	s.start("t", "/ws", 1)
	if s.err != nil {
		t.Fatal(s.err) // still buffered
	}
	err = w.Sync()
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) {
		t.Fatalf("sync: %v", err)
	}
	for _, err := range []error{
		func() error { _, err := w.Append(DirApp, KindTitle, []byte(`{}`)); return err }(),
		w.Flush(), w.Sync(), w.Close(),
	} {
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) {
			t.Errorf("later call: %v", err)
		}
	}
	if reports.Load() != 1 || !errors.Is(reported.Load().(error), syscall.ENOSPC) {
		t.Errorf("OnError called %d times", reports.Load())
	}
	// The file ends with a torn line; reopening repairs it.
	w, err = OpenTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if fi, _ := os.Stat(path); fi.Size() > 300 {
		t.Errorf("size %d", fi.Size())
	}
}

func TestTimerFlushFailureReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	got := make(chan error, 2)
	w, err := CreateTranscript(path, WriterOptions{
		OnError: func(err error) { got <- err },
		wrap:    func(f fileWriter) fileWriter { return &failingFile{fileWriter: f, limit: 0} },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Append(DirApp, KindTitle, []byte(`{"title":"x"}`))
	select {
	case err := <-got:
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("reported %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("background flush failure not reported")
	}
	if _, err := w.Append(DirApp, KindTitle, []byte(`{}`)); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("append after failure: %v", err)
	}
}

func TestFlushWithin100ms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 3 {
		seq, err := w.Append(DirApp, KindTitle, []byte(`{"title":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, st := readAll(t, path)
			if st.LastSeq == seq {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: record %d not on disk after 5s", i, seq)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// TestDiskFull fills a real 64 KiB tmpfs (root only).
func TestDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.SkipOrFail(t, "needs root to mount a tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.CommandContext(t.Context(), "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		testenv.SkipOrFail(t, fmt.Sprintf("mount tmpfs: %v: %s", err, out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount: %v: %s", err, out)
		}
	})
	path := filepath.Join(dir, "s.jsonl")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"text":"` + strings.Repeat("y", 1000) + `"}`)
	var werr error
	for range 200 {
		if _, werr = w.Append(DirIn, KindSessionUpdate, data); werr != nil {
			break
		}
	}
	if werr == nil {
		werr = w.Sync()
	}
	if !errors.Is(werr, syscall.ENOSPC) || !strings.Contains(werr.Error(), path) {
		t.Fatalf("got %v, want ENOSPC naming the file", werr)
	}
	if err := w.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("close: %v", err)
	}
}
