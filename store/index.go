package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"

	"mnote/store/sqlitedb"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// ErrNotFound is returned for a session (or rule) the index does not have.
var ErrNotFound = errors.New("not found")

// Index is the SQLite index, mnote.db. It is safe for concurrent use.
type Index struct {
	path string
	// w is the only connection that writes. SQLite allows one writer at a
	// time; funnelling every write through one connection makes Go queue
	// them instead of SQLite bouncing them with SQLITE_BUSY, and keeps the
	// prepared statements on that connection hot.
	w *sql.DB
	// r is a pool of read-only connections; in WAL mode they read a
	// consistent snapshot while the writer works.
	r *sql.DB

	stmts map[string]*sql.Stmt // writeStmts, prepared on w; read-only after open

	recovered string
	closed    atomic.Bool
}

// OpenIndex opens (creating it if needed) the index at path and brings its
// schema up to date. A file that is not a readable SQLite database is moved
// aside to path.corrupt-<unix ms> (see Recovered) and a new, empty index is
// created; Reconcile then fills it from the transcripts.
func OpenIndex(ctx context.Context, path string) (*Index, error) {
	if err := mkdirPrivate(filepath.Dir(path)); err != nil {
		return nil, err
	}
	ix, err := openIndex(ctx, path)
	if err == nil {
		return ix, nil
	}
	if !isCorrupt(err) {
		return nil, err
	}
	aside := fmt.Sprintf("%s.corrupt-%d", path, time.Now().UnixMilli())
	slog.Error("store: index database is corrupt; moving it aside and rebuilding", "file", path, "movedTo", aside, "err", err)
	if err := os.Rename(path, aside); err != nil {
		return nil, fmt.Errorf("store: move corrupt index %s aside: %w", path, err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+suffix, aside+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("store: move corrupt index %s aside: %w", path+suffix, err)
		}
	}
	ix, err = openIndex(ctx, path)
	if err != nil {
		return nil, err
	}
	ix.recovered = aside
	return ix, nil
}

// Recovered returns where OpenIndex moved a corrupt database, or "".
func (ix *Index) Recovered() string { return ix.recovered }

// Path returns the database file.
func (ix *Index) Path() string { return ix.path }

func dsn(path string, write bool) string {
	q := "_busy_timeout=5000&_synchronous=NORMAL&_foreign_keys=1"
	if write {
		// A 1 MB page cache while sessions stream (a bigger one only
		// grows the client's memory); rebuilds raise it (see bigCache).
		q += "&_journal_mode=WAL&_txlock=immediate&_cache_size=" + streamCacheSize
	} else {
		q += "&_query_only=1"
	}
	return sqlitedb.DSN(path, q)
}

func openIndex(ctx context.Context, path string) (_ *Index, err error) {
	// Create the file ourselves so it is 0600 (SQLite gives the -wal and
	// -shm files the same mode).
	if err := sqlitedb.Create(path); err != nil {
		return nil, fmt.Errorf("store: open index: %w", err)
	}
	ix := &Index{path: path}
	defer func() {
		if err != nil {
			ix.closeDBs()
		}
	}()
	if ix.w, err = sqlitedb.OpenWriter(ctx, dsn(path, true)); err != nil {
		return nil, fmt.Errorf("store: open index %s: %w", path, err)
	}
	if err := migrate(ctx, ix.w); err != nil {
		return nil, fmt.Errorf("store: index %s: %w", path, err)
	}
	// Touch every table so a damaged schema shows now, not mid-session.
	for _, table := range []string{"sessions", "bindings", "turns", "permission_rules", "sync_outbox", "messages_fts"} {
		var n int
		if err := ix.w.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM "+table+" LIMIT 1)").Scan(&n); err != nil {
			return nil, fmt.Errorf("store: index %s: table %s: %w", path, table, err)
		}
	}
	// A rebuild cut short leaves its big buffer set.
	if err := ix.setHashSize(ctx, streamHashSize); err != nil {
		return nil, fmt.Errorf("store: index %s: %w", path, err)
	}
	if err := ix.prepareWrites(ctx); err != nil {
		return nil, fmt.Errorf("store: index %s: %w", path, err)
	}
	if ix.r, err = sqlitedb.OpenReaders(dsn(path, false)); err != nil {
		return nil, fmt.Errorf("store: open index %s: %w", path, err)
	}
	return ix, nil
}

