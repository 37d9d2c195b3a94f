package sqlitedb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"mnote/store/sqlitedb"
)

// Several connections switching one new file to WAL at once all succeed
// (without the retry, about one run in a hundred lost the race).
func TestPingNewFileConcurrently(t *testing.T) {
	for range 20 {
		path := filepath.Join(t.TempDir(), "x.db")
		var wg sync.WaitGroup
		errs := make(chan error, 6)
		for range 6 {
			wg.Go(func() {
				db, err := sql.Open("sqlite3", sqlitedb.DSN(path, "_busy_timeout=5000&_journal_mode=WAL"))
				if err == nil {
					err = sqlitedb.Ping(context.Background(), db)
					db.Close()
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A path with spaces and URL characters is kept as it is.
func TestDSN(t *testing.T) {
	if got := sqlitedb.DSN("/tmp/a b/c?d#e.db", "x=1"); got != "file:/tmp/a%20b/c%3Fd%23e.db?x=1" {
		t.Fatalf("DSN: %s", got)
	}
}

// IsBusy knows a locked database by SQLite's result code, wrapped or
// not, and not by the text: an error that only says "database is locked"
// is not SQLite's.
func TestIsBusy(t *testing.T) {
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
	if !sqlitedb.IsBusy(err) || !sqlitedb.IsBusy(fmt.Errorf("index: %w", err)) {
		t.Fatalf("IsBusy(%v) = false", err)
	}
	if sqlitedb.IsBusy(errors.New("database is locked")) || sqlitedb.IsBusy(nil) {
		t.Fatal("IsBusy matched a message, not a code")
	}
	free, err := sql.Open("sqlite3", sqlitedb.DSN(filepath.Join(t.TempDir(), "y.db"), ""))
	if err != nil {
		t.Fatal(err)
	}
	defer free.Close()
	_, err = free.ExecContext(ctx, "SELECT * FROM missing")
	if err == nil || sqlitedb.IsBusy(err) {
		t.Fatalf("IsBusy(%v) = true", err)
	}
}
