package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// crashFile is the transcript file as the disk sees it: what was written
// reaches the page cache at once, but only what was there at the last
// Sync survives a power loss. crash makes that happen.
type crashFile struct {
	fileWriter
	f       *os.File
	written int64 // bytes written through the Writer
	durable int64 // written at the last Sync
	syncs   int
}

func (c *crashFile) Write(b []byte) (int, error) {
	n, err := c.fileWriter.Write(b)
	c.written += int64(n)
	return n, err
}

func (c *crashFile) Sync() error {
	if err := c.fileWriter.Sync(); err != nil {
		return err
	}
	c.syncs++
	c.durable = c.written
	return nil
}

// crash loses what was not synced, keeping torn bytes of it (a write
// cut short by the crash), and closes the file without a sync, as the
// process dies (its lock goes with it).
func (c *crashFile) crash(t *testing.T, torn int64) {
	t.Helper()
	keep := min(c.durable+torn, c.written)
	if err := c.f.Truncate(keep); err != nil {
		t.Fatal(err)
	}
	if err := c.f.Close(); err != nil {
		t.Fatal(err)
	}
}

func crashWriter(t *testing.T, path string) (*Writer, *crashFile) {
	t.Helper()
	var cf *crashFile
	w, err := CreateTranscript(path, WriterOptions{wrap: func(f fileWriter) fileWriter {
		cf = &crashFile{fileWriter: f, f: f.(*os.File)}
		return cf
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w, cf
}

// Sync reaches the file's fsync; Flush does not; Close syncs.
func TestSyncCallsFileSync(t *testing.T) {
	w, cf := crashWriter(t, filepath.Join(t.TempDir(), "s.jsonl"))
	if _, err := w.Append(DirApp, KindTitle, []byte(`{"title":"a"}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if cf.syncs != 0 {
		t.Fatalf("Flush synced (%d)", cf.syncs)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if cf.syncs != 1 || cf.durable != w.Size() {
		t.Fatalf("after Sync: %d file syncs, %d of %d bytes durable", cf.syncs, cf.durable, w.Size())
	}
	w.Append(DirApp, KindTitle, []byte(`{"title":"b"}`))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if cf.syncs != 2 || cf.durable != cf.written {
		t.Fatalf("after Close: %d file syncs, %d of %d bytes durable", cf.syncs, cf.durable, cf.written)
	}
}

// A crash between a write and its sync: after a reopen, every record up to
// the last Sync is there, byte for byte; the torn tail is gone; numbering
// goes on after the last durable record.
func TestCrashBetweenWriteAndSync(t *testing.T) {
	// torn: bytes of the unsynced tail that reached the disk anyway; -1:
	// all of it but the last record's closing "}\n" (a record that lost
	// only its newline is whole, and kept).
	for _, torn := range []int64{0, 1, 37, -1} {
		t.Run("torn="+strconv.FormatInt(torn, 10), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			w, cf := crashWriter(t, path)
			s := newScript(w, "s")
			s.start("durable", "/ws", 1)
			s.prompt("first")
			s.answer("agent_message_chunk", "an answer that was synced at the turn end", 7)
			s.end("end_turn", 10, 20)
			if err := w.Sync(); err != nil { // the turn end
				t.Fatal(err)
			}
			synced, _ := readAll(t, path)
			syncedBytes, _ := os.ReadFile(path)
			s.prompt("second")
			s.answer("agent_message_chunk", "written, flushed, never synced", 5)
			if s.err != nil {
				t.Fatal(s.err)
			}
			if err := w.Flush(); err != nil { // in the page cache, not on the disk
				t.Fatal(err)
			}
			if cf.written <= cf.durable {
				t.Fatal("nothing written after the sync")
			}
			all, _ := os.ReadFile(path)
			if torn < 0 {
				torn = cf.written - cf.durable - 2
			}
			cf.crash(t, torn)
			// What survives: the synced records and the whole lines of
			// the torn tail.
			want := all[:bytes.LastIndexByte(all[:cf.durable+torn], '\n')+1]

			w2, err := OpenTranscript(path, WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if !bytes.HasPrefix(got, syncedBytes) || !bytes.Equal(got, want) {
				t.Fatalf("after the crash the file is %d bytes, want %d (%d synced)", len(got), len(want), len(syncedBytes))
			}
			kept := bytes.Count(want, []byte("\n"))
			seq, err := w2.Append(DirApp, KindTitle, []byte(`{"title":"after"}`))
			if err != nil {
				t.Fatal(err)
			}
			if seq != int64(kept)+1 {
				t.Fatalf("next seq %d, want %d", seq, kept+1)
			}
			if err := w2.Close(); err != nil {
				t.Fatal(err)
			}
			recs, st := readAll(t, path)
			if st.Corrupt != 0 || len(recs) != kept+1 || len(synced) > kept {
				t.Fatalf("%d records (%d corrupt), want %d (%d synced)", len(recs), st.Corrupt, kept+1, len(synced))
			}
			for i, r := range synced {
				if recs[i].Seq != r.Seq || recs[i].Kind != r.Kind || !bytes.Equal(recs[i].Data, r.Data) {
					t.Fatalf("record %d changed: %+v, was %+v", i, recs[i], r)
				}
			}
		})
	}
}
