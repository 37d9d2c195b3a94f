package controlplane

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"mnote/controlplane/api"
)

// sqlStore is Store on database/sql, for SQLite (mattn/go-sqlite3) and
// PostgreSQL (pgx's stdlib driver). The SQL is the subset both speak;
// queries are written with ? and rebound to $N for PostgreSQL.
type sqlStore struct {
	kind  string // "sqlite" or "postgres"
	where string // the file, or the server without password, for errors
	w     *sql.DB
	r     *sql.DB // SQLite: read-only pool; PostgreSQL: the same pool as w
	q     queries
	batch *putBatcher // SQLite: group commit of PutSession; nil on PostgreSQL
	hub   *hub        // the doorbell of shared sessions (hub.go)
}

// sharedHub is the doorbell of the store's shared sessions.
func (s *sqlStore) sharedHub() *hub { return s.hub }

var _ Store = (*sqlStore)(nil)

type queries struct{ pg bool }

// rebind turns ? placeholders into $1, $2, … for PostgreSQL. Our queries
// have no ? inside string literals.
func (q queries) rebind(query string) string {
	if !q.pg {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (s *sqlStore) err(op string, err error) error {
	return fmt.Errorf("controlplane: %s store %s: %s: %w", s.kind, s.where, op, err)
}

func (s *sqlStore) Close() error {
	if s.hub != nil {
		s.hub.close()
	}
	var errs []error
	if s.r != nil && s.r != s.w {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	return errors.Join(errs...)
}

func (s *sqlStore) Ping(ctx context.Context) error {
	if err := s.w.PingContext(ctx); err != nil {
		return s.err("ping", err)
	}
	var one int
	if err := s.r.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return s.err("ping", err)
	}
	return nil
}

// newID returns prefix + a lowercase ULID.
func newID(prefix string) string {
	return prefix + strings.ToLower(ulid.Make().String())
}

func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func nullNanos(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

func fromNullNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return fromNanos(n.Int64)
}

// withTx runs fn in a write transaction (IMMEDIATE on SQLite).
func (s *sqlStore) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Users and tokens.

func (s *sqlStore) AddUser(ctx context.Context, name, tokenHash string, now time.Time) (User, TokenInfo, error) {
	u := User{ID: newID("usr_"), Name: name}
	t := TokenInfo{ID: newID("tok_"), UserID: u.ID, CreatedAt: now.UTC()}
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q.rebind("INSERT INTO users (id, name, created_ns) VALUES (?, ?, ?)"), u.ID, u.Name, nanos(now)); err != nil {
			if isUniqueViolation(err) {
				return ErrNameTaken
			}
			return err
		}
		_, err := tx.ExecContext(ctx, s.q.rebind("INSERT INTO tokens (id, user_id, hash, created_ns) VALUES (?, ?, ?, ?)"), t.ID, u.ID, tokenHash, nanos(now))
		return err
	})
	if errors.Is(err, ErrNameTaken) {
		return User{}, TokenInfo{}, fmt.Errorf("user %q: %w", name, ErrNameTaken)
	}
	if err != nil {
		return User{}, TokenInfo{}, s.err("add user", err)
	}
	return u, t, nil
}

func (s *sqlStore) AddToken(ctx context.Context, user, tokenHash string, now time.Time) (TokenInfo, error) {
	t := TokenInfo{ID: newID("tok_"), CreatedAt: now.UTC()}
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, s.q.rebind("SELECT id FROM users WHERE id = ? OR name = ? ORDER BY id LIMIT 1"), user, user).Scan(&t.UserID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q.rebind("INSERT INTO tokens (id, user_id, hash, created_ns) VALUES (?, ?, ?, ?)"), t.ID, t.UserID, tokenHash, nanos(now))
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return TokenInfo{}, fmt.Errorf("no user %q: %w", user, ErrNotFound)
	}
	if err != nil {
		return TokenInfo{}, s.err("add token", err)
	}
	return t, nil
}

