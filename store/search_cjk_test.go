package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// cjkSession records one session whose prompts and answers are real
// Chinese, Japanese, Korean and mixed text, through the writer and the
// live indexer, as the app does.
func cjkSession(t *testing.T, e *testEnv, id string, turns [][2]string) {
	t.Helper()
	w, err := CreateTranscript(e.p.TranscriptPath(id), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := e.ix.NewIndexer(id)
	s := newScript(w, id)
	s.x = x
	s.start("会话 "+id, "/ws", 1)
	for _, turn := range turns {
		s.prompt(turn[0])
		s.answer("agent_message_chunk", turn[1], 5)
		s.end("end_turn", 1, 1)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := x.Flush(); err != nil {
		t.Fatal(err)
	}
}

// A query in Chinese, Japanese or Korean finds every message containing
// it as a substring, one- and two-character queries included; English
// keeps word semantics with the last word a prefix. (With unicode61 alone,
// every CJK query here but whole clauses found nothing.)
func TestSearchCJK(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	cjkSession(t, e, "zh", [][2]string{
		{"Reasonix 的缓存怎么样？", "Reasonix 的缓存命中率很高，缓存优先的设计很有效。"},
		{"帮我检索一下笔记", "已经在笔记里全文检索了「设计文档」，找到三处。"},
	})
	cjkSession(t, e, "ja", [][2]string{{"ノートを検索して", "全文検索の結果、三つのノートが見つかりました。"}})
	cjkSession(t, e, "ko", [][2]string{{"메모를 검색해 주세요", "검색 결과 세 개의 메모를 찾았습니다."}})
	cjkSession(t, e, "en", [][2]string{{"What is the cache hit rate?", "Reasonix的缓存 is fast; caching helps."}})

	count := func(q string) (n int, sessions []string, snippets []string) {
		t.Helper()
		hits, err := e.ix.Search(ctx, q, 100)
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		seen := map[string]bool{}
		for _, h := range hits {
			if !seen[h.SessionID] {
				seen[h.SessionID] = true
				sessions = append(sessions, h.SessionID)
			}
			snippets = append(snippets, h.Snippet)
		}
		return len(hits), sessions, snippets
	}
	for _, c := range []struct {
		q    string
		hits int
	}{
		{"缓存", 3},   // zh prompt + answer, en answer (mixed, no space)
		{"命中", 1},   //
		{"命中率", 1},  //
		{"设计", 2},   // 设计很有效, 设计文档
		{"检索", 2},   // prompt and answer
		{"全文检索", 1}, //
		{"検索", 2},   // ja
		{"ノート", 2},  //
		{"검색", 2},   // ko: a word with a particle (검색해) and alone
		{"메모", 2},   //
		{"Reasonix 的缓存", 3},
		{"Reasonix的缓存", 3}, // with or without the space
		{"缓", 3},           // one character: a prefix of its bigrams, and run ends
		{"率", 1},           // the last-but-one character of its run
		{"档", 1},           // the last character of a run (设计文档」)
		{"cache", 1},       // a word
		{"cach", 2},        // the last word is a prefix: cache, caching
		{"缓存设计", 0},        // not a substring
		{"检索 笔记", 2},       // both words, any order
	} {
		n, sessions, snippets := count(c.q)
		if n != c.hits {
			t.Errorf("search %q: %d hits in %v, want %d: %q", c.q, n, sessions, c.hits, snippets)
		}
		for _, sn := range snippets {
			if !strings.Contains(sn, "«") {
				t.Errorf("search %q: snippet without a highlight: %q", c.q, sn)
			}
		}
	}
	_, _, sn := count("命中率")
	if len(sn) == 1 && !strings.Contains(sn[0], "缓存«命中率»很高") {
		t.Errorf("snippet %q does not highlight 命中率 in place", sn[0])
	}
}

// An index of version 3 (unicode61) is migrated to the CJK tokenizer from
// its stored text, in batches, with progress, and its Chinese rows become
// findable; no transcript is read.
func TestMigrationCJKTokenizer(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "mnote.db")
	db, err := sql.Open("sqlite3", "file:"+dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	for _, name := range []string{"0001_init.sql", "0002_turn_cache.sql", "0003_fts_no_prefix.sql"} {
		body, err := migrationFS.ReadFile("migrations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, string(body))
	}
	stmts = append(stmts, "PRAGMA user_version = 3",
		`INSERT INTO sessions (id, num, title, status, transcript_bytes, indexed_bytes) VALUES ('a', 1, 'A', 'ready', 100, 100)`)
	rows := ftsCopyBatch*2 + 17 // three batches
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		text := fmt.Sprintf("第%d条消息：缓存命中率 note%d", i, i)
		if _, err := tx.Exec(`INSERT INTO messages_fts (rowid, text, session_id, turn, role, entry) VALUES (?, ?, 'a', ?, 'assistant', ?)`,
			int64(1)<<32|int64(i), text, i, fmt.Sprintf("e%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var before int
	db.QueryRow(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH '"缓存"'`).Scan(&before)
	db.Close()
	if before != 0 {
		t.Fatalf("unicode61 found 缓存 in %d rows: the test cannot tell the tokenizers apart", before)
	}

	var reports []int64
	ctx := WithProgress(t.Context(), func(step string, done, total int64) {
		if total != int64(rows) || step == "" {
			t.Errorf("progress %q %d/%d", step, done, total)
		}
		reports = append(reports, done)
	})
	ix, err := OpenIndex(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if v, err := ix.SchemaVersion(t.Context()); err != nil || v != 5 {
		t.Fatalf("schema version %d, %v", v, err)
	}
	if len(reports) != 3 || reports[2] != int64(rows) {
		t.Errorf("progress reports %v, want three ending at %d", reports, rows)
	}
	var n, leftover int
	ix.r.QueryRow(`SELECT count(*) FROM messages_fts`).Scan(&n)
	ix.r.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'messages_fts_v4%'`).Scan(&leftover)
	if n != rows || leftover != 0 {
		t.Fatalf("%d rows (want %d), %d tables left of the copy", n, rows, leftover)
	}
	hits, err := ix.Search(t.Context(), "缓存", rows+10)
	if err != nil || len(hits) != rows {
		t.Errorf("缓存: %d hits, %v; want %d", len(hits), err, rows)
	}
	hits, err = ix.Search(t.Context(), "note1234 缓存", 10)
	if err != nil || len(hits) != 1 || hits[0].Entry != "e1234" {
		t.Errorf("note1234: %+v, %v", hits, err)
	}
	row, err := ix.GetSession(t.Context(), "a")
	if err != nil || row.IndexedBytes != 100 {
		t.Errorf("session a: %+v, %v", row, err)
	}
}
