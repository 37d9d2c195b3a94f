package app

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"mnote/store/sqlitedb"
)

// A database another connection holds locked is busy (try again) by
// SQLite's result code; an error that merely says "database is locked"
// is not classified by its text.
func TestErrorFromDatabaseLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	ctx := t.Context()
	holder, err := sql.Open("sqlite3", sqlitedb.DSN(path, "_txlock=exclusive"))
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite3", sqlitedb.DSN(path, "_busy_timeout=0"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.ExecContext(ctx, "INSERT INTO t VALUES (2)")
	if err == nil {
		t.Fatal("wrote past an exclusive lock")
	}
	if e := errorFrom("rename session x", fmt.Errorf("index: %w", err)); e.Code != CodeBusy {
		t.Fatalf("locked database: %s (%s)", e.Code, e.Message)
	}
	if e := errorFrom("", errors.New("database is locked")); e.Code != CodeInternal {
		t.Fatalf("a plain error with the text: %s", e.Code)
	}
}
