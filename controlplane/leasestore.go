package controlplane

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"mnote/controlplane/api"
)

// The lease: one turn at a time per shared session. Every change runs in
// one transaction that first bumps the session's queue counter, which
// takes the session row's lock on PostgreSQL (SQLite has one writer), so
// two servers cannot grant the lease twice.

// lockQueue takes the session's lease lock inside tx and returns the
// next queue ticket.
func (s *sqlStore) lockQueue(ctx context.Context, tx *sql.Tx, sessionID string) (int64, error) {
	var ticket int64
	err := tx.QueryRowContext(ctx, s.q.rebind("UPDATE shared_sessions SET queue_next = queue_next + 1 WHERE session_id = ? RETURNING queue_next"), sessionID).Scan(&ticket)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	return ticket, err
}

type leaseRow struct {
	run, user, device string
	granted, expires  int64
}

// settle ends an expired lease and gives a free lease to the queue's
// head; it reports whether anything changed.
func (s *sqlStore) settle(ctx context.Context, tx *sql.Tx, sessionID string, now time.Time, ttl time.Duration) (*leaseRow, bool, error) {
	var l leaseRow
	changed := false
	err := tx.QueryRowContext(ctx, s.q.rebind("SELECT run_id, user_id, device_id, granted_ns, expires_ns FROM leases WHERE session_id = ?"), sessionID).
		Scan(&l.run, &l.user, &l.device, &l.granted, &l.expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, false, err
	case l.expires > nanos(now):
		return &l, false, nil
	default:
		// Not renewed in time: the holder crashed or lost the network.
		if _, err := tx.ExecContext(ctx, s.q.rebind("DELETE FROM leases WHERE session_id = ?"), sessionID); err != nil {
			return nil, false, err
		}
		changed = true
	}
	err = tx.QueryRowContext(ctx, s.q.rebind("SELECT run_id, user_id, device_id FROM run_queue WHERE session_id = ? ORDER BY ticket LIMIT 1"), sessionID).
		Scan(&l.run, &l.user, &l.device)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, changed, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := s.grant(ctx, tx, sessionID, &l, now, ttl); err != nil {
		return nil, false, err
	}
	return &l, true, nil
}

// grant gives l's run the lease, taking it out of the queue.
func (s *sqlStore) grant(ctx context.Context, tx *sql.Tx, sessionID string, l *leaseRow, now time.Time, ttl time.Duration) error {
	l.granted, l.expires = nanos(now), nanos(now.Add(ttl))
	if _, err := tx.ExecContext(ctx, s.q.rebind("DELETE FROM run_queue WHERE session_id = ? AND run_id = ?"), sessionID, l.run); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, s.q.rebind(`INSERT INTO leases (session_id, run_id, user_id, device_id, granted_ns, expires_ns) VALUES (?, ?, ?, ?, ?, ?)`),
		sessionID, l.run, l.user, l.device, l.granted, l.expires)
	return err
}

// leaseState reads the lease and the queue inside q.
func (s *sqlStore) leaseState(ctx context.Context, q interface {
	querier
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, sessionID string) (api.LeaseState, error) {
	st := api.LeaseState{Queue: []api.QueuedRun{}}
	var (
		l                api.Lease
		granted, expires int64
	)
	err := q.QueryRowContext(ctx, s.q.rebind(`SELECT l.run_id, u.name, l.device_id, l.granted_ns, l.expires_ns FROM leases l JOIN users u ON u.id = l.user_id
		WHERE l.session_id = ?`), sessionID).Scan(&l.RunID, &l.Account, &l.Device, &granted, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return st, err
	default:
		l.GrantedAt, l.ExpiresAt = fromNanos(granted), fromNanos(expires)
		st.Lease = &l
	}
	queue, err := queryAll(ctx, q, s.q.rebind(`SELECT r.run_id, u.name, r.device_id, r.requested_ns FROM run_queue r JOIN users u ON u.id = r.user_id
		WHERE r.session_id = ? ORDER BY r.ticket`),
		func(rows *sql.Rows) (r api.QueuedRun, err error) {
			var ns int64
			err = rows.Scan(&r.RunID, &r.Account, &r.Device, &ns)
			r.RequestedAt = fromNanos(ns)
			return r, err
		}, sessionID)
	if err != nil {
		return st, err
	}
	for i := range queue {
		queue[i].Position = i + 1
	}
	st.Queue = queue
	return st, nil
}

func (s *sqlStore) RequestLease(ctx context.Context, userID, sessionID, runID, device string, now time.Time, ttl time.Duration) (api.LeaseState, bool, error) {
	var (
		st      api.LeaseState
		changed bool
	)
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		// The lock first: a removal or a change of role committed
		// meanwhile cannot overtake the look at the role.
		ticket, err := s.lockQueue(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		role, err := s.role(ctx, tx, userID, sessionID)
		if err != nil {
			return err
		}
		if role != api.RoleOwner && role != api.RoleEditor {
			return ErrForbidden
		}
		cur, ch, err := s.settle(ctx, tx, sessionID, now, ttl)
		if err != nil {
			return err
		}
		changed = ch
		switch {
		case cur != nil && cur.run == runID:
			if cur.user != userID {
				return badInput("run id %q is another member's; make a new one", runID)
			}
			// A heartbeat: the holder renews its lease.
			if _, err := tx.ExecContext(ctx, s.q.rebind("UPDATE leases SET expires_ns = ? WHERE session_id = ?"), nanos(now.Add(ttl)), sessionID); err != nil {
				return err
			}
		case cur == nil:
			// Free, and nobody waits (settle gave it to the queue's head
			// otherwise): the asker runs now.
			if err := s.grant(ctx, tx, sessionID, &leaseRow{run: runID, user: userID, device: device}, now, ttl); err != nil {
				return err
			}
			changed = true
		default:
			var owner string
			err := tx.QueryRowContext(ctx, s.q.rebind("SELECT user_id FROM run_queue WHERE session_id = ? AND run_id = ?"), sessionID, runID).Scan(&owner)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				if _, err := tx.ExecContext(ctx, s.q.rebind(`INSERT INTO run_queue (session_id, run_id, ticket, user_id, device_id, requested_ns) VALUES (?, ?, ?, ?, ?, ?)`),
					sessionID, runID, ticket, userID, device, nanos(now)); err != nil {
					return err
				}
				changed = true
			case err != nil:
				return err
			case owner != userID:
				return badInput("run id %q is another member's; make a new one", runID)
			}
		}
		if st, err = s.leaseState(ctx, tx, sessionID); err != nil {
			return err
		}
		if st.Lease != nil && st.Lease.RunID == runID {
			st.Granted = true
		}
		for _, q := range st.Queue {
			if q.RunID == runID {
				st.Position = q.Position
			}
		}
		return nil
	})
	return st, changed, s.wrap("request lease", err)
}

