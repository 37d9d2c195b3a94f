package controlplane_test

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// A share's URL token is a secret like a user's token: the store keeps its
// hash only. After a share is made, no byte of the database holds the
// token (SQLite: the file, its WAL and shm; PostgreSQL: the whole data
// folder after a CHECKPOINT), yet the share opens by its URL and can be
// copied; the token and URL come once, in the answer that creates the
// share, and a list of shares has neither.
func TestShareTokenStoredHashed(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		s := mustPut(t, h.A, rec("canary-session", 1))
		share := mustShare(t, h.A, s.ID, snapshot("Canary share"))
		if share.Token == "" || !strings.HasSuffix(share.URL, "/s/"+share.Token) {
			t.Fatalf("the created share has token %q, URL %q: both are given once, at creation", share.Token, share.URL)
		}

		// It opens by its URL, and can be copied by its token.
		if st, _, page := h.raw(http.MethodGet, path(t, share.URL), "", nil); st != http.StatusOK || !strings.Contains(string(page), "Canary share") {
			t.Fatalf("the share's page: %d\n%s", st, page)
		}
		if _, err := h.B.CopyShare(ctx, share.Token); err != nil {
			t.Fatalf("copy by the token: %v", err)
		}

		// The list names the share, without its token or URL.
		st, _, body := h.raw(http.MethodGet, "/v1/shares", h.tokenA, nil)
		var list api.ShareList
		if st != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list.Shares) != 1 || list.Shares[0].ID != share.ID {
			t.Fatalf("list: %d %s", st, body)
		}
		if bytes.Contains(body, []byte(share.Token)) || bytes.Contains(body, []byte("/s/")) || list.Shares[0].URL != "" {
			t.Fatalf("the list gives the share's token or URL: %s", body)
		}

		// The canary: the token is in no byte of the database; its hash
		// is (so the right bytes were searched).
		files := dbFiles(t, h)
		if !files.contain(controlplane.HashToken(share.Token)) {
			t.Fatalf("the token's hash is in none of %d files: the search looked in the wrong place", len(files))
		}
		if where := files.holding(share.Token); where != "" {
			t.Fatalf("%s holds the share's token", where)
		}
	})
}

// dbBytes are the files of a store: name → contents.
type dbBytes map[string][]byte

func (d dbBytes) contain(s string) bool { return d.holding(s) != "" }

// holding names a file that holds s, or "".
func (d dbBytes) holding(s string) string {
	for name, b := range d {
		if bytes.Contains(b, []byte(s)) {
			return name
		}
	}
	return ""
}

// dbFiles reads every file of h's store: the SQLite file with its -wal
// and -shm, or PostgreSQL's data folder once a CHECKPOINT wrote the
// buffers out.
func dbFiles(t *testing.T, h *harness) dbBytes {
	t.Helper()
	out := dbBytes{}
	var dir string
	switch h.kind {
	case "sqlite":
		p := strings.TrimPrefix(h.db, "sqlite:")
		dir = filepath.Dir(p)
	case "postgres":
		db, err := sql.Open("pgx", h.db)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(t.Context(), "CHECKPOINT"); err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(sharedPG.srv.Dir, "data")
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A database of schema version 1 kept share tokens in clear. Opening it
// migrates: each token is replaced by its hash, in place, so the share
// still opens by its URL and copies by its token, while the database no
// longer holds the token (SQLite: not in a free page or the WAL either).
func TestMigrationHashesShareTokens(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			db := newDB(t, kind)
			userToken, shareToken, others := v1Database(t, kind, db)

			h := &harness{t: t, kind: kind, db: db, clock: &clock{}, logs: &syncBuffer{}}
			h.start()
			t.Cleanup(h.stop)
			ctx := t.Context()

			if st, _, page := h.raw(http.MethodGet, "/s/"+shareToken, "", nil); st != http.StatusOK || !strings.Contains(string(page), "Shared before the migration") {
				t.Fatalf("the migrated share's page: %d\n%s", st, page)
			}
			carol := h.client(userToken)
			if _, err := carol.CopyShare(ctx, shareToken); err != nil {
				t.Fatalf("copy the migrated share: %v", err)
			}
			st, _, body := h.raw(http.MethodGet, "/v1/shares", userToken, nil)
			if st != http.StatusOK || !strings.Contains(string(body), "shr_old") || strings.Contains(string(body), shareToken) {
				t.Fatalf("list after the migration: %d, names shr_old: %v, gives its token: %v", st,
					strings.Contains(string(body), "shr_old"), strings.Contains(string(body), shareToken))
			}

			switch kind {
			case "sqlite":
				h.stop() // what is on disk
				files := dbFiles(t, h)
				if !files.contain("Shared before the migration") {
					t.Fatal("the snapshot is in none of the files: the search looked in the wrong place")
				}
				for _, tok := range append(others, shareToken) {
					if where := files.holding(tok); where != "" {
						t.Fatalf("%s still holds a share's token after the migration", where)
					}
				}
			case "postgres":
				// PostgreSQL keeps old row versions and its WAL until
				// they are recycled: check the column itself.
				conn, err := sql.Open("pgx", db)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				var got string
				if err := conn.QueryRowContext(ctx, "SELECT token_hash FROM shares WHERE id = 'shr_old'").Scan(&got); err != nil || got != controlplane.HashToken(shareToken) {
					t.Fatalf("the stored token: %q, %v; want its hash", got, err)
				}
				var clear int
				if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM shares WHERE length(token_hash) <> 64").Scan(&clear); err != nil || clear != 0 {
					t.Fatalf("%d shares keep a token that is not a hash (%v)", clear, err)
				}
			}
		})
	}
}

