package controlplane

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"time"

	"mnote/controlplane/api"
)

// DeviceStore keeps accounts' devices and device logs, the key
// envelopes of shared sessions and the pairing mailboxes. Blobs are
// opaque; as everywhere, another account's row is ErrNotFound.
type DeviceStore interface {
	// PutDevice stores userID's device and appends statement to the
	// account's device log. A device keeps its key: another key for the
	// same id is *DeviceKeyConflictError.
	PutDevice(ctx context.Context, userID, deviceID string, publicKey, statement []byte, now time.Time) (api.Device, error)
	// RemoveDevice deletes the device and its key envelopes, and appends
	// statement to the device log.
	RemoveDevice(ctx context.Context, userID, deviceID string, statement []byte, now time.Time) error
	// Devices lists account's devices (a name; "" for userID's own) when
	// it is userID or shares a session with userID.
	Devices(ctx context.Context, userID, account string) (api.DeviceList, error)
	// DeviceLog is account's device statements after seq after.
	DeviceLog(ctx context.Context, userID, account string, after int64, limit int) (api.DeviceLogPage, error)

	// PutEnvelopes stores the session's key of epoch wrapped for
	// members' devices; only the owner may, for members' devices.
	PutEnvelopes(ctx context.Context, ownerID, sessionID string, epoch int64, envs []api.KeyEnvelope, now time.Time) error
	// Envelopes are userID's envelopes of the session for its device,
	// for the epochs after after.
	Envelopes(ctx context.Context, userID, sessionID, deviceID string, after int64) ([]api.KeyEnvelope, error)

	// CreatePairing opens a mailbox of userID's found by codeHash.
	CreatePairing(ctx context.Context, userID, id, codeHash string, now, expires time.Time) error
	// JoinPairing finds userID's live pairing with codeHash. A wrong
	// code uses a try of each live pairing of userID's; one out of tries
	// or expired is ErrGone.
	JoinPairing(ctx context.Context, userID, codeHash string, now time.Time, maxTries int) (api.Pairing, error)
	PostPairingMessage(ctx context.Context, userID, pairingID, device string, body []byte, now time.Time, maxTries int) (api.PairingMessage, error)
	PairingMessages(ctx context.Context, userID, pairingID string, after int64, now time.Time, maxTries int) (api.PairingMessages, error)
}

// DeviceKeyConflictError: a device id already stored with another key.
type DeviceKeyConflictError struct{}

func (e *DeviceKeyConflictError) Error() string {
	return "this device id is stored with another public key; a device keeps its key (make a new device id)"
}

func (s *sqlStore) userName(ctx context.Context, q querier, id string) (string, error) {
	var name string
	err := q.QueryRowContext(ctx, s.q.rebind("SELECT name FROM users WHERE id = ?"), id).Scan(&name)
	return name, err
}

func (s *sqlStore) PutDevice(ctx context.Context, userID, deviceID string, publicKey, statement []byte, now time.Time) (api.Device, error) {
	d := api.Device{ID: deviceID, PublicKey: publicKey}
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var (
			key              []byte
			created, updated int64
		)
		err := tx.QueryRowContext(ctx, s.q.rebind("SELECT public_key, created_ns FROM devices WHERE user_id = ? AND id = ?"), userID, deviceID).Scan(&key, &created)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			created, updated = nanos(now), nanos(now)
			if _, err := tx.ExecContext(ctx, s.q.rebind("INSERT INTO devices (user_id, id, public_key, created_ns, updated_ns) VALUES (?, ?, ?, ?, ?)"),
				userID, deviceID, publicKey, created, updated); err != nil {
				return err
			}
		case err != nil:
			return err
		case !bytes.Equal(key, publicKey):
			return &DeviceKeyConflictError{}
		default:
			updated = nanos(now)
			if _, err := tx.ExecContext(ctx, s.q.rebind("UPDATE devices SET updated_ns = ? WHERE user_id = ? AND id = ?"), updated, userID, deviceID); err != nil {
				return err
			}
		}
		d.CreatedAt, d.UpdatedAt = fromNanos(created), fromNanos(updated)
		if d.Account, err = s.userName(ctx, tx, userID); err != nil {
			return err
		}
		return s.appendDeviceLog(ctx, tx, userID, deviceID, statement, now)
	})
	var kc *DeviceKeyConflictError
	if errors.As(err, &kc) {
		return api.Device{}, err
	}
	return d, s.wrap("put device", err)
}

func (s *sqlStore) appendDeviceLog(ctx context.Context, tx *sql.Tx, userID, deviceID string, statement []byte, now time.Time) error {
	var seq int64
	if err := tx.QueryRowContext(ctx, s.q.rebind("SELECT COALESCE(MAX(seq), 0) + 1 FROM device_log WHERE user_id = ?"), userID).Scan(&seq); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, s.q.rebind("INSERT INTO device_log (user_id, seq, device_id, statement, created_ns) VALUES (?, ?, ?, ?, ?)"),
		userID, seq, deviceID, statement, nanos(now))
	return err
}

