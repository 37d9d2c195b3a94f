package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"mnote/thread"
)

// reasonixStatus writes a Reasonix status notification with the given
// cache figures (the shape Reasonix 1.38 sends, trimmed).
func (s *sessionScript) reasonixStatus(turnHit, turnMiss, cumHit, cumMiss int64) {
	s.raw(DirIn, thread.MethodReasonixStatus, fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{"schemaVersion":1,"sessionId":%s,"event":"usage",`+
		`"status":{"state":"running","usage":{"turn":{"promptTokens":%d,"cacheHitTokens":%d,"cacheMissTokens":%d,"cacheHitRatio":null},`+
		`"cumulative":{"cacheHitTokens":%d,"cacheMissTokens":%d,"cacheHitRatio":null}}}}}`,
		thread.MethodReasonixStatus, q(s.agentID), turnHit+turnMiss, turnHit, turnMiss, cumHit, cumMiss))
}

// Reasonix's prompt-cache figures survive the transcript: LoadThread
// restores them, and the turn rows have them, the same live and rebuilt.
func TestCacheFiguresFromTranscript(t *testing.T) {
	e := newEnv(t)
	path := e.p.TranscriptPath("rx")
	w, err := CreateTranscript(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := e.ix.NewIndexer("rx")
	x.SetPath(path)
	s := newScript(w, "rx")
	s.x = x
	s.start("Reasonix", "/ws", 1)
	s.prompt("add a line")
	s.reasonixStatus(0, 1251, 0, 1251)
	s.answer("agent_message_chunk", "Done.", 8)
	s.reasonixStatus(2521, 1341, 2521, 1341)
	s.end("end_turn", 0, 0)
	// A load between turns: its status names no open turn and changes no row.
	s.reasonixStatus(0, 0, 2521, 1341)
	s.prompt("again")
	s.reasonixStatus(2900, 100, 5421, 1441)
	s.end("end_turn", 0, 0)
	if s.err != nil {
		t.Fatal(s.err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Flush(); err != nil {
		t.Fatal(err)
	}

	th, _, _, err := LoadThread(path)
	if err != nil {
		t.Fatal(err)
	}
	c := th.Snapshot().Usage.Cache
	if c == nil || c.Turn.HitTokens != 2900 || c.Turn.MissTokens != 100 || c.Session.HitTokens != 5421 || c.Session.MissTokens != 1441 {
		t.Fatalf("restored cache figures = %+v", c)
	}
	if c.Turn.HitRatio < 0.966 || c.Turn.HitRatio > 0.967 {
		t.Errorf("turn hit ratio = %v, want 2900/3000", c.Turn.HitRatio)
	}

	live, err := e.ix.Turns(t.Context(), "rx")
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 2 || live[0].CacheHitTokens != 2521 || live[0].CacheMissTokens != 1341 ||
		live[1].CacheHitTokens != 2900 || live[1].CacheMissTokens != 100 || live[1].CacheHitRatio < 0.966 {
		t.Fatalf("turn rows = %+v", live)
	}
	if err := e.ix.Rebuild(t.Context(), e.p.Transcripts, nil); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := e.ix.Turns(t.Context(), "rx")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(live, rebuilt) {
		t.Errorf("live rows %+v\nrebuilt rows %+v", live, rebuilt)
	}
}

// An index of version 1 (before the cache columns) is migrated in place:
// its rows stay, Reasonix sessions are read again at the next Reconcile.
func TestMigrationAddsCacheColumns(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "mnote.db")
	v1, err := migrationFS.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{string(v1), "PRAGMA user_version = 1",
		`INSERT INTO sessions (id, num, runtime, transcript_bytes, indexed_bytes) VALUES ('a', 1, 'reasonix', 10, 10), ('b', 2, 'qwen', 10, 10)`,
		`INSERT INTO turns (session_id, turn, stop_reason, input_tokens) VALUES ('a', 1, 'end_turn', 7)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	ix, err := OpenIndex(t.Context(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if v, err := ix.SchemaVersion(t.Context()); err != nil || v != 5 {
		t.Fatalf("schema version %d, %v", v, err)
	}
	turns, err := ix.Turns(t.Context(), "a")
	if err != nil || len(turns) != 1 || turns[0].InputTokens != 7 || turns[0].CacheHitTokens != 0 {
		t.Fatalf("turns after migration: %+v, %v", turns, err)
	}
	for id, want := range map[string]int64{"a": -1, "b": 10} {
		row, err := ix.GetSession(t.Context(), id)
		if err != nil || row.TranscriptBytes != want {
			t.Errorf("session %s: transcript_bytes %d (want %d), %v", id, row.TranscriptBytes, want, err)
		}
	}
}