func (s *sqlStore) RevokeToken(ctx context.Context, idOrHash string, now time.Time) (TokenInfo, error) {
	var (
		t       TokenInfo
		created int64
		revoked sql.NullInt64
	)
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q.rebind("UPDATE tokens SET revoked_ns = ? WHERE (id = ? OR hash = ?) AND revoked_ns IS NULL"), nanos(now), idOrHash, idOrHash)
		if err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx, s.q.rebind("SELECT id, user_id, created_ns, revoked_ns FROM tokens WHERE id = ? OR hash = ?"), idOrHash, idOrHash).Scan(&t.ID, &t.UserID, &created, &revoked)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return TokenInfo{}, fmt.Errorf("no token %q: %w", idOrHash, ErrNotFound)
	}
	if err != nil {
		return TokenInfo{}, s.err("revoke token", err)
	}
	t.CreatedAt, t.RevokedAt = fromNanos(created), fromNullNanos(revoked)
	return t, nil
}

func (s *sqlStore) Users(ctx context.Context) ([]UserInfo, error) {
	rows, err := s.r.QueryContext(ctx, "SELECT id, name, created_ns FROM users ORDER BY name, id")
	if err != nil {
		return nil, s.err("list users", err)
	}
	var users []UserInfo
	byID := map[string]int{}
	for rows.Next() {
		var (
			u  UserInfo
			ns int64
		)
		if err := rows.Scan(&u.ID, &u.Name, &ns); err != nil {
			rows.Close()
			return nil, s.err("list users", err)
		}
		u.CreatedAt = fromNanos(ns)
		byID[u.ID] = len(users)
		users = append(users, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.err("list users", err)
	}
	rows, err = s.r.QueryContext(ctx, "SELECT id, user_id, created_ns, revoked_ns FROM tokens ORDER BY created_ns, id")
	if err != nil {
		return nil, s.err("list tokens", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			t       TokenInfo
			ns      int64
			revoked sql.NullInt64
		)
		if err := rows.Scan(&t.ID, &t.UserID, &ns, &revoked); err != nil {
			return nil, s.err("list tokens", err)
		}
		t.CreatedAt, t.RevokedAt = fromNanos(ns), fromNullNanos(revoked)
		if i, ok := byID[t.UserID]; ok {
			users[i].Tokens = append(users[i].Tokens, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.err("list tokens", err)
	}
	return users, nil
}

func (s *sqlStore) Authenticate(ctx context.Context, tokenHash string) (Principal, error) {
	var p Principal
	err := s.r.QueryRowContext(ctx, s.q.rebind(`SELECT t.id, u.id, u.name FROM tokens t JOIN users u ON u.id = t.user_id
		WHERE t.hash = ? AND t.revoked_ns IS NULL`), tokenHash).Scan(&p.TokenID, &p.ID, &p.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return Principal{}, ErrNotFound
	}
	if err != nil {
		return Principal{}, s.err("authenticate", err)
	}
	return p, nil
}

// Sessions.

const sessionCols = "id, user_id, version, runtime, workspace_id, title, status, created_ns, updated_ns, turns, messages, tool_calls, copied_from"

type scanner interface{ Scan(dest ...any) error }

// scanSession reads sessionCols; it returns the record and its owner.
func scanSession(row scanner) (api.SessionRecord, string, error) {
	var (
		r                         api.SessionRecord
		owner                     string
		created, updated          int64
		turns, messages, toolCall int64
	)
	err := row.Scan(&r.ID, &owner, &r.Version, &r.Runtime, &r.WorkspaceID, &r.Title, &r.Status, &created, &updated, &turns, &messages, &toolCall, &r.CopiedFrom)
	if err != nil {
		return api.SessionRecord{}, "", err
	}
	r.CreatedAt, r.UpdatedAt = fromNanos(created), fromNanos(updated)
	r.Turns, r.Messages, r.ToolCalls = int(turns), int(messages), int(toolCall)
	return r, owner, nil
}

// upsertSession inserts a new id, or replaces the row when it is the same
// user's and holds a lower version; otherwise it changes nothing and
// returns no row. copied_from is the server's: a PUT never changes it.
const upsertSession = `INSERT INTO sessions (` + sessionCols + `)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')
ON CONFLICT (id) DO UPDATE SET
	version = excluded.version, runtime = excluded.runtime, workspace_id = excluded.workspace_id,
	title = excluded.title, status = excluded.status, created_ns = excluded.created_ns,
	updated_ns = excluded.updated_ns, turns = excluded.turns, messages = excluded.messages,
	tool_calls = excluded.tool_calls
WHERE sessions.user_id = excluded.user_id AND sessions.version < excluded.version
RETURNING ` + sessionCols

func (s *sqlStore) PutSession(ctx context.Context, userID string, rec api.SessionRecord) (api.SessionRecord, error) {
	if s.batch != nil {
		return s.batch.put(ctx, userID, rec)
	}
	return s.putOn(ctx, s.w, userID, rec)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// putOn runs the upsert on q (the pool, or the group commit's
// transaction) and, when it changed nothing, finds out why.
func (s *sqlStore) putOn(ctx context.Context, q querier, userID string, rec api.SessionRecord) (api.SessionRecord, error) {
	// A few rounds at most: the row may change between the upsert and the
	// look that explains why it did nothing (deleted, or replaced by a
	// newer version from another request).
	for range 5 {
		got, _, err := scanSession(q.QueryRowContext(ctx, s.q.rebind(upsertSession),
			rec.ID, userID, rec.Version, rec.Runtime, rec.WorkspaceID, rec.Title, rec.Status,
			nanos(rec.CreatedAt), nanos(rec.UpdatedAt), rec.Turns, rec.Messages, rec.ToolCalls))
		if err == nil {
			return got, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return api.SessionRecord{}, s.err("put session", err)
		}
		cur, owner, err := scanSession(q.QueryRowContext(ctx, s.q.rebind("SELECT "+sessionCols+" FROM sessions WHERE id = ?"), rec.ID))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue // deleted meanwhile: insert again
		case err != nil:
			return api.SessionRecord{}, s.err("put session", err)
		case owner != userID:
			return api.SessionRecord{}, ErrNotFound
		case cur.Version == rec.Version:
			return cur, nil
		case cur.Version > rec.Version:
			return api.SessionRecord{}, &StaleError{Current: cur}
		}
	}
	return api.SessionRecord{}, s.err("put session", errors.New("the record kept changing under concurrent writes; try again"))
}

func (s *sqlStore) GetSession(ctx context.Context, userID, id string) (api.SessionRecord, error) {
	// The owner's, or a shared session's member's.
	rec, _, err := scanSession(s.r.QueryRowContext(ctx, s.q.rebind("SELECT "+sessionCols+` FROM sessions WHERE id = ?
		AND (user_id = ? OR EXISTS (SELECT 1 FROM members m WHERE m.session_id = sessions.id AND m.user_id = ?))`), id, userID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return api.SessionRecord{}, ErrNotFound
	}
	if err != nil {
		return api.SessionRecord{}, s.err("get session", err)
	}
	return rec, nil
}

func (s *sqlStore) ListSessions(ctx context.Context, userID string, limit int, after Cursor) ([]api.SessionRecord, error) {
	var (
		rows *sql.Rows
		err  error
	)
	if after.IsZero() {
		rows, err = s.r.QueryContext(ctx, s.q.rebind("SELECT "+sessionCols+` FROM sessions WHERE user_id = ?
			ORDER BY updated_ns DESC, id DESC LIMIT ?`), userID, limit)
	} else {
		ns := nanos(after.UpdatedAt)
		rows, err = s.r.QueryContext(ctx, s.q.rebind("SELECT "+sessionCols+` FROM sessions
			WHERE user_id = ? AND (updated_ns < ? OR (updated_ns = ? AND id < ?))
			ORDER BY updated_ns DESC, id DESC LIMIT ?`), userID, ns, ns, after.ID, limit)
	}
	if err != nil {
		return nil, s.err("list sessions", err)
	}
	defer rows.Close()
	out := make([]api.SessionRecord, 0, min(limit, 128))
	for rows.Next() {
		rec, _, err := scanSession(rows)
		if err != nil {
			return nil, s.err("list sessions", err)
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, s.err("list sessions", err)
	}
	return out, nil
}

func (s *sqlStore) DeleteSession(ctx context.Context, userID, id string) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q.rebind("DELETE FROM shares WHERE session_id = ? AND user_id = ?"), id, userID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q.rebind("DELETE FROM sessions WHERE id = ? AND user_id = ?"), id, userID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return s.err("delete session", err)
	}
	return err
}

// Shares.

func (s *sqlStore) CreateShare(ctx context.Context, userID string, sh StoredShare) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, s.q.rebind("SELECT 1 FROM sessions WHERE id = ? AND user_id = ?"), sh.SessionID, userID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q.rebind(`INSERT INTO shares (id, token_hash, user_id, session_id, snapshot, created_ns, expires_ns)
			VALUES (?, ?, ?, ?, ?, ?, ?)`), sh.ID, sh.TokenHash, userID, sh.SessionID, string(sh.Snapshot), nanos(sh.CreatedAt), nullNanos(sh.ExpiresAt))
		return err
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return s.err("create share", err)
	}
	return err
}

