package workspace

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "github.com/mattn/go-sqlite3" // database/sql driver "sqlite3"

	"mnote/store/sqlitedb"
)

// The checkpoint store is one SQLite file, <state>/checkpoints.db: the
// contents (blobs, by SHA-256), the manifest (files) and the checkpoints
// (turns). One file rather than a file per content: a first scan stores
// 10,000 contents in one transaction instead of creating 10,000 files,
// which costs seconds on common file systems; a manifest row and the
// content it names are committed together, so neither refers to a
// content that a crash lost.

const cpSchemaVersion = 1

var cpSchema = []string{
	// Before any table, so deleted contents give their pages back
	// (PRAGMA incremental_vacuum in Prune).
	`PRAGMA auto_vacuum = INCREMENTAL`,
	`CREATE TABLE IF NOT EXISTS blobs (
		hash TEXT NOT NULL UNIQUE,
		data BLOB NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS files (
		path  TEXT PRIMARY KEY,
		size  INTEGER NOT NULL,
		mtime INTEGER NOT NULL,
		ino   INTEGER NOT NULL,
		ctime INTEGER NOT NULL,
		mode  INTEGER NOT NULL,
		hash  TEXT NOT NULL,
		flags INTEGER NOT NULL
	) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS turns (
		id       TEXT PRIMARY KEY,
		started  INTEGER NOT NULL,
		ended    INTEGER NOT NULL,
		reverted INTEGER,
		files    TEXT NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS turns_ended ON turns(ended)`,
}

// Entry flags in the files table.
const (
	flagBlob = 1 << iota
	flagBig
	flagRacy
)

func openCPDB(dir string) (*sql.DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint folder: %w; check that %s is writable", err, dir)
	}
	path := filepath.Join(dir, "checkpoints.db")
	if err := sqlitedb.Create(path); err != nil {
		return nil, fmt.Errorf("open checkpoints %s: %w", path, err)
	}
	// One connection: every write happens under Checkpoints.mu anyway.
	db, err := sqlitedb.OpenWriter(context.Background(), sqlitedb.DSN(path, "_busy_timeout=5000&_synchronous=NORMAL&_journal_mode=WAL&_txlock=immediate"))
	if err != nil {
		return nil, fmt.Errorf("open checkpoints %s: %w (delete the file to start over)", path, err)
	}
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		db.Close()
		return nil, fmt.Errorf("open checkpoints %s: %w (delete the file to start over)", path, err)
	}
	if v > cpSchemaVersion {
		db.Close()
		return nil, fmt.Errorf("checkpoints %s were written by a newer mnote (version %d); update mnote", path, v)
	}
	for _, s := range cpSchema {
		if _, err := db.Exec(s); err != nil {
			db.Close()
			return nil, fmt.Errorf("checkpoints %s: %w (delete the file to start over)", path, err)
		}
	}
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, cpSchemaVersion)); err != nil {
		db.Close()
		return nil, fmt.Errorf("checkpoints %s: %w", path, err)
	}
	return db, nil
}

func (e entry) flags() int {
	f := 0
	if e.Blob {
		f |= flagBlob
	}
	if e.Big {
		f |= flagBig
	}
	if e.Racy {
		f |= flagRacy
	}
	return f
}

