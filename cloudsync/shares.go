package cloudsync

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
func (s *Syncer) Publish(ctx context.Context, snap api.ShareSnapshot, meta SessionMeta, expiresAt time.Time) (api.Share, error) {
	s.mu.Lock()
	enabled, ob, token := s.onLocked(), s.ob, s.token
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
	if err := s.Enqueue(ctx, meta); err != nil {
		return api.Share{}, fmt.Errorf("publish a share: %w", err)
	}
	// Send the session's record now if it waits (concurrently with the
	// worker is fine: the same version twice is a no-op upsert).
	if it, ok, err := ob.one(ctx, meta.ID); err != nil {
		return api.Share{}, err
	} else if ok {
		res := s.send(ctx, c, ob, it)
		switch {
		case res.canceled:
			return api.Share{}, ctx.Err()
		case res.parked != nil:
			return api.Share{}, fmt.Errorf("publish a share: the session's record was refused: %w", res.parked)
		case res.err != nil:
			return api.Share{}, fmt.Errorf("publish a share: send the session's record: %w", res.err)
		}
	}
	sh, err := c.CreateShare(ctx, req)
	if err != nil {
		return api.Share{}, fmt.Errorf("publish a share: %w", explain(err))
	}
	return sh, nil
}

// Shares lists this account's live shares. It needs the URL and token,
// not sync to be on (listing and revoking are the user's own requests).
func (s *Syncer) Shares(ctx context.Context) ([]api.Share, error) {
	s.mu.Lock()
	c, err := s.clientLocked()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	list, err := c.ListShares(ctx)
	if err != nil {
		return nil, fmt.Errorf("list shares: %w", explain(err))
	}
	return list, nil
}

// Unshare revokes a share by its id.
func (s *Syncer) Unshare(ctx context.Context, id string) error {
	s.mu.Lock()
	c, err := s.clientLocked()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if err := c.DeleteShare(ctx, id); err != nil {
		return fmt.Errorf("revoke share %s: %w", id, explain(err))
	}
	return nil
}