const shareCols = "id, token_hash, user_id, session_id, created_ns, expires_ns"

func scanShare(row scanner, snapshot *string) (StoredShare, error) {
	var (
		sh      StoredShare
		created int64
		expires sql.NullInt64
	)
	dest := []any{&sh.ID, &sh.TokenHash, &sh.UserID, &sh.SessionID, &created, &expires}
	if snapshot != nil {
		dest = append(dest, snapshot)
	}
	if err := row.Scan(dest...); err != nil {
		return StoredShare{}, err
	}
	sh.CreatedAt, sh.ExpiresAt = fromNanos(created), fromNullNanos(expires)
	return sh, nil
}

func (s *sqlStore) ListShares(ctx context.Context, userID string, now time.Time) ([]StoredShare, error) {
	rows, err := s.r.QueryContext(ctx, s.q.rebind("SELECT "+shareCols+` FROM shares
		WHERE user_id = ? AND (expires_ns IS NULL OR expires_ns > ?) ORDER BY created_ns DESC, id DESC`), userID, nanos(now))
	if err != nil {
		return nil, s.err("list shares", err)
	}
	defer rows.Close()
	out := []StoredShare{}
	for rows.Next() {
		sh, err := scanShare(rows, nil)
		if err != nil {
			return nil, s.err("list shares", err)
		}
		out = append(out, sh)
	}
	if err := rows.Err(); err != nil {
		return nil, s.err("list shares", err)
	}
	return out, nil
}

