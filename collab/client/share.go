package client

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"mnote/collab/keys"
	"mnote/collab/roster"
	"mnote/controlplane/api"
)

// view is a session as this client verified it just now.
type view struct {
	id     string
	owner  *roster.DeviceList
	roster *roster.Roster
	role   roster.Role
	// lists are the members' device lists (the owner's too), verified;
	// blocked names the accounts whose changed devices are not accepted.
	lists   map[string]*roster.DeviceList
	blocked map[string]error
}

// view fetches and verifies a session's roster: the owner is the one
// pinned for it (the server's word the first time), the chain must extend
// the one seen before, and every member's device list is verified.
func (c *Client) view(ctx context.Context, id string) (*view, error) {
	cp, owner, haveCP := c.checkpoint(id)
	sh, err := c.api.SharedSession(ctx, id)
	if err != nil {
		if isStatus(err, api.CodeNotFound) && owner != "" {
			return nil, fmt.Errorf("%s: %w", id, ErrRevoked)
		}
		return nil, fmt.Errorf("shared session %s: %w", id, err)
	}
	if owner == "" {
		owner = sh.Owner
	} else if owner != sh.Owner {
		return nil, fmt.Errorf("shared session %s: %w: %q, the server says %q", id, ErrOwnerChanged, owner, sh.Owner)
	}
	var blobs [][]byte
	var after int64
	for {
		page, err := c.api.Roster(ctx, id, after)
		if err != nil {
			return nil, fmt.Errorf("roster of %s: %w", id, err)
		}
		for _, s := range page.Statements {
			blobs = append(blobs, s.Statement)
			after = s.Seq
		}
		if len(page.Statements) == 0 || after >= page.Head {
			break
		}
	}
	v := &view{id: id, lists: map[string]*roster.DeviceList{}, blocked: map[string]error{}}
	v.owner, err = c.DeviceList(ctx, owner)
	if v.owner == nil {
		return nil, err
	}
	if err != nil {
		v.blocked[owner] = err
	}
	if v.roster, err = roster.Verify(blobs, v.owner); err != nil {
		return nil, fmt.Errorf("roster of %s: %w", id, err)
	}
	if v.roster.SessionID != id {
		return nil, fmt.Errorf("roster of %s: %w", id, roster.ErrBrokenChain)
	}
	if haveCP {
		if err := v.roster.Extends(cp); err != nil {
			return nil, err
		}
	}
	if err := c.keepCheckpoint(id, owner, v.roster.Checkpoint()); err != nil {
		return nil, err
	}
	v.lists[owner] = v.owner
	for _, m := range v.roster.Members() {
		if m.Account == owner {
			continue
		}
		l, err := c.DeviceList(ctx, m.Account)
		if errors.Is(err, roster.ErrEmptyChain) {
			continue // no device yet: nothing to wrap for, nothing written
		}
		if l == nil {
			// A member without a usable list: its entries cannot be
			// opened and no key goes to it.
			v.blocked[m.Account] = err
			continue
		}
		v.lists[m.Account] = l
		if err != nil {
			v.blocked[m.Account] = err
		}
	}
	v.role, _ = v.roster.Role(c.account)
	return v, nil
}

// Share turns one of this account's synced sessions into a shared one
// with this account as owner: the first signed roster statement and the
// first epoch's key, wrapped for this account's devices. Sharing a shared
// session again changes nothing.
func (c *Client) Share(ctx context.Context, id string) error {
	own, err := c.Register(ctx)
	if err != nil {
		return err
	}
	if sh, err := c.api.SharedSession(ctx, id); err == nil {
		if sh.Owner != c.account {
			return fmt.Errorf("%s: %w", id, ErrNotOwner)
		}
	} else if isStatus(err, api.CodeNotFound) {
		// The first epoch's key is made (and kept) first: the statement
		// commits to it.
		key := keys.NewEpochKey()
		if err := c.keepKey(id, 1, key); err != nil {
			return err
		}
		stmt, err := roster.NewSession(c.dev, own, id, key, c.now())
		if err != nil {
			return err
		}
		if _, err := c.api.ShareSession(ctx, id, stmt); err != nil {
			return fmt.Errorf("share %s: %w", id, err)
		}
	} else {
		return fmt.Errorf("share %s: %w", id, err)
	}
	v, err := c.view(ctx, id)
	if err != nil {
		return err
	}
	return c.wrapKeys(ctx, v)
}

