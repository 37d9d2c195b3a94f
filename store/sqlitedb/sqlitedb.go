// Package sqlitedb holds what every SQLite database mnote keeps (the
// session index, the workspace checkpoints, the sync outbox, the control
// plane's store) needs when it is opened.
package sqlitedb

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"time"
)

// DSN is the mattn/go-sqlite3 data source name of the file at path with
// the query parameters params (e.g. "_busy_timeout=5000&_journal_mode=WAL").
func DSN(path, params string) string {
	u := url.URL{Path: path}
	return "file:" + u.EscapedPath() + "?" + params
}

// lockedFor is how long Ping retries a locked database.
const lockedFor = 5 * time.Second

// Ping makes db's first connection. Processes opening a new file at once
// race to switch it to WAL, and the loser's switch fails at once with
// "database is locked" (SQLite does not wait on its busy timeout for it):
// Ping tries again for a few seconds.
func Ping(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(lockedFor)
	for {
		err := db.PingContext(ctx)
		if err == nil || !strings.Contains(err.Error(), "database is locked") || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