func (s *sqlStore) DeleteShare(ctx context.Context, userID, id string) error {
	res, err := s.w.ExecContext(ctx, s.q.rebind("DELETE FROM shares WHERE id = ? AND user_id = ?"), id, userID)
	if err != nil {
		return s.err("delete share", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return s.err("delete share", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

const shareByTokenHash = "SELECT " + shareCols + ", snapshot FROM shares WHERE token_hash = ? AND (expires_ns IS NULL OR expires_ns > ?)"

func (s *sqlStore) ShareByTokenHash(ctx context.Context, tokenHash string, now time.Time) (StoredShare, error) {
	var snap string
	sh, err := scanShare(s.r.QueryRowContext(ctx, s.q.rebind(shareByTokenHash), tokenHash, nanos(now)), &snap)
	if errors.Is(err, sql.ErrNoRows) {
		return StoredShare{}, ErrNotFound
	}
	if err != nil {
		return StoredShare{}, s.err("read share", err)
	}
	sh.Snapshot = []byte(snap)
	return sh, nil
}

func (s *sqlStore) CopyShare(ctx context.Context, userID, tokenHash string, now time.Time, build func(StoredShare) (api.SessionRecord, error)) (api.SessionRecord, StoredShare, error) {
	var (
		rec api.SessionRecord
		sh  StoredShare
	)
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var snap string
		var err error
		sh, err = scanShare(tx.QueryRowContext(ctx, s.q.rebind(shareByTokenHash), tokenHash, nanos(now)), &snap)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		sh.Snapshot = []byte(snap)
		if rec, err = build(sh); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q.rebind("INSERT INTO sessions ("+sessionCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
			rec.ID, userID, rec.Version, rec.Runtime, rec.WorkspaceID, rec.Title, rec.Status,
			nanos(rec.CreatedAt), nanos(rec.UpdatedAt), rec.Turns, rec.Messages, rec.ToolCalls, rec.CopiedFrom)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return api.SessionRecord{}, StoredShare{}, err
		}
		return api.SessionRecord{}, StoredShare{}, s.err("copy share", err)
	}
	return rec, sh, nil
}

func (s *sqlStore) PurgeExpired(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.w.ExecContext(ctx, s.q.rebind("DELETE FROM shares WHERE expires_ns IS NOT NULL AND expires_ns <= ?"), nanos(now))
	if err != nil {
		return 0, s.err("purge expired shares", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, s.err("purge expired shares", err)
	}
	return n, nil
}
