package cloudsync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"mnote/controlplane/api"
)

// maxShareBody is the control plane's limit on a share (413 above).
const maxShareBody = 5 << 20

// Publish publishes a read-only share of a session: its record is sent
// first if the control plane does not have the latest one, then the
// snapshot. The snapshot must be redacted already (export.Share does
// it); as a last check, one that holds the sync token is refused. A zero
// expiresAt means the share lasts until it is revoked. Sync must be on.
//
// The share's URL comes only now: the control plane keeps its token's
// hash alone. It is kept in the outbox (share_links), so Shares can give
// it again.
func (s *Syncer) Publish(ctx context.Context, snap api.ShareSnapshot, meta SessionMeta, expiresAt time.Time) (api.Share, error) {
	s.mu.Lock()
	enabled, ob, token, server := s.onLocked(), s.ob, s.token, s.settings.URL
	c, err := s.clientLocked()
	s.mu.Unlock()
	if err != nil {
		return api.Share{}, err
	}
	if !enabled || ob == nil {
		return api.Share{}, fmt.Errorf("publish a share: %w", ErrDisabled)
	}
	req := api.CreateShareRequest{SessionID: meta.ID, Snapshot: snap}
	if !expiresAt.IsZero() {
		if !expiresAt.After(s.now()) {
			return api.Share{}, fmt.Errorf("publish a share: the expiry %s is in the past", expiresAt.Format(time.RFC3339))
		}
		req.ExpiresAt = expiresAt.UTC()
	}
	body, err := json.Marshal(req)
	if err != nil {
		return api.Share{}, fmt.Errorf("publish a share: %w", err)
	}
	if len(body) > maxShareBody {
		return api.Share{}, fmt.Errorf("publish a share: the snapshot is %d KiB, over the control plane's 5 MiB; leave out tool input/output or thoughts", len(body)>>10)
	}
	if token != "" && bytes.Contains(body, []byte(token)) {
		return api.Share{}, fmt.Errorf("publish a share: the snapshot holds the sync token; it must be redacted first (export.Share)")
	}
	if err := s.sendNow(ctx, c, ob, meta); err != nil {
		return api.Share{}, fmt.Errorf("publish a share: %w", err)
	}
	sh, err := c.CreateShare(ctx, req)
	if err != nil {
		return api.Share{}, fmt.Errorf("publish a share: %w", explain(err))
	}
	if err := ob.keepLink(ctx, server, sh, s.now()); err != nil {
		// The share exists: its link is shown now, only not again.
		s.log.Warn("sync: the share's link could not be kept; it is shown this once", "share", sh.ID, "err", err)
	}
	return sh, nil
}

// sendNow queues the session's record and sends it now if it waits
// (concurrently with the worker is fine: the same version twice is a
// no-op upsert).
func (s *Syncer) sendNow(ctx context.Context, c *api.Client, ob *outbox, meta SessionMeta) error {
	if err := s.Enqueue(ctx, meta); err != nil {
		return err
	}
	it, ok, err := ob.one(ctx, meta.ID)
	if err != nil || !ok {
		return err
	}
	res := s.send(ctx, c, ob, it)
	switch {
	case res.canceled:
		return ctx.Err()
	case res.parked != nil:
		return fmt.Errorf("the session's record was refused: %w", res.parked)
	case res.err != nil:
		return fmt.Errorf("send the session's record: %w", res.err)
	}
	return nil
}

// Client is the control plane client of the current settings (the
// Syncer's HTTP client, URL and token) for the opt-in features built on
// sync, such as shared sessions; there is none while sync is off, so
// that nothing connects then.
func (s *Syncer) Client() (*api.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.clientLocked()
	if err != nil {
		return nil, err
	}
	if !s.onLocked() {
		return nil, ErrDisabled
	}
	return c, nil
}