// ownerView is the view of a session this device may change.
func (c *Client) ownerView(ctx context.Context, id string) (*view, error) {
	v, err := c.view(ctx, id)
	if err != nil {
		return nil, err
	}
	if v.roster.Owner != c.account {
		return nil, fmt.Errorf("%s: %w", id, ErrNotOwner)
	}
	if _, ok := v.owner.Device(c.dev.ID()); !ok {
		return nil, ErrNotPaired
	}
	return v, nil
}

// SetMember gives account a role (editor, commenter, viewer) in the
// session, signed by this (owner) device, and wraps the current epoch's
// key for the account's devices. A member whose devices changed since
// they were pinned gets the role but no key until AcceptKeys; the
// returned error is then a *roster.KeyChangedError.
func (c *Client) SetMember(ctx context.Context, id, account string, role roster.Role) error {
	if role == roster.Owner || !role.Valid() {
		return fmt.Errorf("role %q: %w", role, roster.ErrBadRole)
	}
	v, err := c.ownerView(ctx, id)
	if err != nil {
		return err
	}
	var stmt []byte
	if _, ok := v.roster.Role(account); ok {
		stmt, err = v.roster.SetRole(c.dev, account, role, c.now())
	} else {
		stmt, err = v.roster.Add(c.dev, account, role, c.now())
	}
	if err != nil {
		return err
	}
	if _, err := c.api.SetMember(ctx, id, account, string(role), stmt); err != nil {
		return fmt.Errorf("members of %s: %w", id, err)
	}
	if v, err = c.view(ctx, id); err != nil {
		return err
	}
	return c.wrapKeys(ctx, v)
}

// RemoveMember takes account out of the session and starts a new epoch
// whose key is wrapped only for the remaining members' devices.
func (c *Client) RemoveMember(ctx context.Context, id, account string) error {
	v, err := c.ownerView(ctx, id)
	if err != nil {
		return err
	}
	stmt, err := v.roster.Remove(c.dev, account, c.now())
	if err != nil {
		return err
	}
	if err := c.api.RemoveMember(ctx, id, account, stmt); err != nil {
		return fmt.Errorf("members of %s: %w", id, err)
	}
	return c.newEpoch(ctx, id)
}

// newEpoch signs a new epoch of the session and wraps its key for the
// devices of its members now.
func (c *Client) newEpoch(ctx context.Context, id string) error {
	v, err := c.ownerView(ctx, id)
	if err != nil {
		return err
	}
	// The key is made (and kept) first: the statement commits to it. If
	// another owner device's new epoch wins the race, this key does not
	// match the statement that counts and is never used (epochKey).
	key := keys.NewEpochKey()
	if err := c.keepKey(id, v.roster.Epoch+1, key); err != nil {
		return err
	}
	stmt, err := v.roster.NewEpoch(c.dev, key, c.now())
	if err != nil {
		return err
	}
	if _, err := c.api.AppendRoster(ctx, id, stmt); err != nil {
		return fmt.Errorf("new epoch of %s: %w", id, err)
	}
	if v, err = c.view(ctx, id); err != nil {
		return err
	}
	return c.wrapKeys(ctx, v)
}

// wrapKeys wraps the current epoch's key (made now if this owner device
// has none) for every device of every member whose devices are not
// blocked, and uploads the envelopes. The first blocked account's error
// is returned after the others got theirs.
func (c *Client) wrapKeys(ctx context.Context, v *view) error {
	epoch := v.roster.Epoch
	// A device this epoch's key went to that no verified list holds any
	// more (a member removed one of their devices): a new epoch first.
	if gone := c.goneDevices(v, epoch); len(gone) > 0 {
		c.log.Info("shared sessions: devices removed, new epoch", "session", v.id, "devices", gone)
		return c.newEpoch(ctx, v.id)
	}
	key, err := c.epochKey(ctx, v, epoch)
	if err != nil {
		return err
	}
	var envs []api.KeyEnvelope
	var blocked error
	for _, m := range v.roster.Members() {
		if err := v.blocked[m.Account]; err != nil {
			blocked = errors.Join(blocked, err)
			continue
		}
		if err := c.pins.Blocked(m.Account); err != nil && m.Account != c.account {
			blocked = errors.Join(blocked, err)
			continue
		}
		l := v.lists[m.Account]
		if l == nil {
			continue // no device yet (keys are wrapped again at the owner's next run)
		}
		for _, d := range l.Devices() {
			env, err := keys.WrapEpochKey(c.dev, key, d, v.id, epoch)
			if err != nil {
				return err
			}
			envs = append(envs, api.KeyEnvelope{Epoch: int64(epoch), Account: m.Account, Device: d.DeviceID, Envelope: env})
		}
	}
	if len(envs) > 0 {
		if err := c.api.PutKeys(ctx, v.id, int64(epoch), envs); err != nil {
			return fmt.Errorf("keys of %s: %w", v.id, err)
		}
		ids := make([]string, len(envs))
		for i, e := range envs {
			ids[i] = e.Device
		}
		if err := c.keepWrapped(v.id, epoch, ids); err != nil {
			return err
		}
	}
	return blocked
}

