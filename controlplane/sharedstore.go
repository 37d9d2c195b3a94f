package controlplane

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"mnote/controlplane/api"
)

// SharedStore keeps shared sessions: members and their roles, the
// roster log, the shared log of entries, the lease and its queue, who is
// viewing, devices, key envelopes and pairing mailboxes. Every method
// that takes a userID acts as that account: a session it is not a member
// of is ErrNotFound, exactly like a missing one; a member whose role does
// not allow the call gets ErrForbidden. Blobs (ciphertexts, statements,
// keys, envelopes, messages) are kept byte for byte and never read.
type SharedStore interface {
	// ShareSession makes ownerID's session a shared one, ownerID its
	// owner member, statement the roster log's first statement. Sharing
	// a shared session again changes nothing.
	ShareSession(ctx context.Context, ownerID, sessionID string, statement []byte, now time.Time) (api.SharedSession, error)
	// SharedSession is one shared session as userID (a member) sees it.
	SharedSession(ctx context.Context, userID, sessionID string) (api.SharedSession, error)
	// SharedSessions lists the shared sessions userID is a member of.
	SharedSessions(ctx context.Context, userID string) ([]api.SharedSession, error)
	// Role is userID's role in the session.
	Role(ctx context.Context, userID, sessionID string) (string, error)
	Members(ctx context.Context, userID, sessionID string) (api.MemberList, error)
	// SetMember gives account (a name) a role (not owner); only the
	// owner may. The statement is appended to the roster log.
	SetMember(ctx context.Context, ownerID, sessionID, account, role string, statement []byte, now time.Time) (api.Member, error)
	// RemoveMember takes account out of the session, with its lease,
	// its queued runs and its presence; only the owner may.
	RemoveMember(ctx context.Context, ownerID, sessionID, account string, statement []byte, now time.Time) error
	// AppendRoster appends one of the owner's statements that changes no
	// member (a new epoch) to the roster log; only the owner may.
	AppendRoster(ctx context.Context, ownerID, sessionID string, statement []byte, now time.Time) (int64, error)
	// Roster returns up to limit roster statements after seq after.
	Roster(ctx context.Context, userID, sessionID string, after int64, limit int) (api.RosterPage, error)

	// AppendEntry appends e at seq e.Seq when the log's head is e.Seq-1
	// (*HeadConflictError otherwise). A commenter may append comments
	// only, a viewer nothing (ErrForbidden); a run's kinds need the
	// run's live lease held by userID (ErrLeaseRequired).
	AppendEntry(ctx context.Context, userID, sessionID string, e api.Entry, now time.Time) (api.Entry, error)
	// Entries returns up to limit entries after seq after, in order.
	Entries(ctx context.Context, userID, sessionID string, after int64, limit int) (api.EntryPage, error)

	// RequestLease asks for the session's lease for runID (or renews
	// it): granted, or queued. changed reports a change others must hear
	// of. ttl is the lease's life from now.
	RequestLease(ctx context.Context, userID, sessionID, runID, device string, now time.Time, ttl time.Duration) (st api.LeaseState, changed bool, err error)
	// ReleaseLease ends runID's lease or takes it out of the queue (the
	// owner may end anyone's); the queue's head gets the lease.
	ReleaseLease(ctx context.Context, userID, sessionID, runID string, now time.Time, ttl time.Duration) (api.LeaseState, bool, error)
	// LeaseState is the lease and the queue; an expired lease passes to
	// the queue's head (changed).
	LeaseState(ctx context.Context, userID, sessionID string, now time.Time, ttl time.Duration) (api.LeaseState, bool, error)

	// PresenceJoin records an open live stream; PresenceTouch keeps it
	// fresh; PresenceLeave removes it.
	PresenceJoin(ctx context.Context, connID, userID, sessionID, device string, now time.Time) error
	PresenceTouch(ctx context.Context, connID string, now time.Time) error
	PresenceLeave(ctx context.Context, connID string) error
	// Viewers are the streams of the session seen since since.
	Viewers(ctx context.Context, sessionID string, since time.Time) ([]api.Viewer, error)

	DeviceStore
}

// ErrForbidden: the caller is a member whose role does not allow this.
var ErrForbidden = errors.New("the member's role does not allow this")

// ErrLeaseRequired: a run's entry from a run that does not hold the lease.
var ErrLeaseRequired = errors.New("the run does not hold the session's lease")

