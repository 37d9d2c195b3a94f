package ftstoken_test

import (
	"database/sql"
	"slices"
	"testing"

	_ "mnote/store/ftstoken"

	_ "github.com/mattn/go-sqlite3"
)

func open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+t.TempDir()+"/t.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5 (text, tokenize = 'mnote remove_diacritics 2')`); err != nil {
		t.Fatal(err)
	}
	return db
}

// docs are real sentences in Chinese, Japanese, Korean and mixed text.
var docs = []string{
	"Reasonix 的缓存命中率很高，缓存优先的设计很有效。",                                // 1
	"全文检索需要支持中文分词，否则用户找不到自己的笔记。",                                   // 2
	"このアプリはノートの全文検索ができます。",                                         // 3
	"메모를 검색하는 기능이 필요합니다.",                                          // 4
	"The cache hit rate of Reasonix is high; caching first works.", // 5
	"Reasonix的缓存",                 // 6
	"设计文档：缓",                      // 7
	"Café crème and naïve résumé", // 8
}

func match(t *testing.T, db *sql.DB, q string) []int {
	t.Helper()
	rows, err := db.Query(`SELECT rowid FROM f WHERE f MATCH ? ORDER BY rowid`, q)
	if err != nil {
		t.Fatalf("MATCH %s: %v", q, err)
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestCJKSubstrings(t *testing.T) {
	db := open(t)
	for i, d := range docs {
		if _, err := db.Exec(`INSERT INTO f (rowid, text) VALUES (?, ?)`, i+1, d); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		q    string
		want []int
	}{
		{`"缓存"`, []int{1, 6}},
		{`"命中"`, []int{1}},
		{`"命中率"`, []int{1}},
		{`"缓存命中率很高"`, []int{1}},
		{`"设计"`, []int{1, 7}},
		{`"检索"`, []int{2}},
		{`"中文分词"`, []int{2}},
		{`"検索"`, []int{3}},
		{`"全文検索"`, []int{3}},
		{`"ノート"`, []int{3}},
		{`"검색"`, []int{4}},
		{`"메모를"`, []int{4}},
		{`"reasonix"`, []int{1, 5, 6}},
		{`"Reasonix的缓存"`, []int{1, 6}}, // mixed, with and without a space
		{`"reasonix" "缓存"`, []int{1, 6}},
		{`"cache"`, []int{5}}, // words, not substrings: "caching" is not "cache"
		{`"cach"*`, []int{5}},
		{`"cafe"`, []int{8}}, // remove_diacritics passes through
		{`"resume"`, []int{8}},
		{`"缓"`, []int{1, 6, 7}}, // one character: inside a run, at its end, alone at the end
		{`"存"`, []int{1, 6}},
		{`"率"`, []int{1}},
		{`"缓" "率"`, []int{1}},
		{`"存缓"`, nil},
		{`"缓存设计"`, nil},
	} {
		if got := match(t, db, c.q); !slices.Equal(got, c.want) {
			t.Errorf("MATCH %s = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestHighlightCJK(t *testing.T) {
	db := open(t)
	if _, err := db.Exec(`INSERT INTO f (rowid, text) VALUES (1, ?)`, docs[0]); err != nil {
		t.Fatal(err)
	}
	var h string
	if err := db.QueryRow(`SELECT highlight(f, 0, '[', ']') FROM f WHERE f MATCH '"命中率"'`).Scan(&h); err != nil {
		t.Fatal(err)
	}
	if want := "Reasonix 的缓存[命中率]很高，缓存优先的设计很有效。"; h != want {
		t.Errorf("highlight = %q, want %q", h, want)
	}
	if err := db.QueryRow(`SELECT highlight(f, 0, '[', ']') FROM f WHERE f MATCH '"缓存"'`).Scan(&h); err != nil {
		t.Fatal(err)
	}
	if want := "Reasonix 的[缓存]命中率很高，[缓存]优先的设计很有效。"; h != want {
		t.Errorf("highlight = %q, want %q", h, want)
	}
}
