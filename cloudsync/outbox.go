package cloudsync

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	_ "github.com/mattn/go-sqlite3" // the database/sql driver

	"mnote/controlplane/api"
	"mnote/store/sqlitedb"
)

// The outbox is its own SQLite file (sync.db, WAL) beside mnote.db: it is
// not derived from the transcripts, so it must not be lost when the index
// is rebuilt, and sync state stays out of the index's schema.
//
//	outbox: one row per session waiting to be sent — the latest change
//	        only (Enqueue replaces a waiting row), so each change is sent
//	        once and a burst of changes once.
//	sent:   per session, the version and content hash the control plane
//	        acknowledged, so an unchanged record is not sent again and a
//	        new version is always above the last one.
//	parked: per session, a change the control plane refused in a way no
//	        retry fixes (a 4xx other than 401/403/408/409/429): kept with
//	        the refusal, out of the way of the others, until the session
//	        changes again or the URL or token changes (another server
//	        may take it).
//	state:  last sync, last error, failures and the retry times.
//	share_links: the link of each share published from here, per control
//	        plane: the control plane keeps only its token's hash and
//	        gives the link once, when the share is made, so this is
//	        where the owner copies it again from.
const outboxSchema = `
CREATE TABLE IF NOT EXISTS outbox (
    session_id  TEXT PRIMARY KEY,
    op          TEXT NOT NULL,             -- put | delete
    version     INTEGER NOT NULL,
    payload     BLOB NOT NULL,             -- the record's JSON (put)
    hash        TEXT NOT NULL,             -- of the record without its version
    enqueued_ms INTEGER NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS outbox_order ON outbox (enqueued_ms);
CREATE TABLE IF NOT EXISTS sent (
    session_id TEXT PRIMARY KEY,
    version    INTEGER NOT NULL,
    hash       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS parked (
    session_id TEXT PRIMARY KEY,
    op         TEXT NOT NULL,
    version    INTEGER NOT NULL,
    payload    BLOB NOT NULL,
    hash       TEXT NOT NULL,
    error      TEXT NOT NULL,              -- the control plane's refusal
    parked_ms  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS share_links (
    server     TEXT NOT NULL,              -- the control plane's URL
    share_id   TEXT NOT NULL,
    url        TEXT NOT NULL,              -- the share's link (its token in it)
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (server, share_id)
);
PRAGMA user_version = 2;
`

// Outbox operations.
const (
	opPut    = "put"
	opDelete = "delete"
)

// outbox is the sync database.
type outbox struct {
	path string
	db   *sql.DB
}

func openOutbox(ctx context.Context, path string) (*outbox, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("sync outbox: %w", err)
	}
	if err := sqlitedb.Create(path); err != nil {
		return nil, fmt.Errorf("sync outbox: %w", err)
	}
	// One connection: every write is serialized by Go, never bounced
	// with SQLITE_BUSY, and each Enqueue is one transaction.
	db, err := sqlitedb.OpenWriter(ctx, sqlitedb.DSN(path, "_busy_timeout=5000&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate"))
	if err != nil {
		return nil, fmt.Errorf("sync outbox %s: %w", path, err)
	}
	if _, err := db.ExecContext(ctx, outboxSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("sync outbox %s: %w (delete the file to start the outbox afresh)", path, err)
	}
	return &outbox{path: path, db: db}, nil
}

func (o *outbox) Close() error { return o.db.Close() }

// item is one outbox row.
type item struct {
	SessionID string
	Op        string
	Version   int64
	Payload   []byte
	Hash      string
	Attempts  int
}