// HeadConflictError is AppendEntry's answer when the seq is not the next.
type HeadConflictError struct{ Head int64 }

func (e *HeadConflictError) Error() string {
	return fmt.Sprintf("the shared log's head is %d; append at %d", e.Head, e.Head+1)
}

// ErrGone: a pairing that expired or ran out of tries.
var ErrGone = errors.New("expired or used up")

// inputError is a request the store refuses for what it asks (an unknown
// account, say): a 400 with its message.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }

func badInput(format string, a ...any) error { return &inputError{fmt.Sprintf(format, a...)} }

func isBadInput(err error) bool {
	var ie *inputError
	return errors.As(err, &ie)
}

// gone is ErrNotFound for a row deleted since the caller's role was read
// (the session, deleted meanwhile), else err.
func gone(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// isRunKind reports whether kind belongs to a run (and needs the lease).
func isRunKind(kind string) bool {
	for _, k := range api.RunKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// role reads userID's role in sessionID inside q (ErrNotFound: not a
// member, or not shared).
func (s *sqlStore) role(ctx context.Context, q querier, userID, sessionID string) (string, error) {
	var role string
	err := q.QueryRowContext(ctx, s.q.rebind("SELECT role FROM members WHERE session_id = ? AND user_id = ?"), sessionID, userID).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return role, err
}

// wrap passes the store's sentinels through and names the operation of
// anything else.
func (s *sqlStore) wrap(op string, err error) error {
	var hc *HeadConflictError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrForbidden), errors.Is(err, ErrLeaseRequired),
		errors.Is(err, ErrGone), errors.As(err, &hc), isBadInput(err):
		return err
	}
	return s.err(op, err)
}

func (s *sqlStore) Role(ctx context.Context, userID, sessionID string) (string, error) {
	r, err := s.role(ctx, s.r, userID, sessionID)
	return r, s.wrap("read role", err)
}

const sharedSelect = `SELECT ` + sessionColsS + `, o.name, m.role, ss.head, ss.roster_head, ss.created_ns
	FROM shared_sessions ss
	JOIN sessions s ON s.id = ss.session_id
	JOIN users o ON o.id = s.user_id
	JOIN members m ON m.session_id = ss.session_id AND m.user_id = ?`

// sessionColsS is sessionCols of the sessions table aliased s.
const sessionColsS = "s.id, s.user_id, s.version, s.runtime, s.workspace_id, s.title, s.status, s.created_ns, s.updated_ns, s.turns, s.messages, s.tool_calls, s.copied_from"

func scanShared(row scanner) (api.SharedSession, error) {
	var (
		sh                               api.SharedSession
		owner                            string
		r                                api.SessionRecord
		created, updated, shared         int64
		turns, messages, toolCalls, head int64
	)
	err := row.Scan(&r.ID, &owner, &r.Version, &r.Runtime, &r.WorkspaceID, &r.Title, &r.Status, &created, &updated,
		&turns, &messages, &toolCalls, &r.CopiedFrom, &sh.Owner, &sh.Role, &head, &sh.RosterHead, &shared)
	if err != nil {
		return api.SharedSession{}, err
	}
	r.CreatedAt, r.UpdatedAt = fromNanos(created), fromNanos(updated)
	r.Turns, r.Messages, r.ToolCalls = int(turns), int(messages), int(toolCalls)
	sh.Session, sh.Head, sh.SharedAt = r, head, fromNanos(shared)
	return sh, nil
}

func (s *sqlStore) ShareSession(ctx context.Context, ownerID, sessionID string, statement []byte, now time.Time) (api.SharedSession, error) {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, s.q.rebind("SELECT 1 FROM sessions WHERE id = ? AND user_id = ?"), sessionID, ownerID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q.rebind(`INSERT INTO shared_sessions (session_id, head, roster_head, queue_next, created_ns)
			VALUES (?, 0, 1, 0, ?) ON CONFLICT (session_id) DO NOTHING`), sessionID, nanos(now))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // shared already
		}
		if _, err := tx.ExecContext(ctx, s.q.rebind("INSERT INTO members (session_id, user_id, role, added_ns) VALUES (?, ?, ?, ?)"),
			sessionID, ownerID, api.RoleOwner, nanos(now)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q.rebind("INSERT INTO roster_log (session_id, seq, actor_id, statement, created_ns) VALUES (?, 1, ?, ?, ?)"),
			sessionID, ownerID, statement, nanos(now))
		return err
	})
	if err != nil {
		return api.SharedSession{}, s.wrap("share session", err)
	}
	return s.SharedSession(ctx, ownerID, sessionID)
}