// goneDevices are the devices epoch's key was wrapped for that are in
// none of the members' verified lists now.
func (c *Client) goneDevices(v *view, epoch uint64) []string {
	c.mu.Lock()
	var wrapped []string
	if s := c.st.Sessions[v.id]; s != nil && s.WrappedEpoch == epoch {
		wrapped = append(wrapped, s.Wrapped...)
	}
	c.mu.Unlock()
	var gone []string
	for _, id := range wrapped {
		held := false
		for _, l := range v.lists {
			if _, ok := l.Device(id); ok {
				held = true
				break
			}
		}
		if !held {
			gone = append(gone, id)
		}
	}
	return gone
}

// keepWrapped notes the devices epoch's key was wrapped for.
func (c *Client) keepWrapped(id string, epoch uint64, devices []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sessionLocked(id)
	if s.WrappedEpoch != epoch {
		s.WrappedEpoch, s.Wrapped = epoch, nil
	}
	for _, d := range devices {
		if !slices.Contains(s.Wrapped, d) {
			s.Wrapped = append(s.Wrapped, d)
		}
	}
	return c.saveLocked()
}

// epochKey is this device's key for an epoch of the session: the one
// kept, or one of its envelopes unwrapped (the wrapper must be an owner
// device).
//
// Either way the key must match the commitment in the roster's statement
// that started the epoch: a key kept from a new epoch that lost a race, or
// one an owner device wrapped for this device alone, is not used.
func (c *Client) epochKey(ctx context.Context, v *view, epoch uint64) (keys.EpochKey, error) {
	want, ok := v.roster.KeyCommitment(epoch)
	if !ok {
		return keys.EpochKey{}, fmt.Errorf("%s epoch %d: %w", v.id, epoch, ErrNoKey)
	}
	if k, ok := c.heldKey(v.id, epoch); ok && k.Commitment(v.id, epoch) == want {
		return k, nil
	}
	envs, err := c.api.Keys(ctx, v.id, c.dev.ID(), int64(epoch)-1)
	if err != nil {
		return keys.EpochKey{}, fmt.Errorf("keys of %s: %w", v.id, err)
	}
	var last error = ErrNoKey
	for _, e := range envs {
		if uint64(e.Epoch) != epoch || e.Device != c.dev.ID() {
			continue
		}
		// The envelope names no wrapper: any owner device may be it, and
		// a key wrapped by anyone else does not unwrap (ErrWrongAuthor).
		for _, d := range v.owner.Devices() {
			w, err := v.roster.KeyWrapper(d.DeviceID)
			if err != nil {
				continue
			}
			k, err := keys.UnwrapEpochKey(c.dev, w, v.id, epoch, e.Envelope)
			if err != nil {
				last = err
				continue
			}
			if k.Commitment(v.id, epoch) != want {
				last = ErrKeyCommitment
				c.log.Warn("shared sessions: an epoch key does not match the owner's commitment", "session", v.id, "epoch", epoch, "wrapper", d.DeviceID)
				continue
			}
			if err := c.keepKey(v.id, epoch, k); err != nil {
				return k, err
			}
			return k, nil
		}
	}
	return keys.EpochKey{}, fmt.Errorf("%s epoch %d: %w", v.id, epoch, last)
}

// Member is a member of a session as its verified roster says.
type Member struct {
	Account string `json:"account"`
	Role    string `json:"role"`
	// KeysChanged: the member's devices changed since they were accepted
	// (or do not verify); no key is wrapped for them meanwhile.
	KeysChanged bool `json:"keysChanged,omitempty"`
}

// Members lists the session's members from its verified roster (not the
// server's word).
func (c *Client) Members(ctx context.Context, id string) ([]Member, error) {
	v, err := c.view(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []Member
	for _, m := range v.roster.Members() {
		out = append(out, Member{Account: m.Account, Role: string(m.Role), KeysChanged: v.blocked[m.Account] != nil})
	}
	return out, nil
}

// Role is this account's role in the session, from its verified roster.
func (c *Client) Role(ctx context.Context, id string) (roster.Role, error) {
	v, err := c.view(ctx, id)
	if err != nil {
		return "", err
	}
	return v.role, nil
}