// v1Database builds, in the empty database db, the schema of version 1
// (migrations/0001_init.sql, recorded in schema_migrations) holding a
// user (carol) with a token, a session and shares whose URL tokens are
// stored in clear, as version 1 stored them: shr_old and 40 others (with
// one, SQLite happens to leave no stale copy behind; with more it does,
// unless the migration vacuums). It returns carol's token, shr_old's and
// the others'.
func v1Database(t *testing.T, kind, db string) (userToken, shareToken string, others []string) {
	t.Helper()
	ctx := t.Context()
	var conn *sql.DB
	var err error
	if kind == "sqlite" {
		conn, err = sql.Open("sqlite3", strings.TrimPrefix(db, "sqlite:"))
	} else {
		conn, err = sql.Open("pgx", db)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	init, err := os.ReadFile(filepath.Join("migrations", "0001_init.sql"))
	if err != nil {
		t.Fatal(err)
	}
	userToken, userHash, err := controlplane.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 32)
	rand.Read(b)
	shareToken = base64.RawURLEncoding.EncodeToString(b)
	snap, _ := json.Marshal(snapshot("Shared before the migration"))
	now := time.Now().UnixNano()
	stmts := []struct {
		q    string
		args []any
	}{
		{string(init), nil},
		{"CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ns BIGINT NOT NULL)", nil},
		{"INSERT INTO schema_migrations (version, name, applied_ns) VALUES (?, ?, ?)", []any{1, "0001_init.sql", now}},
		{"INSERT INTO users (id, name, created_ns) VALUES (?, ?, ?)", []any{"usr_carol", "carol", now}},
		{"INSERT INTO tokens (id, user_id, hash, created_ns) VALUES (?, ?, ?, ?)", []any{"tok_carol", "usr_carol", userHash, now}},
		{`INSERT INTO sessions (id, user_id, version, runtime, workspace_id, title, status, created_ns, updated_ns, turns, messages, tool_calls, copied_from)
			VALUES (?, ?, 1, 'claude-code', '', 'old', 'idle', ?, ?, 1, 2, 0, '')`, []any{"s-old", "usr_carol", now, now}},
		{"INSERT INTO shares (id, token, user_id, session_id, snapshot, created_ns) VALUES (?, ?, ?, ?, ?, ?)",
			[]any{"shr_old", shareToken, "usr_carol", "s-old", string(snap), now}},
	}
	for i := range 40 {
		b := make([]byte, 32)
		rand.Read(b)
		tok := base64.RawURLEncoding.EncodeToString(b)
		others = append(others, tok)
		stmts = append(stmts, struct {
			q    string
			args []any
		}{"INSERT INTO shares (id, token, user_id, session_id, snapshot, created_ns) VALUES (?, ?, ?, ?, ?, ?)",
			[]any{"shr_other" + strconv.Itoa(i), tok, "usr_carol", "s-old", string(snap), now}})
	}
	for _, s := range stmts {
		q := s.q
		if kind == "postgres" {
			for i := 1; strings.Contains(q, "?"); i++ {
				q = strings.Replace(q, "?", "$"+strconv.Itoa(i), 1)
			}
		}
		if _, err := conn.ExecContext(ctx, q, s.args...); err != nil {
			t.Fatalf("build the version 1 database: %v\n%s", err, q)
		}
	}
	return userToken, shareToken, others
}
