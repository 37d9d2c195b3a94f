package store

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
)

// A shared session's entries are recorded by seq: syncing again records
// nothing twice, a gap is refused (an entry would be lost), an entry that
// could not be opened is kept as such, and the thread is what it was.
func TestSharedEntriesRecordedOnceBySeq(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := newScript(w, "s1")
	s.start("shared", "/tmp/ws", 1)
	s.prompt("mine")
	s.answer("agent_message_chunk", "an answer", 4)
	recs := []SharedEntryRecord{
		{Seq: 1, Epoch: 1, Kind: "prompt", Actor: "ada", Entry: json.RawMessage(`{"kind":"prompt","text":"hi"}`)},
		{Seq: 2, Epoch: 1, Kind: "answer", Actor: "ada", Entry: json.RawMessage(`{"kind":"answer","text":"yo"}`)},
		{Seq: 3, Epoch: 2, Kind: "prompt", Actor: "bob", Unreadable: "no_key"},
	}
	head, err := AppendSharedEntries(w, 0, recs[:2])
	if err != nil || head != 2 {
		t.Fatalf("head %d, %v", head, err)
	}
	if head, err = AppendSharedEntries(w, head, recs); err != nil || head != 3 {
		t.Fatalf("again: head %d, %v", head, err)
	}
	if _, err := AppendSharedEntries(w, head, []SharedEntryRecord{{Seq: 5, Kind: "answer"}}); !errors.Is(err, ErrSharedGap) {
		t.Fatalf("a gap: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSharedEntries(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].Unreadable != "no_key" || got[1].Actor != "ada" {
		t.Fatalf("recorded %+v", got)
	}
	if h, _ := SharedHead(path); h != 3 {
		t.Fatalf("SharedHead %d", h)
	}
	th, info, _, err := LoadThread(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Turns != 1 || len(th.Snapshot().Entries) != 2 {
		t.Fatalf("the thread changed: %d turns, %d entries", info.Turns, len(th.Snapshot().Entries))
	}
	if es, err := ReadSharedEntries(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || es != nil {
		t.Fatalf("missing file: %v %v", es, err)
	}
}

// A turn linked to the shared run it was sent as is read back by run id;
// the link changes neither the thread nor the shared entries, and a
// damaged or empty link is skipped.
func TestSharedRunLinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s2.jsonl")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := newScript(w, "s2")
	s.start("shared", "/tmp/ws", 1)
	s.prompt("mine")
	if err := AppendSharedRun(w, "run-1", 1); err != nil {
		t.Fatal(err)
	}
	if err := AppendSharedRun(w, "", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendJSON(DirApp, KindSharedRun, json.RawMessage(`{"runId":7}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := AppendSharedEntries(w, 0, []SharedEntryRecord{{Seq: 1, Kind: "prompt", RunID: "run-1", Actor: "ada", Entry: json.RawMessage(`{"kind":"prompt","text":"mine"}`)}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	es, runs, err := ReadShared(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || len(runs) != 1 || runs["run-1"] != 1 {
		t.Fatalf("entries %+v, runs %v", es, runs)
	}
	th, info, _, err := LoadThread(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Turns != 1 || len(th.Snapshot().Entries) != 1 {
		t.Fatalf("the thread changed: %d turns, %d entries", info.Turns, len(th.Snapshot().Entries))
	}
}

// An entry recorded as not opened and opened later (AppendReopened) is
// read in its place, opened; an opened entry is never replaced, an entry
// still not opened is not recorded again, and the head does not move.
func TestSharedEntryReopenedInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recs := []SharedEntryRecord{
		{Seq: 1, Epoch: 1, Kind: "prompt", Actor: "ada", Unreadable: "no_key"},
		{Seq: 2, Epoch: 1, Kind: "answer", Actor: "ada", Entry: json.RawMessage(`{"kind":"answer","text":"原来的"}`)},
		{Seq: 3, Epoch: 1, Kind: "answer", Actor: "ada", Unreadable: "no_key"},
	}
	if _, err := AppendSharedEntries(w, 0, recs); err != nil {
		t.Fatal(err)
	}
	if err := AppendReopened(w, []SharedEntryRecord{
		{Seq: 1, Epoch: 1, Kind: "prompt", Actor: "ada", Entry: json.RawMessage(`{"kind":"prompt","text":"打开了"}`)},
		{Seq: 2, Epoch: 1, Kind: "answer", Actor: "mallory", Entry: json.RawMessage(`{"kind":"answer","text":"换掉"}`)},
		{Seq: 3, Epoch: 1, Kind: "answer", Actor: "ada", Unreadable: "no_key"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSharedEntries(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Unreadable != "" || string(got[0].Entry) != `{"kind":"prompt","text":"打开了"}` ||
		got[1].Actor != "ada" || got[2].Unreadable != "no_key" {
		t.Fatalf("read %+v", got)
	}
	if h, _ := SharedHead(path); h != 3 {
		t.Fatalf("SharedHead %d", h)
	}
}
