package sqlitedb_test

import (
	"context"
	"database/sql"
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