// Close closes the database. Closing twice is a no-op.
func (ix *Index) Close() error {
	if ix.closed.Swap(true) {
		return nil
	}
	if _, err := ix.w.Exec("PRAGMA optimize"); err != nil {
		slog.Warn("store: PRAGMA optimize", "file", ix.path, "err", err)
	}
	if err := ix.closeDBs(); err != nil {
		return fmt.Errorf("store: close index %s: %w", ix.path, err)
	}
	return nil
}

func (ix *Index) closeDBs() error {
	var errs []error
	for _, s := range ix.stmts {
		errs = append(errs, s.Close())
	}
	if ix.r != nil {
		errs = append(errs, ix.r.Close())
	}
	if ix.w != nil {
		errs = append(errs, ix.w.Close())
	}
	return errors.Join(errs...)
}

// isCorrupt reports whether err says the file is not a usable database.
func isCorrupt(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB
	}
	return false
}

type migration struct {
	version int
	name    string
}

// migrate applies the embedded migrations newer than PRAGMA user_version,
// each in its own transaction together with the version bump.
func migrate(ctx context.Context, db *sql.DB) error {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		prefix, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(prefix)
		if err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return fmt.Errorf("migration %s: name must be NNNN_name.sql", e.Name())
		}
		ms = append(ms, migration{v, e.Name()})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	var cur int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if len(ms) > 0 && cur > ms[len(ms)-1].version {
		return fmt.Errorf("schema version %d is newer than this mnote knows (%d)", cur, ms[len(ms)-1].version)
	}
	for _, m := range ms {
		if m.version <= cur {
			continue
		}
		body, err := migrationFS.ReadFile("migrations/" + m.name)
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if after := afterMigration[m.version]; after != nil {
			if err := after(ctx, tx); err != nil {
				tx.Rollback()
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		slog.Info("store: index schema migrated", "version", m.version, "migration", m.name)
	}
	return nil
}

// SchemaVersion returns PRAGMA user_version.
func (ix *Index) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := ix.r.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("store: index %s: %w", ix.path, err)
	}
	return v, nil
}

// writeTx runs fn in one write transaction.
func (ix *Index) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := ix.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: index %s: begin: %w", ix.path, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return fmt.Errorf("store: index %s: %w", ix.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: index %s: commit: %w", ix.path, err)
	}
	return nil
}

// The FTS5 buffer of pending terms (its "hashsize"; a full buffer is
// written out as a segment). Sessions stream with a small one: what SQLite
// holds stays under about 2 MB, at no cost in speed here (commits write
// every 500 ms anyway). Rebuilds write fewer, larger segments with a big one.
const (
	streamCacheSize = "-1024" // KiB, as PRAGMA cache_size takes it
	streamHashSize  = 256 << 10
	rebuildHashSize = 8 << 20
)

// setHashSize sets the FTS5 hashsize (kept in the database) unless it has
// that value already.
func (ix *Index) setHashSize(ctx context.Context, n int) error {
	var cur int
	err := ix.w.QueryRowContext(ctx, `SELECT v FROM messages_fts_config WHERE k = 'hashsize'`).Scan(&cur)
	if err == nil && cur == n {
		return nil
	}
	_, err = ix.w.ExecContext(ctx, `INSERT INTO messages_fts (messages_fts, rank) VALUES ('hashsize', ?)`, n)
	return err
}

// bigCache gives the writer connection a 32 MB page cache and FTS5 a big
// buffer of pending terms until the returned function runs: rebuilds of
// big FTS indexes go faster with them.
func (ix *Index) bigCache(ctx context.Context) func() {
	if _, err := ix.w.ExecContext(ctx, "PRAGMA cache_size = -32768"); err != nil {
		return func() {}
	}
	if err := ix.setHashSize(ctx, rebuildHashSize); err != nil {
		slog.Warn("store: FTS hashsize", "file", ix.path, "err", err)
	}
	return func() {
		ctx := context.Background()
		_, _ = ix.w.ExecContext(ctx, "PRAGMA cache_size = "+streamCacheSize)
		if err := ix.setHashSize(ctx, streamHashSize); err != nil {
			slog.Warn("store: FTS hashsize", "file", ix.path, "err", err)
		}
	}
}