func (s *sqlStore) SharedSession(ctx context.Context, userID, sessionID string) (api.SharedSession, error) {
	sh, err := scanShared(s.r.QueryRowContext(ctx, s.q.rebind(sharedSelect+" WHERE ss.session_id = ?"), userID, sessionID))
	if errors.Is(err, sql.ErrNoRows) {
		return api.SharedSession{}, ErrNotFound
	}
	return sh, s.wrap("read shared session", err)
}

func (s *sqlStore) SharedSessions(ctx context.Context, userID string) ([]api.SharedSession, error) {
	out, err := queryAll(ctx, s.r, s.q.rebind(sharedSelect+" ORDER BY s.updated_ns DESC, s.id DESC"), func(rows *sql.Rows) (api.SharedSession, error) {
		return scanShared(rows)
	}, userID)
	if err != nil {
		return nil, s.err("list shared sessions", err)
	}
	return out, nil
}

func (s *sqlStore) Members(ctx context.Context, userID, sessionID string) (api.MemberList, error) {
	if _, err := s.role(ctx, s.r, userID, sessionID); err != nil {
		return api.MemberList{}, s.wrap("list members", err)
	}
	out := api.MemberList{Members: []api.Member{}}
	if err := s.r.QueryRowContext(ctx, s.q.rebind("SELECT roster_head FROM shared_sessions WHERE session_id = ?"), sessionID).Scan(&out.RosterHead); err != nil {
		return api.MemberList{}, s.wrap("list members", gone(err))
	}
	var err error
	out.Members, err = queryAll(ctx, s.r, s.q.rebind(`SELECT u.name, u.id, m.role, m.added_ns FROM members m JOIN users u ON u.id = m.user_id
		WHERE m.session_id = ? ORDER BY m.added_ns, u.name`),
		func(rows *sql.Rows) (m api.Member, err error) {
			var ns int64
			err = rows.Scan(&m.Account, &m.AccountID, &m.Role, &ns)
			m.AddedAt = fromNanos(ns)
			return m, err
		}, sessionID)
	if err != nil {
		return api.MemberList{}, s.err("list members", err)
	}
	return out, nil
}

// ownerTx checks, inside tx, that ownerID owns the shared session, and
// finds account's id (ErrNotFound for an unknown account).
func (s *sqlStore) ownerTx(ctx context.Context, tx *sql.Tx, ownerID, sessionID, account string) (string, error) {
	role, err := s.role(ctx, tx, ownerID, sessionID)
	if err != nil {
		return "", err
	}
	if role != api.RoleOwner {
		return "", ErrForbidden
	}
	var uid string
	err = tx.QueryRowContext(ctx, s.q.rebind("SELECT id FROM users WHERE name = ?"), account).Scan(&uid)
	if errors.Is(err, sql.ErrNoRows) {
		return "", badInput("no account named %q", account)
	}
	if err != nil {
		return "", err
	}
	if uid == ownerID {
		return "", badInput("the owner's own role cannot be changed")
	}
	return uid, nil
}

// appendRoster appends statement to the roster log inside tx.
func (s *sqlStore) appendRoster(ctx context.Context, tx *sql.Tx, actorID, sessionID string, statement []byte, now time.Time) error {
	var seq int64
	if err := tx.QueryRowContext(ctx, s.q.rebind("UPDATE shared_sessions SET roster_head = roster_head + 1 WHERE session_id = ? RETURNING roster_head"), sessionID).Scan(&seq); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, s.q.rebind("INSERT INTO roster_log (session_id, seq, actor_id, statement, created_ns) VALUES (?, ?, ?, ?, ?)"),
		sessionID, seq, actorID, statement, nanos(now))
	return err
}

// dropRuns takes userID's lease and queued runs out of the session.
func (s *sqlStore) dropRuns(ctx context.Context, tx *sql.Tx, userID, sessionID string) error {
	if _, err := tx.ExecContext(ctx, s.q.rebind("DELETE FROM leases WHERE session_id = ? AND user_id = ?"), sessionID, userID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, s.q.rebind("DELETE FROM run_queue WHERE session_id = ? AND user_id = ?"), sessionID, userID)
	return err
}