// loadManifest reads the files table into c.man.
func (c *Checkpoints) loadManifest() error {
	rows, err := c.db.Query(`SELECT path, size, mtime, ino, ctime, mode, hash, flags FROM files`)
	if err != nil {
		return fmt.Errorf("read checkpoint manifest: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		var e entry
		var ino int64
		var fl int
		if err := rows.Scan(&p, &e.Size, &e.MTime, &ino, &e.CTime, &e.Mode, &e.Hash, &fl); err != nil {
			return fmt.Errorf("read checkpoint manifest: %w", err)
		}
		e.Ino = uint64(ino)
		e.Blob, e.Big, e.Racy = fl&flagBlob != 0, fl&flagBig != 0, fl&flagRacy != 0
		c.man[p] = e
	}
	return rows.Err()
}

// cpTx is one write transaction on the store.
type cpTx struct {
	tx                  *sql.Tx
	blob, upsert, unset *sql.Stmt
}

func (c *Checkpoints) begin() (*cpTx, error) {
	tx, err := c.db.Begin()
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	t := &cpTx{tx: tx}
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{
		{&t.blob, `INSERT OR IGNORE INTO blobs(hash, data) VALUES(?, ?)`},
		{&t.upsert, `INSERT INTO files(path, size, mtime, ino, ctime, mode, hash, flags) VALUES(?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(path) DO UPDATE SET size=excluded.size, mtime=excluded.mtime, ino=excluded.ino,
			ctime=excluded.ctime, mode=excluded.mode, hash=excluded.hash, flags=excluded.flags`},
		{&t.unset, `DELETE FROM files WHERE path = ?`},
	} {
		if *p.st, err = tx.Prepare(p.q); err != nil {
			tx.Rollback()
			return nil, fmt.Errorf("checkpoints: %w", err)
		}
	}
	return t, nil
}

func (t *cpTx) putBlob(h string, data []byte) error {
	if _, err := t.blob.Exec(h, data); err != nil {
		return fmt.Errorf("store checkpoint content: %w; check free space", err)
	}
	return nil
}

func (t *cpTx) setFile(p string, e entry) error {
	_, err := t.upsert.Exec(p, e.Size, e.MTime, int64(e.Ino), e.CTime, e.Mode, e.Hash, e.flags())
	return err
}

func (t *cpTx) dropFile(p string) error {
	_, err := t.unset.Exec(p)
	return err
}

func (t *cpTx) commit() error {
	if err := t.tx.Commit(); err != nil {
		return fmt.Errorf("save checkpoints: %w; check free space", err)
	}
	return nil
}

func (t *cpTx) rollback() { _ = t.tx.Rollback() }

// blob reads a stored content.
func (c *Checkpoints) blob(h string) ([]byte, error) {
	var b []byte
	err := c.db.QueryRow(`SELECT data FROM blobs WHERE hash = ?`, h).Scan(&b)
	if err == nil && hashOf(b) != h {
		err = errors.New("damaged")
	}
	if err != nil {
		short := h
		if len(short) > 12 {
			short = short[:12]
		}
		return nil, fmt.Errorf("checkpoint content %s is missing (%w); the checkpoint cannot be shown or reverted", short, err)
	}
	return b, nil
}

// storeCheckpoint saves (or replaces) a checkpoint.
func (c *Checkpoints) storeCheckpoint(cp *Checkpoint) error {
	files, err := json.Marshal(cp.Files)
	if err != nil {
		return err
	}
	var reverted any
	if cp.Reverted != nil {
		reverted = cp.Reverted.UnixNano()
	}
	_, err = c.db.Exec(`INSERT INTO turns(id, started, ended, reverted, files) VALUES(?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET started=excluded.started, ended=excluded.ended, reverted=excluded.reverted, files=excluded.files`,
		cp.Turn, cp.Started.UnixNano(), cp.Ended.UnixNano(), reverted, string(files))
	if err != nil {
		return fmt.Errorf("save checkpoint of turn %s: %w; check free space", cp.Turn, err)
	}
	return nil
}

// checkpoints reads stored checkpoints, oldest first; with id set, only
// that one.
func (c *Checkpoints) checkpoints(id string) ([]Checkpoint, error) {
	q := `SELECT id, started, ended, reverted, files FROM turns ORDER BY ended, id`
	var args []any
	if id != "" {
		q = `SELECT id, started, ended, reverted, files FROM turns WHERE id = ?`
		args = append(args, id)
	}
	rows, err := c.db.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("read checkpoints: %w", err)
	}
	defer rows.Close()
	var out []Checkpoint
	for rows.Next() {
		var cp Checkpoint
		var started, ended int64
		var reverted sql.NullInt64
		var files string
		if err := rows.Scan(&cp.Turn, &started, &ended, &reverted, &files); err != nil {
			return nil, fmt.Errorf("read checkpoints: %w", err)
		}
		if err := json.Unmarshal([]byte(files), &cp.Files); err != nil {
			c.w.log.Warn("skipping unreadable checkpoint", "turn", cp.Turn, "err", err)
			continue
		}
		cp.Started, cp.Ended = time.Unix(0, started), time.Unix(0, ended)
		if reverted.Valid {
			t := time.Unix(0, reverted.Int64)
			cp.Reverted = &t
		}
		out = append(out, cp)
	}
	return out, rows.Err()
}