func (s *sqlStore) ReleaseLease(ctx context.Context, userID, sessionID, runID string, now time.Time, ttl time.Duration) (api.LeaseState, bool, error) {
	var (
		st      api.LeaseState
		changed bool
	)
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.lockQueue(ctx, tx, sessionID); err != nil {
			return err
		}
		role, err := s.role(ctx, tx, userID, sessionID)
		if err != nil {
			return err
		}
		// The owner may end anyone's run (a member who went away);
		// everyone else only their own.
		cond, args := " AND user_id = ?", []any{sessionID, runID, userID}
		if role == api.RoleOwner {
			cond, args = "", args[:2]
		}
		for _, tbl := range []string{"leases", "run_queue"} {
			res, err := tx.ExecContext(ctx, s.q.rebind("DELETE FROM "+tbl+" WHERE session_id = ? AND run_id = ?"+cond), args...)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				changed = true
			}
		}
		if _, ch, err := s.settle(ctx, tx, sessionID, now, ttl); err != nil {
			return err
		} else if ch {
			changed = true
		}
		st, err = s.leaseState(ctx, tx, sessionID)
		return err
	})
	return st, changed, s.wrap("release lease", err)
}

func (s *sqlStore) LeaseState(ctx context.Context, userID, sessionID string, now time.Time, ttl time.Duration) (api.LeaseState, bool, error) {
	if _, err := s.role(ctx, s.r, userID, sessionID); err != nil {
		return api.LeaseState{}, false, s.wrap("read lease", err)
	}
	st, err := s.leaseState(ctx, s.r, sessionID)
	if err != nil {
		return api.LeaseState{}, false, s.err("read lease", err)
	}
	if st.Lease == nil || st.Lease.ExpiresAt.After(now) {
		return st, false, nil
	}
	// Expired: pass it on (a write, rarely).
	changed := false
	err = s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.lockQueue(ctx, tx, sessionID); err != nil {
			return err
		}
		var err error
		if _, changed, err = s.settle(ctx, tx, sessionID, now, ttl); err != nil {
			return err
		}
		st, err = s.leaseState(ctx, tx, sessionID)
		return err
	})
	return st, changed, s.wrap("read lease", err)
}

// Presence.

func (s *sqlStore) PresenceJoin(ctx context.Context, connID, userID, sessionID, device string, now time.Time) error {
	_, err := s.w.ExecContext(ctx, s.q.rebind("INSERT INTO presence (conn_id, session_id, user_id, device_id, seen_ns) VALUES (?, ?, ?, ?, ?)"),
		connID, sessionID, userID, device, nanos(now))
	return s.wrap("join presence", err)
}

func (s *sqlStore) PresenceTouch(ctx context.Context, connID string, now time.Time) error {
	_, err := s.w.ExecContext(ctx, s.q.rebind("UPDATE presence SET seen_ns = ? WHERE conn_id = ?"), nanos(now), connID)
	return s.wrap("touch presence", err)
}

func (s *sqlStore) PresenceLeave(ctx context.Context, connID string) error {
	_, err := s.w.ExecContext(ctx, s.q.rebind("DELETE FROM presence WHERE conn_id = ?"), connID)
	return s.wrap("leave presence", err)
}

func (s *sqlStore) Viewers(ctx context.Context, sessionID string, since time.Time) ([]api.Viewer, error) {
	out, err := queryAll(ctx, s.r, s.q.rebind(`SELECT DISTINCT u.name, p.device_id FROM presence p JOIN users u ON u.id = p.user_id
		WHERE p.session_id = ? AND p.seen_ns > ? ORDER BY u.name, p.device_id`),
		func(rows *sql.Rows) (v api.Viewer, err error) {
			return v, rows.Scan(&v.Account, &v.Device)
		}, sessionID, nanos(since))
	if err != nil {
		return nil, s.err("read presence", err)
	}
	return out, nil
}