func (s *sqlStore) SetMember(ctx context.Context, ownerID, sessionID, account, role string, statement []byte, now time.Time) (api.Member, error) {
	m := api.Member{Account: account, Role: role}
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		uid, err := s.ownerTx(ctx, tx, ownerID, sessionID, account)
		if err != nil {
			return err
		}
		// The session row's lock first, as every change of the lease
		// takes it first: no deadlock between the two.
		if err := s.appendRoster(ctx, tx, ownerID, sessionID, statement, now); err != nil {
			return err
		}
		m.AccountID = uid
		var added int64
		err = tx.QueryRowContext(ctx, s.q.rebind(`INSERT INTO members (session_id, user_id, role, added_ns) VALUES (?, ?, ?, ?)
			ON CONFLICT (session_id, user_id) DO UPDATE SET role = excluded.role RETURNING added_ns`),
			sessionID, uid, role, nanos(now)).Scan(&added)
		if err != nil {
			return err
		}
		m.AddedAt = fromNanos(added)
		if role != api.RoleEditor {
			return s.dropRuns(ctx, tx, uid, sessionID)
		}
		return nil
	})
	return m, s.wrap("set member", err)
}

func (s *sqlStore) RemoveMember(ctx context.Context, ownerID, sessionID, account string, statement []byte, now time.Time) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		uid, err := s.ownerTx(ctx, tx, ownerID, sessionID, account)
		if err != nil {
			return err
		}
		if err := s.appendRoster(ctx, tx, ownerID, sessionID, statement, now); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q.rebind("DELETE FROM members WHERE session_id = ? AND user_id = ?"), sessionID, uid)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return badInput("%q is not a member of this session", account)
		}
		if err := s.dropRuns(ctx, tx, uid, sessionID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q.rebind("DELETE FROM presence WHERE session_id = ? AND user_id = ?"), sessionID, uid)
		return err
	})
	return s.wrap("remove member", err)
}

func (s *sqlStore) AppendRoster(ctx context.Context, ownerID, sessionID string, statement []byte, now time.Time) (int64, error) {
	var seq int64
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		role, err := s.role(ctx, tx, ownerID, sessionID)
		if err != nil {
			return err
		}
		if role != api.RoleOwner {
			return ErrForbidden
		}
		if err := s.appendRoster(ctx, tx, ownerID, sessionID, statement, now); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, s.q.rebind("SELECT roster_head FROM shared_sessions WHERE session_id = ?"), sessionID).Scan(&seq)
	})
	return seq, s.wrap("append to the roster", err)
}

func (s *sqlStore) Roster(ctx context.Context, userID, sessionID string, after int64, limit int) (api.RosterPage, error) {
	if _, err := s.role(ctx, s.r, userID, sessionID); err != nil {
		return api.RosterPage{}, s.wrap("read roster", err)
	}
	out := api.RosterPage{Statements: []api.RosterStatement{}}
	if err := s.r.QueryRowContext(ctx, s.q.rebind("SELECT roster_head FROM shared_sessions WHERE session_id = ?"), sessionID).Scan(&out.Head); err != nil {
		return api.RosterPage{}, s.wrap("read roster", gone(err))
	}
	var err error
	out.Statements, err = queryAll(ctx, s.r, s.q.rebind(`SELECT r.seq, u.name, r.statement, r.created_ns FROM roster_log r JOIN users u ON u.id = r.actor_id
		WHERE r.session_id = ? AND r.seq > ? ORDER BY r.seq LIMIT ?`),
		func(rows *sql.Rows) (st api.RosterStatement, err error) {
			var ns int64
			err = rows.Scan(&st.Seq, &st.Actor, &st.Statement, &ns)
			st.CreatedAt = fromNanos(ns)
			return st, err
		}, sessionID, after, limit)
	if err != nil {
		return api.RosterPage{}, s.err("read roster", err)
	}
	return out, nil
}

// Entries.

// maxEntriesBytes bounds the ciphertexts of one page of entries: a week
// of entries comes in one request, a huge log in pages (More).
const maxEntriesBytes = 8 << 20

