package controlplane

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/mattn/go-sqlite3"

	"mnote/store/sqlitedb"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DefaultDB is the store used when none is given: a SQLite file in the
// current folder.
const DefaultDB = "sqlite:mnote-controlplane.db"

// Open opens the store named by db and brings its schema up to date:
//
//	postgres://user:pass@host:5432/dbname?sslmode=…   PostgreSQL (postgresql:// too)
//	sqlite:PATH                                       a SQLite file (created if missing)
//	PATH                                              the same
func Open(ctx context.Context, db string) (Store, error) {
	var (
		s   *sqlStore
		err error
	)
	switch {
	case db == "":
		return nil, errors.New("controlplane: no database given; use --db sqlite:PATH or --db postgres://…")
	case strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		s, err = openPostgres(ctx, db)
	default:
		path := strings.TrimPrefix(strings.TrimPrefix(db, "sqlite:"), "//")
		s, err = openSQLite(ctx, path)
	}
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("controlplane: %s: migrate the schema: %w", s.where, err)
	}
	return s, nil
}

// sqliteDSN: WAL so readers never wait for the writer; synchronous=FULL so
// a commit is on disk (not just in the OS cache) before the server answers
// 200 — a power cut loses nothing that was accepted; a busy timeout so a
// second process (a `user add` while serving) waits instead of failing.
func sqliteDSN(path string, write bool) string {
	q := "_busy_timeout=5000&_foreign_keys=1&_synchronous=FULL"
	if write {
		q += "&_journal_mode=WAL&_txlock=immediate"
	} else {
		q += "&_query_only=1"
	}
	return sqlitedb.DSN(path, q)
}

func openSQLite(ctx context.Context, path string) (_ *sqlStore, err error) {
	if path == "" {
		return nil, errors.New("controlplane: --db sqlite: needs a file path, e.g. sqlite:./mnote-controlplane.db")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("controlplane: database %s: %w", path, err)
	}
	// Create the file ourselves so it is 0600 (the -wal and -shm files
	// get the same mode): it holds token hashes and share snapshots.
	if err := sqlitedb.Create(abs); err != nil {
		return nil, fmt.Errorf("controlplane: open database %s: %w (check that the folder exists and is writable)", abs, err)
	}
	s := &sqlStore{kind: "sqlite", where: abs}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if s.w, err = sqlitedb.OpenWriter(ctx, sqliteDSN(abs, true)); err != nil {
		return nil, fmt.Errorf("controlplane: open database %s: %w (is it a SQLite file?)", abs, err)
	}
	if s.r, err = sqlitedb.OpenReaders(sqliteDSN(abs, false)); err != nil {
		return nil, fmt.Errorf("controlplane: open database %s: %w", abs, err)
	}
	s.q = queries{}
	s.batch = &putBatcher{s: s}
	s.hub = newHub()
	return s, nil
}

func openPostgres(ctx context.Context, db string) (_ *sqlStore, err error) {
	cfg, err := pgx.ParseConfig(db)
	if err != nil {
		// pgx leaves the password out of its parse errors.
		return nil, fmt.Errorf("controlplane: --db: %w", err)
	}
	where := fmt.Sprintf("postgres %s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
	s := &sqlStore{kind: "postgres", where: where}
	s.w = stdlib.OpenDB(*cfg)
	n := min(32, max(8, 4*runtime.GOMAXPROCS(0)))
	s.w.SetMaxOpenConns(n)
	s.w.SetMaxIdleConns(n)
	s.w.SetConnMaxIdleTime(5 * time.Minute)
	s.r = s.w
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := s.w.PingContext(pctx); err != nil {
		s.w.Close()
		return nil, fmt.Errorf("controlplane: connect to %s: %w (is PostgreSQL running and the URL right?)", where, err)
	}
	s.q = queries{pg: true}
	s.hub = newHub()
	s.hub.pg = newPGBell(s.hub, db, s.w)
	return s, nil
}

type migration struct {
	version int
	name    string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		prefix, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(prefix)
		if err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql", e.Name())
		}
		ms = append(ms, migration{v, e.Name()})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	return ms, nil
}