func (s *sqlStore) RemoveDevice(ctx context.Context, userID, deviceID string, statement []byte, now time.Time) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q.rebind("DELETE FROM devices WHERE user_id = ? AND id = ?"), userID, deviceID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, s.q.rebind("DELETE FROM key_envelopes WHERE user_id = ? AND device_id = ?"), userID, deviceID); err != nil {
			return err
		}
		return s.appendDeviceLog(ctx, tx, userID, deviceID, statement, now)
	})
	return s.wrap("remove device", err)
}

// visibleAccount finds account (a name; "" for userID) if it is userID
// or shares a shared session with userID; ErrNotFound otherwise.
func (s *sqlStore) visibleAccount(ctx context.Context, userID, account string) (string, string, error) {
	if account == "" {
		name, err := s.userName(ctx, s.r, userID)
		return userID, name, err
	}
	var id string
	err := s.r.QueryRowContext(ctx, s.q.rebind(`SELECT u.id FROM users u WHERE u.name = ? AND (u.id = ? OR EXISTS (
		SELECT 1 FROM members m1 JOIN members m2 ON m2.session_id = m1.session_id WHERE m1.user_id = ? AND m2.user_id = u.id))`),
		account, userID, userID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", ErrNotFound
	}
	return id, account, err
}

func (s *sqlStore) Devices(ctx context.Context, userID, account string) (api.DeviceList, error) {
	uid, name, err := s.visibleAccount(ctx, userID, account)
	if err != nil {
		return api.DeviceList{}, s.wrap("list devices", err)
	}
	out := api.DeviceList{Devices: []api.Device{}}
	if err := s.r.QueryRowContext(ctx, s.q.rebind("SELECT COALESCE(MAX(seq), 0) FROM device_log WHERE user_id = ?"), uid).Scan(&out.LogHead); err != nil {
		return api.DeviceList{}, s.err("list devices", err)
	}
	out.Devices, err = queryAll(ctx, s.r, s.q.rebind("SELECT id, public_key, created_ns, updated_ns FROM devices WHERE user_id = ? ORDER BY created_ns, id"),
		func(rows *sql.Rows) (api.Device, error) {
			d := api.Device{Account: name}
			var created, updated int64
			err := rows.Scan(&d.ID, &d.PublicKey, &created, &updated)
			d.CreatedAt, d.UpdatedAt = fromNanos(created), fromNanos(updated)
			return d, err
		}, uid)
	if err != nil {
		return api.DeviceList{}, s.err("list devices", err)
	}
	return out, nil
}

func (s *sqlStore) DeviceLog(ctx context.Context, userID, account string, after int64, limit int) (api.DeviceLogPage, error) {
	uid, _, err := s.visibleAccount(ctx, userID, account)
	if err != nil {
		return api.DeviceLogPage{}, s.wrap("read device log", err)
	}
	out := api.DeviceLogPage{Statements: []api.DeviceStatement{}}
	if err := s.r.QueryRowContext(ctx, s.q.rebind("SELECT COALESCE(MAX(seq), 0) FROM device_log WHERE user_id = ?"), uid).Scan(&out.Head); err != nil {
		return api.DeviceLogPage{}, s.err("read device log", err)
	}
	out.Statements, err = queryAll(ctx, s.r, s.q.rebind("SELECT seq, device_id, statement, created_ns FROM device_log WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?"),
		func(rows *sql.Rows) (st api.DeviceStatement, err error) {
			var ns int64
			err = rows.Scan(&st.Seq, &st.Device, &st.Statement, &ns)
			st.CreatedAt = fromNanos(ns)
			return st, err
		}, uid, after, limit)
	if err != nil {
		return api.DeviceLogPage{}, s.err("read device log", err)
	}
	return out, nil
}

func (s *sqlStore) PutEnvelopes(ctx context.Context, ownerID, sessionID string, epoch int64, envs []api.KeyEnvelope, now time.Time) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		role, err := s.role(ctx, tx, ownerID, sessionID)
		if err != nil {
			return err
		}
		if role != api.RoleOwner {
			return ErrForbidden
		}
		for i, e := range envs {
			var uid string
			err := tx.QueryRowContext(ctx, s.q.rebind(`SELECT d.user_id FROM devices d JOIN users u ON u.id = d.user_id
				JOIN members m ON m.user_id = d.user_id AND m.session_id = ?
				WHERE u.name = ? AND d.id = ?`), sessionID, e.Account, e.Device).Scan(&uid)
			if errors.Is(err, sql.ErrNoRows) {
				return badInput("envelopes[%d]: %q is not a member with a device %q", i, e.Account, e.Device)
			}
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, s.q.rebind(`INSERT INTO key_envelopes (session_id, epoch, user_id, device_id, envelope, created_ns) VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT (session_id, epoch, user_id, device_id) DO UPDATE SET envelope = excluded.envelope, created_ns = excluded.created_ns`),
				sessionID, epoch, uid, e.Device, e.Envelope, nanos(now)); err != nil {
				return err
			}
		}
		return nil
	})
	return s.wrap("put key envelopes", err)
}

