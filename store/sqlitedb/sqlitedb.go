// Package sqlitedb holds what every SQLite database mnote keeps (the
// session index, the workspace checkpoints, the sync outbox, the control
// plane's store) needs when it is opened.
package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"runtime"
	"time"

	"github.com/mattn/go-sqlite3" // the "sqlite3" driver
)

// DSN is the mattn/go-sqlite3 data source name of the file at path with
// the query parameters params (e.g. "_busy_timeout=5000&_journal_mode=WAL").
func DSN(path, params string) string {
	u := url.URL{Path: path}
	return "file:" + u.EscapedPath() + "?" + params
}

// lockedFor is how long Ping retries a locked database.
const lockedFor = 5 * time.Second

// IsBusy reports whether err (or an error it wraps) is SQLite's "database
// is locked" (SQLITE_BUSY) or "database table is locked" (SQLITE_LOCKED),
// by its result code, not its text.
func IsBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// Ping makes db's first connection. Processes opening a new file at once
// race to switch it to WAL, and the loser's switch fails at once with
// "database is locked" (SQLite does not wait on its busy timeout for it):
// Ping tries again for a few seconds.
func Ping(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(lockedFor)
	for {
		err := db.PingContext(ctx)
		if err == nil || !IsBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Create makes the database file if it is missing, with mode 0600 (SQLite
// gives its -wal and -shm files the same mode), so that a file holding
// transcripts' metadata, token hashes or note contents is private from the
// start.
func Create(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// OpenWriter opens the one writing connection of a database: SQLite has
// one writer at a time anyway, and queueing writes in Go beats
// SQLITE_BUSY retries. The connection is kept open and made at once (Ping).
func OpenWriter(ctx context.Context, dsn string) (*sql.DB, error) {
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := Ping(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// OpenReaders opens a pool of reading connections (each reads a
// consistent snapshot while the writer writes: WAL), as many as the
// machine runs threads, at least four.
func OpenReaders(dsn string) (*sql.DB, error) {
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	n := max(4, runtime.GOMAXPROCS(0))
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	return db, nil
}