// pgMigrationLock is the advisory lock key that serializes migrations of
// servers starting at once on one PostgreSQL database.
const pgMigrationLock = 0x6d6e6f7465 // "mnote"

// migrate applies the embedded migrations not yet recorded in
// schema_migrations, each in one transaction with its record.
func (s *sqlStore) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if s.kind == "postgres" {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", pgMigrationLock); err != nil {
			return fmt.Errorf("take the migration lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", pgMigrationLock)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_ns BIGINT NOT NULL
)`); err != nil {
		return err
	}
	applied := map[int]bool{}
	rows, err := conn.QueryContext(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return err
	}
	latest := 0
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied[v] = true
		latest = max(latest, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(ms) > 0 && latest > ms[len(ms)-1].version {
		return fmt.Errorf("schema version %d is newer than this mnote-controlplane knows (%d); run a newer mnote-controlplane", latest, ms[len(ms)-1].version)
	}
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		body, err := migrationFS.ReadFile("migrations/" + m.name)
		if err != nil {
			return err
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		// Another process may have applied it since the list was read
		// (SQLite: the transaction is IMMEDIATE, so now it cannot).
		var done int
		if err := tx.QueryRowContext(ctx, s.q.rebind("SELECT count(*) FROM schema_migrations WHERE version = ?"), m.version).Scan(&done); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if done > 0 {
			tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		rewrote := false
		if step := migrationSteps[m.version]; step != nil {
			if rewrote, err = step(ctx, tx, s.q); err != nil {
				tx.Rollback()
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.q.rebind("INSERT INTO schema_migrations (version, name, applied_ns) VALUES (?, ?, ?)"), m.version, m.name, time.Now().UnixNano()); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		slog.Info("controlplane: schema migrated", "store", s.kind, "version", m.version, "migration", m.name)
		if rewrote && s.kind == "sqlite" {
			// The old values stay in free pages and in the WAL until
			// overwritten: rebuild the file and empty the WAL.
			if _, err := conn.ExecContext(ctx, "VACUUM"); err != nil {
				return fmt.Errorf("migration %s: vacuum: %w", m.name, err)
			}
			if _, err := conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
				return fmt.Errorf("migration %s: checkpoint: %w", m.name, err)
			}
		}
	}
	return nil
}

// migrationSteps are the Go parts of migrations, by version: each runs in
// its migration's transaction after the SQL, and reports whether it
// rewrote values that must not survive anywhere in the database file
// (SQLite is then vacuumed).
var migrationSteps = map[int]func(ctx context.Context, tx *sql.Tx, q queries) (rewrote bool, err error){
	2: hashShareTokens,
}

// hashShareTokens (migration 0002) replaces each share token stored in
// clear by its hash: the share keeps working by its URL, and the
// database no longer holds what opens it.
func hashShareTokens(ctx context.Context, tx *sql.Tx, q queries) (bool, error) {
	type row struct{ id, token string }
	rows, err := tx.QueryContext(ctx, "SELECT id, token_hash FROM shares")
	if err != nil {
		return false, fmt.Errorf("read the share tokens: %w", err)
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.token); err != nil {
			rows.Close()
			return false, fmt.Errorf("read the share tokens: %w", err)
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("read the share tokens: %w", err)
	}
	for _, r := range all {
		if _, err := tx.ExecContext(ctx, q.rebind("UPDATE shares SET token_hash = ? WHERE id = ?"), HashToken(r.token), r.id); err != nil {
			return false, fmt.Errorf("hash the token of share %s: %w", r.id, err)
		}
	}
	return len(all) > 0, nil
}

// isUniqueViolation reports whether err is a UNIQUE or PRIMARY KEY
// constraint failure, on either store.
func isUniqueViolation(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.ExtendedCode == sqlite3.ErrConstraintUnique || se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	return false
}