func (s *sqlStore) AppendEntry(ctx context.Context, userID, sessionID string, e api.Entry, now time.Time) (api.Entry, error) {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		// The caller's role and the run's lease, checked before the
		// head moves (a non-member learns nothing, not even the head)
		// and again after: moving the head locks the session's row,
		// which every change of members and of the lease takes too, so
		// on PostgreSQL the second look cannot be overtaken by a
		// removal or an expiry committed meanwhile.
		check := func() error {
			role, err := s.role(ctx, tx, userID, sessionID)
			if err != nil {
				return err
			}
			switch {
			case role == api.RoleViewer:
				return ErrForbidden
			case role == api.RoleCommenter && e.Kind != api.KindComment:
				return ErrForbidden
			case !isRunKind(e.Kind):
				return nil
			}
			var (
				run, holder string
				expires     int64
			)
			err = tx.QueryRowContext(ctx, s.q.rebind("SELECT run_id, user_id, expires_ns FROM leases WHERE session_id = ?"), sessionID).Scan(&run, &holder, &expires)
			if errors.Is(err, sql.ErrNoRows) || err == nil && (run != e.RunID || holder != userID || expires <= nanos(now)) {
				return ErrLeaseRequired
			}
			return err
		}
		if err := check(); err != nil {
			return err
		}
		// Compare and append: the head moves from seq-1 to seq or
		// nothing happens (PostgreSQL re-checks the WHERE after waiting
		// for a concurrent writer's row lock).
		res, err := tx.ExecContext(ctx, s.q.rebind("UPDATE shared_sessions SET head = head + 1 WHERE session_id = ? AND head = ?"), sessionID, e.Seq-1)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			var head int64
			if err := tx.QueryRowContext(ctx, s.q.rebind("SELECT head FROM shared_sessions WHERE session_id = ?"), sessionID).Scan(&head); err != nil {
				return err
			}
			return &HeadConflictError{Head: head}
		}
		if s.q.pg {
			if err := check(); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, s.q.rebind(`INSERT INTO entries (session_id, seq, epoch, kind, run_id, author_device, actor_id, size, created_ns, ciphertext)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), sessionID, e.Seq, e.Epoch, e.Kind, e.RunID, e.AuthorDevice, userID, len(e.Ciphertext), nanos(now), e.Ciphertext)
		return err
	})
	if err != nil {
		return api.Entry{}, s.wrap("append entry", err)
	}
	var name string
	if err := s.r.QueryRowContext(ctx, s.q.rebind("SELECT name FROM users WHERE id = ?"), userID).Scan(&name); err != nil {
		return api.Entry{}, s.err("append entry", err)
	}
	e.Actor, e.Size, e.Time = name, len(e.Ciphertext), fromNanos(nanos(now))
	return e, nil
}

func (s *sqlStore) Entries(ctx context.Context, userID, sessionID string, after int64, limit int) (api.EntryPage, error) {
	if _, err := s.role(ctx, s.r, userID, sessionID); err != nil {
		return api.EntryPage{}, s.wrap("read entries", err)
	}
	out := api.EntryPage{Entries: []api.Entry{}}
	if err := s.r.QueryRowContext(ctx, s.q.rebind("SELECT head FROM shared_sessions WHERE session_id = ?"), sessionID).Scan(&out.Head); err != nil {
		return api.EntryPage{}, s.wrap("read entries", gone(err))
	}
	rows, err := s.r.QueryContext(ctx, s.q.rebind(`SELECT e.seq, e.epoch, e.kind, e.run_id, e.author_device, u.name, e.size, e.created_ns, e.ciphertext
		FROM entries e JOIN users u ON u.id = e.actor_id
		WHERE e.session_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`), sessionID, after, limit)
	if err != nil {
		return api.EntryPage{}, s.err("read entries", err)
	}
	defer rows.Close()
	total := 0
	for rows.Next() && total < maxEntriesBytes {
		var (
			e        api.Entry
			size, ns int64
		)
		if err := rows.Scan(&e.Seq, &e.Epoch, &e.Kind, &e.RunID, &e.AuthorDevice, &e.Actor, &size, &ns, &e.Ciphertext); err != nil {
			return api.EntryPage{}, s.err("read entries", err)
		}
		e.Size, e.Time = int(size), fromNanos(ns)
		out.Entries = append(out.Entries, e)
		total += len(e.Ciphertext)
	}
	if err := rows.Err(); err != nil {
		return api.EntryPage{}, s.err("read entries", err)
	}
	if n := len(out.Entries); n > 0 {
		out.More = out.Entries[n-1].Seq < out.Head
	}
	return out, nil
}