// SendSession sends one session's record now (sharing it with members
// needs it on the control plane). Sync must be on.
func (s *Syncer) SendSession(ctx context.Context, meta SessionMeta) error {
	s.mu.Lock()
	enabled, ob := s.onLocked(), s.ob
	c, err := s.clientLocked()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if !enabled || ob == nil {
		return ErrDisabled
	}
	return s.sendNow(ctx, c, ob, meta)
}

// Shares lists this account's live shares. It needs the URL and token,
// not sync to be on (listing and revoking are the user's own requests).
// The control plane lists no links (it has only their tokens' hashes):
// each share published from here gets its link from the outbox; one
// published elsewhere has none. Links of shares no longer listed
// (revoked elsewhere, expired) are forgotten.
func (s *Syncer) Shares(ctx context.Context) ([]api.Share, error) {
	s.mu.Lock()
	c, err := s.clientLocked()
	server := s.settings.URL
	ob, oerr := s.existingOutboxLocked()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if oerr != nil {
		return nil, oerr
	}
	list, err := c.ListShares(ctx)
	if err != nil {
		return nil, fmt.Errorf("list shares: %w", explain(err))
	}
	if ob == nil {
		return list, nil
	}
	links, err := ob.links(ctx, server)
	if err != nil {
		return nil, err
	}
	for i, sh := range list {
		if u, ok := links[sh.ID]; ok {
			list[i].URL = u
			delete(links, sh.ID)
		}
	}
	for id := range links {
		if err := ob.dropLink(ctx, server, id); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// Unshare revokes a share by its id, and forgets its link.
func (s *Syncer) Unshare(ctx context.Context, id string) error {
	s.mu.Lock()
	c, err := s.clientLocked()
	server := s.settings.URL
	ob, oerr := s.existingOutboxLocked()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if oerr != nil {
		return oerr
	}
	err = c.DeleteShare(ctx, id)
	if (err == nil || api.IsNotFound(err)) && ob != nil {
		if derr := ob.dropLink(ctx, server, id); derr != nil {
			return derr
		}
	}
	if err != nil {
		return fmt.Errorf("revoke share %s: %w", id, explain(err))
	}
	return nil
}

// existingOutboxLocked is the outbox, opened if its file exists; nil when
// it does not (nothing was ever published or sent from here).
func (s *Syncer) existingOutboxLocked() (*outbox, error) {
	if s.ob == nil {
		if _, err := os.Stat(s.outboxPath()); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	return s.outboxLocked()
}

// keepLink records the link of a share just published on server.
func (o *outbox) keepLink(ctx context.Context, server string, sh api.Share, now time.Time) error {
	if sh.URL == "" {
		return errors.New("the control plane gave no link")
	}
	_, err := o.db.ExecContext(ctx, `INSERT INTO share_links (server, share_id, url, created_ms) VALUES (?, ?, ?, ?)
		ON CONFLICT (server, share_id) DO UPDATE SET url = excluded.url`, server, sh.ID, sh.URL, now.UnixMilli())
	if err != nil {
		return fmt.Errorf("sync outbox: keep the share's link: %w", err)
	}
	return nil
}

// links are the kept links of the shares published on server, by id.
func (o *outbox) links(ctx context.Context, server string) (map[string]string, error) {
	rows, err := o.db.QueryContext(ctx, `SELECT share_id, url FROM share_links WHERE server = ?`, server)
	if err != nil {
		return nil, fmt.Errorf("sync outbox: read the share links: %w", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var id, u string
		if err := rows.Scan(&id, &u); err != nil {
			return nil, fmt.Errorf("sync outbox: read the share links: %w", err)
		}
		m[id] = u
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sync outbox: read the share links: %w", err)
	}
	return m, nil
}

// dropLink forgets the link of a share.
func (o *outbox) dropLink(ctx context.Context, server, id string) error {
	if _, err := o.db.ExecContext(ctx, `DELETE FROM share_links WHERE server = ? AND share_id = ?`, server, id); err != nil {
		return fmt.Errorf("sync outbox: forget the share's link: %w", err)
	}
	return nil
}