// recordHash identifies a record's content, whatever its version.
func recordHash(rec api.SessionRecord) string {
	rec.Version = 0
	rec.CopiedFrom = ""
	b, _ := json.Marshal(rec)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// put queues rec (Version ignored) unless the control plane already has
// this content or it is already waiting. The version given is above
// every version sent or queued for the session, and at least updatedMs.
// It reports whether a row was queued.
func (o *outbox) put(ctx context.Context, rec api.SessionRecord, updatedMs, nowMs int64) (bool, error) {
	hash := recordHash(rec)
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("sync outbox: %w", err)
	}
	defer tx.Rollback()
	var pendOp, pendHash string
	var pendV, sentV int64
	var sentHash string
	err = tx.QueryRowContext(ctx, `SELECT op, version, hash FROM outbox WHERE session_id = ?`, rec.ID).Scan(&pendOp, &pendV, &pendHash)
	hasPend := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("sync outbox: %w", err)
	}
	err = tx.QueryRowContext(ctx, `SELECT version, hash FROM sent WHERE session_id = ?`, rec.ID).Scan(&sentV, &sentHash)
	hasSent := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("sync outbox: %w", err)
	}
	var parkOp, parkHash string
	var parkV int64
	err = tx.QueryRowContext(ctx, `SELECT op, version, hash FROM parked WHERE session_id = ?`, rec.ID).Scan(&parkOp, &parkV, &parkHash)
	hasPark := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("sync outbox: %w", err)
	}
	switch {
	case hasPend && pendOp == opPut && pendHash == hash:
		return false, nil // the same change is waiting
	case !hasPend && hasPark && parkOp == opPut && parkHash == hash:
		return false, nil // the same change was refused: sending it again cannot help
	case !hasPend && hasSent && sentHash == hash:
		return false, nil // the control plane has it
	}
	rec.Version = max(updatedMs, sentV+1, pendV+1, parkV+1, 1)
	payload, err := json.Marshal(rec)
	if err != nil {
		return false, fmt.Errorf("sync outbox: encode record: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (session_id, op, version, payload, hash, enqueued_ms) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET op = excluded.op, version = excluded.version, payload = excluded.payload,
		hash = excluded.hash, enqueued_ms = excluded.enqueued_ms, attempts = 0, last_error = ''`,
		rec.ID, opPut, rec.Version, payload, hash, nowMs); err != nil {
		return false, fmt.Errorf("sync outbox: %w", err)
	}
	// A new change replaces a refused one.
	if _, err := tx.ExecContext(ctx, `DELETE FROM parked WHERE session_id = ?`, rec.ID); err != nil {
		return false, fmt.Errorf("sync outbox: %w", err)
	}
	return true, tx.Commit()
}

// del queues the deletion of a session's record, if it was ever sent or
// is waiting to be. It reports whether a row was queued.
func (o *outbox) del(ctx context.Context, id string, nowMs int64) (bool, error) {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("sync outbox: %w", err)
	}
	defer tx.Rollback()
	// A refused change of a deleted session has nothing left to say.
	if _, err := tx.ExecContext(ctx, `DELETE FROM parked WHERE session_id = ?`, id); err != nil {
		return false, fmt.Errorf("sync outbox: %w", err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM outbox WHERE session_id = ?) + (SELECT count(*) FROM sent WHERE session_id = ?)`, id, id).Scan(&n); err != nil {
		return false, fmt.Errorf("sync outbox: %w", err)
	}
	if n == 0 {
		return false, tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (session_id, op, version, payload, hash, enqueued_ms) VALUES (?, ?, 0, x'', '', ?)
		ON CONFLICT (session_id) DO UPDATE SET op = excluded.op, payload = excluded.payload, hash = '',
		enqueued_ms = excluded.enqueued_ms, attempts = 0, last_error = ''`, id, opDelete, nowMs); err != nil {
		return false, fmt.Errorf("sync outbox: %w", err)
	}
	return true, tx.Commit()
}

// next returns up to limit waiting rows, oldest change first.
func (o *outbox) next(ctx context.Context, limit int) ([]item, error) {
	rows, err := o.db.QueryContext(ctx, `SELECT session_id, op, version, payload, hash, attempts FROM outbox ORDER BY enqueued_ms, session_id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("sync outbox: %w", err)
	}
	defer rows.Close()
	var out []item
	for rows.Next() {
		var it item
		if err := rows.Scan(&it.SessionID, &it.Op, &it.Version, &it.Payload, &it.Hash, &it.Attempts); err != nil {
			return nil, fmt.Errorf("sync outbox: %w", err)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// one returns the waiting row of a session, if any.
func (o *outbox) one(ctx context.Context, id string) (item, bool, error) {
	it := item{SessionID: id}
	err := o.db.QueryRowContext(ctx, `SELECT op, version, payload, hash, attempts FROM outbox WHERE session_id = ?`, id).
		Scan(&it.Op, &it.Version, &it.Payload, &it.Hash, &it.Attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return it, false, nil
	}
	if err != nil {
		return it, false, fmt.Errorf("sync outbox: %w", err)
	}
	return it, true, nil
}

// done records that the control plane has it: the row goes (unless a newer
// change replaced it meanwhile) and sent remembers the version and hash.
// For a deletion, sent forgets the session.
func (o *outbox) done(ctx context.Context, it item, serverVersion int64, serverHash string) error {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sync outbox: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM outbox WHERE session_id = ? AND op = ? AND version = ? AND hash = ?`, it.SessionID, it.Op, it.Version, it.Hash); err != nil {
		return fmt.Errorf("sync outbox: %w", err)
	}
	if it.Op == opDelete {
		_, err = tx.ExecContext(ctx, `DELETE FROM sent WHERE session_id = ?`, it.SessionID)
	} else {
		_, err = tx.ExecContext(ctx, `INSERT INTO sent (session_id, version, hash) VALUES (?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET version = excluded.version, hash = excluded.hash WHERE excluded.version >= sent.version`,
			it.SessionID, serverVersion, serverHash)
	}
	if err != nil {
		return fmt.Errorf("sync outbox: %w", err)
	}
	return tx.Commit()
}

// failed counts a failed attempt of a row.
func (o *outbox) failed(ctx context.Context, it item, msg string) error {
	_, err := o.db.ExecContext(ctx, `UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE session_id = ? AND version = ? AND op = ?`,
		msg, it.SessionID, it.Version, it.Op)
	if err != nil {
		return fmt.Errorf("sync outbox: %w", err)
	}
	return nil
}

// park moves a row the control plane refused for good (it said so) out
// of the outbox into parked, with the refusal, so that the rows after it
// go on. A newer change queued meanwhile stays queued.
func (o *outbox) park(ctx context.Context, it item, msg string, nowMs int64) error {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sync outbox: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM outbox WHERE session_id = ? AND version = ? AND op = ? AND hash = ?`, it.SessionID, it.Version, it.Op, it.Hash)
	if err != nil {
		return fmt.Errorf("sync outbox: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // replaced by a newer change: that one is sent next
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO parked (session_id, op, version, payload, hash, error, parked_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET op = excluded.op, version = excluded.version, payload = excluded.payload,
		hash = excluded.hash, error = excluded.error, parked_ms = excluded.parked_ms`,
		it.SessionID, it.Op, it.Version, it.Payload, it.Hash, msg, nowMs); err != nil {
		return fmt.Errorf("sync outbox: %w", err)
	}
	return tx.Commit()
}

// Parked is a change the control plane refused for good: it is kept,
// out of the way of the others, until the session changes again or the
// URL or token changes.
type Parked struct {
	SessionID string    `json:"sessionId"`
	Op        string    `json:"op"` // put or delete
	Error     string    `json:"error"`
	ParkedAt  time.Time `json:"parkedAt"`
}

// parkedRows returns up to limit parked rows, newest first, and how many
// there are.
func (o *outbox) parkedRows(ctx context.Context, limit int) ([]Parked, int, error) {
	var n int
	if err := o.db.QueryRowContext(ctx, `SELECT count(*) FROM parked`).Scan(&n); err != nil {
		return nil, 0, fmt.Errorf("sync outbox: %w", err)
	}
	rows, err := o.db.QueryContext(ctx, `SELECT session_id, op, error, parked_ms FROM parked ORDER BY parked_ms DESC, session_id LIMIT ?`, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("sync outbox: %w", err)
	}
	defer rows.Close()
	var out []Parked
	for rows.Next() {
		var p Parked
		var ms int64
		if err := rows.Scan(&p.SessionID, &p.Op, &p.Error, &ms); err != nil {
			return nil, 0, fmt.Errorf("sync outbox: %w", err)
		}
		p.ParkedAt = time.UnixMilli(ms)
		out = append(out, p)
	}
	return out, n, rows.Err()
}

// pending counts the waiting rows.
func (o *outbox) pending(ctx context.Context) (int, error) {
	var n int
	if err := o.db.QueryRowContext(ctx, `SELECT count(*) FROM outbox`).Scan(&n); err != nil {
		return 0, fmt.Errorf("sync outbox: %w", err)
	}
	return n, nil
}

// forget forgets what was sent and the retry state (another control plane
// or account has none of it); waiting rows stay, for the new one, and
// parked rows wait again (the new one may take them).
func (o *outbox) forget(ctx context.Context) error {
	_, err := o.db.ExecContext(ctx, `INSERT INTO outbox (session_id, op, version, payload, hash, enqueued_ms)
		SELECT session_id, op, version, payload, hash, parked_ms FROM parked WHERE true
		ON CONFLICT (session_id) DO NOTHING;
		DELETE FROM parked; DELETE FROM sent; DELETE FROM state;`)
	if err != nil {
		return fmt.Errorf("sync outbox: %w", err)
	}
	return nil
}

// clear forgets everything: waiting rows, what was sent, the state and
// the share links (RemoveMyData deleted the shares).
func (o *outbox) clear(ctx context.Context) error {
	_, err := o.db.ExecContext(ctx, `DELETE FROM outbox; DELETE FROM parked; DELETE FROM sent; DELETE FROM state; DELETE FROM share_links;`)
	if err != nil {
		return fmt.Errorf("sync outbox: %w", err)
	}
	return nil
}

// State keys.
const (
	stLastSync     = "last_sync_ms"
	stLastError    = "last_error"
	stFailures     = "failures"
	stRetryAt      = "retry_at_ms"   // backoff after failures
	stRateLimitEnd = "rate_limit_ms" // the server's Retry-After
)

func (o *outbox) getState(ctx context.Context) (map[string]string, error) {
	rows, err := o.db.QueryContext(ctx, `SELECT key, value FROM state`)
	if err != nil {
		return nil, fmt.Errorf("sync outbox: %w", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("sync outbox: %w", err)
		}
		m[k] = v
	}
	return m, rows.Err()
}

func (o *outbox) setState(ctx context.Context, kv map[string]string) error {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sync outbox: %w", err)
	}
	defer tx.Rollback()
	for k, v := range kv {
		if _, err := tx.ExecContext(ctx, `INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
			return fmt.Errorf("sync outbox: %w", err)
		}
	}
	return tx.Commit()
}

func stateInt(m map[string]string, k string) int64 {
	n, _ := strconv.ParseInt(m[k], 10, 64)
	return n
}
