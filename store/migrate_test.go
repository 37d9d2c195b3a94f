package store

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An index of version 2 (with the FTS prefix index) is migrated in place:
// its rows are copied into the new table, stay searchable, prefixes
// included, and no session needs reading again.
func TestMigrationDropsPrefixIndex(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "mnote.db")
	db, err := sql.Open("sqlite3", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	for _, name := range []string{"0001_init.sql", "0002_turn_cache.sql"} {
		body, err := migrationFS.ReadFile("migrations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, string(body))
	}
	stmts = append(stmts, "PRAGMA user_version = 2",
		`INSERT INTO sessions (id, num, title, status, transcript_bytes, indexed_bytes) VALUES ('a', 1, 'A', 'ready', 100, 100), ('b', 2, 'B', 'ready', 200, 200)`)
	const rows = 300
	for i := range rows {
		sess, num := "a", int64(1)
		if i%2 == 1 {
			sess, num = "b", 2
		}
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO messages_fts (rowid, text, session_id, turn, role, entry) VALUES (%d, 'message %d about zebrafish%d and quokkas', '%s', %d, 'assistant', 'e%d')`,
			num<<32|int64(i), i, i, sess, i/2, i+1))
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	db.Close()

	ix, err := OpenIndex(t.Context(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if v, err := ix.SchemaVersion(t.Context()); err != nil || v < 3 {
		t.Fatalf("schema version %d, %v", v, err)
	}
	var ddl string
	if err := ix.r.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'messages_fts'`).Scan(&ddl); err != nil || strings.Contains(ddl, "prefix") {
		t.Fatalf("messages_fts after migration: %q, %v", ddl, err)
	}
	var leftover, n int
	ix.r.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'messages_fts_v_%'`).Scan(&leftover)
	ix.r.QueryRow(`SELECT count(*) FROM messages_fts`).Scan(&n)
	if leftover != 0 || n != rows {
		t.Fatalf("%d rows (want %d), %d tables left of the copy", n, rows, leftover)
	}
	// The last word is a prefix (search as you type); the others are not.
	for q, want := range map[string]int{"zebrafish17 quokkas": 1, "zebrafish17": 11, "zebrafish2": 111, "quo": rows, "message 42 zebra": 1} {
		hits, err := ix.Search(t.Context(), q, 1000)
		if err != nil || len(hits) != want {
			t.Errorf("search %q: %d hits, %v; want %d", q, len(hits), err, want)
		}
	}
	hits, err := ix.Search(t.Context(), "zebrafish17 quok", 10)
	if err != nil || len(hits) != 1 || hits[0].SessionID != "b" || hits[0].Entry != "e18" || !strings.Contains(hits[0].Snippet, "«zebrafish17»") {
		t.Errorf("hit: %+v, %v", hits, err)
	}
	// The rows still cover their transcripts: nothing to read again.
	for id, want := range map[string]int64{"a": 100, "b": 200} {
		row, err := ix.GetSession(t.Context(), id)
		if err != nil || row.IndexedBytes != want {
			t.Errorf("session %s: indexed_bytes %d (want %d), %v", id, row.IndexedBytes, want, err)
		}
	}
}

// A data folder moved elsewhere (or restored from a copy) keeps its rows:
// Reconcile only records the transcripts' new paths, and reads again only
// a transcript that changed meanwhile.
func TestReconcileMovedDataFolder(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	v := newVocab(3, 2000)
	for i := range 3 {
		e.liveSession(t, fmt.Sprintf("m%d", i), "", "/ws", 2, v)
	}
	before, err := e.ix.Search(ctx, v.words[0], 100)
	if err != nil || len(before) == 0 {
		t.Fatalf("search before the move: %d hits, %v", len(before), err)
	}
	e.ix.Close()

	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(e.p.DataDir, moved); err != nil {
		t.Fatal(err)
	}
	p := e.p
	p.DataDir, p.DB, p.Transcripts, p.Trash = moved, filepath.Join(moved, filepath.Base(e.p.DB)),
		filepath.Join(moved, filepath.Base(e.p.Transcripts)), filepath.Join(moved, filepath.Base(e.p.Trash))
	// One transcript grew while it was away: that one is read again.
	w, err := OpenTranscript(p.TranscriptPath("m2"), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := newScript(w, "m2")
	s.turn = 3
	s.prompt("where is the okapi list")
	s.answer("agent_message_chunk", "The okapi list is in notes/zoo.md.", 5)
	s.end("end_turn", 5, 5)
	w.Close()

	ix, err := OpenIndex(ctx, p.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n, err := ix.Reconcile(ctx, p.Transcripts); err != nil || n != 1 {
		t.Fatalf("reconcile after the move: %d reindexed, %v; want 1 (the one that grew)", n, err)
	}
	for i := range 3 {
		id := fmt.Sprintf("m%d", i)
		row, err := ix.GetSession(ctx, id)
		if err != nil || row.TranscriptPath != p.TranscriptPath(id) {
			t.Errorf("%s: path %q, %v; want %q", id, row.TranscriptPath, err, p.TranscriptPath(id))
		}
	}
	if hits, err := ix.Search(ctx, "okapi", 10); err != nil || len(hits) != 2 || hits[0].SessionID != "m2" || hits[1].SessionID != "m2" {
		t.Errorf("okapi: %+v, %v", hits, err)
	}
	// The sessions that did not change are found as before.
	count := func(hs []Hit) map[string]int {
		m := map[string]int{}
		for _, h := range hs {
			m[h.SessionID]++
		}
		return m
	}
	after, err := ix.Search(ctx, v.words[0], 100)
	if b, a := count(before), count(after); err != nil || a["m0"] != b["m0"] || a["m1"] != b["m1"] || a["m2"] < b["m2"] {
		t.Errorf("hits per session after the move: %v, %v; before %v", a, err, b)
	}
	if n, err := ix.Reconcile(ctx, p.Transcripts); err != nil || n != 0 {
		t.Errorf("second reconcile: %d, %v", n, err)
	}
}