func (s *sqlStore) Envelopes(ctx context.Context, userID, sessionID, deviceID string, after int64) ([]api.KeyEnvelope, error) {
	if _, err := s.role(ctx, s.r, userID, sessionID); err != nil {
		return nil, s.wrap("read key envelopes", err)
	}
	out, err := queryAll(ctx, s.r, s.q.rebind(`SELECT k.epoch, u.name, k.device_id, k.envelope FROM key_envelopes k JOIN users u ON u.id = k.user_id
		WHERE k.session_id = ? AND k.user_id = ? AND k.device_id = ? AND k.epoch > ? ORDER BY k.epoch`),
		func(rows *sql.Rows) (e api.KeyEnvelope, err error) {
			return e, rows.Scan(&e.Epoch, &e.Account, &e.Device, &e.Envelope)
		}, sessionID, userID, deviceID, after)
	if err != nil {
		return nil, s.err("read key envelopes", err)
	}
	return out, nil
}

// Pairing.

func (s *sqlStore) CreatePairing(ctx context.Context, userID, id, codeHash string, now, expires time.Time) error {
	_, err := s.w.ExecContext(ctx, s.q.rebind("INSERT INTO pairings (id, user_id, code_hash, tries, head, created_ns, expires_ns) VALUES (?, ?, ?, 0, 0, ?, ?)"),
		id, userID, codeHash, nanos(now), nanos(expires))
	return s.wrap("create pairing", err)
}

func (s *sqlStore) JoinPairing(ctx context.Context, userID, codeHash string, now time.Time, maxTries int) (api.Pairing, error) {
	var (
		p     api.Pairing
		wrong bool
	)
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		var tries, expires int64
		err := tx.QueryRowContext(ctx, s.q.rebind("SELECT id, tries, expires_ns FROM pairings WHERE user_id = ? AND code_hash = ? ORDER BY created_ns DESC LIMIT 1"),
			userID, codeHash).Scan(&p.ID, &tries, &expires)
		if errors.Is(err, sql.ErrNoRows) {
			// A wrong code: a try of every live pairing of the account's.
			// It is committed: the answer is a 404 all the same.
			wrong = true
			_, err := tx.ExecContext(ctx, s.q.rebind("UPDATE pairings SET tries = tries + 1 WHERE user_id = ? AND expires_ns > ?"), userID, nanos(now))
			return err
		}
		if err != nil {
			return err
		}
		if tries >= int64(maxTries) || expires <= nanos(now) {
			return ErrGone
		}
		p.ExpiresAt = fromNanos(expires)
		return nil
	})
	if err == nil && wrong {
		return api.Pairing{}, ErrNotFound
	}
	return p, s.wrap("join pairing", err)
}

// livePairing checks, inside q, that pairingID is userID's, live and not
// out of tries.
func (s *sqlStore) livePairing(ctx context.Context, q querier, userID, pairingID string, now time.Time, maxTries int) (time.Time, error) {
	var tries, expires int64
	err := q.QueryRowContext(ctx, s.q.rebind("SELECT tries, expires_ns FROM pairings WHERE id = ? AND user_id = ?"), pairingID, userID).Scan(&tries, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, ErrNotFound
	}
	if err != nil {
		return time.Time{}, err
	}
	if tries >= int64(maxTries) || expires <= nanos(now) {
		return time.Time{}, ErrGone
	}
	return fromNanos(expires), nil
}

func (s *sqlStore) PostPairingMessage(ctx context.Context, userID, pairingID, device string, body []byte, now time.Time, maxTries int) (api.PairingMessage, error) {
	m := api.PairingMessage{Device: device, CreatedAt: fromNanos(nanos(now))}
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.livePairing(ctx, tx, userID, pairingID, now, maxTries); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, s.q.rebind("UPDATE pairings SET head = head + 1 WHERE id = ? RETURNING head"), pairingID).Scan(&m.Seq); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q.rebind("INSERT INTO pairing_messages (pairing_id, seq, device_id, body, created_ns) VALUES (?, ?, ?, ?, ?)"),
			pairingID, m.Seq, device, body, nanos(now))
		return err
	})
	return m, s.wrap("post pairing message", err)
}

func (s *sqlStore) PairingMessages(ctx context.Context, userID, pairingID string, after int64, now time.Time, maxTries int) (api.PairingMessages, error) {
	exp, err := s.livePairing(ctx, s.r, userID, pairingID, now, maxTries)
	if err != nil {
		return api.PairingMessages{}, s.wrap("read pairing messages", err)
	}
	out := api.PairingMessages{Messages: []api.PairingMessage{}, ExpiresAt: exp}
	out.Messages, err = queryAll(ctx, s.r, s.q.rebind("SELECT seq, device_id, body, created_ns FROM pairing_messages WHERE pairing_id = ? AND seq > ? ORDER BY seq LIMIT 100"),
		func(rows *sql.Rows) (m api.PairingMessage, err error) {
			var ns int64
			err = rows.Scan(&m.Seq, &m.Device, &m.Body, &ns)
			m.CreatedAt = fromNanos(ns)
			return m, err
		}, pairingID, after)
	if err != nil {
		return api.PairingMessages{}, s.err("read pairing messages", err)
	}
	return out, nil
}
