package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"mnote/collab/keys"
	"mnote/collab/roster"
	"mnote/controlplane/api"
)

// DeviceList fetches and verifies account's signed device list. For
// another account the set is checked against the pins (first use pins
// it); a changed set is returned with a *roster.KeyChangedError.
func (c *Client) DeviceList(ctx context.Context, account string) (*roster.DeviceList, error) {
	blobs, err := c.deviceLog(ctx, account)
	if err != nil {
		return nil, err
	}
	if len(blobs) == 0 {
		return nil, fmt.Errorf("devices of %q: %w", account, roster.ErrEmptyChain)
	}
	l, err := roster.VerifyDevices(account, blobs)
	if err != nil {
		return nil, fmt.Errorf("devices of %q: %w", account, err)
	}
	c.rememberDevices(l)
	if account != c.account {
		if err := c.pins.Check(l); err != nil {
			return l, err
		}
	}
	return l, nil
}

func (c *Client) deviceLog(ctx context.Context, account string) ([][]byte, error) {
	var blobs [][]byte
	var after int64
	for {
		page, err := c.api.DeviceLog(ctx, account, after)
		if err != nil {
			return nil, fmt.Errorf("devices of %q: %w", account, err)
		}
		for _, s := range page.Statements {
			blobs = append(blobs, s.Statement)
			after = s.Seq
		}
		if len(page.Statements) == 0 || after >= page.Head {
			return blobs, nil
		}
	}
}

// Register makes sure this device is in the account's device list: the
// account's first device starts the list; a later one must be paired
// (ErrNotPaired).
func (c *Client) Register(ctx context.Context) (*roster.DeviceList, error) {
	blobs, err := c.deviceLog(ctx, c.account)
	if err != nil {
		return nil, err
	}
	if len(blobs) == 0 {
		stmt, err := roster.NewDeviceList(c.dev, c.now())
		if err != nil {
			return nil, err
		}
		pub, err := c.dev.Public().Marshal()
		if err != nil {
			return nil, err
		}
		if _, err := c.api.PutDevice(ctx, c.dev.ID(), pub, stmt); err != nil {
			return nil, fmt.Errorf("register this device: %w", err)
		}
		return c.DeviceList(ctx, c.account)
	}
	l, err := roster.VerifyDevices(c.account, blobs)
	if err != nil {
		return nil, fmt.Errorf("devices of %q: %w", c.account, err)
	}
	if _, ok := l.Device(c.dev.ID()); !ok {
		return nil, ErrNotPaired
	}
	return l, nil
}

// DeviceInfo is one device of the account, for a list.
type DeviceInfo struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Fingerprint string    `json:"fingerprint"`
	Created     time.Time `json:"created"`
	This        bool      `json:"this"`
}

// Devices lists the account's verified devices.
func (c *Client) Devices(ctx context.Context) ([]DeviceInfo, error) {
	l, err := c.Register(ctx)
	if err != nil {
		return nil, err
	}
	var out []DeviceInfo
	for _, d := range l.Devices() {
		out = append(out, DeviceInfo{ID: d.DeviceID, Name: d.Name, Fingerprint: d.Fingerprint(), Created: d.Created, This: d.DeviceID == c.dev.ID()})
	}
	return out, nil
}

// SafetyNumber is the number two people compare to know that the devices
// each sees for the other are the real ones.
func (c *Client) SafetyNumber(ctx context.Context, account string) (string, error) {
	mine, err := c.Register(ctx)
	if err != nil {
		return "", err
	}
	theirs, err := c.DeviceList(ctx, account)
	if err != nil && theirs == nil {
		return "", err
	}
	return keys.SafetyNumber(c.account, mine.Devices(), account, theirs.Devices())
}

// AcceptKeys accepts account's current devices after a change (ideally
// after comparing safety numbers): keys may be wrapped for them again.
func (c *Client) AcceptKeys(ctx context.Context, account string) error {
	l, err := c.DeviceList(ctx, account)
	if l == nil {
		return err
	}
	return c.pins.Accept(l)
}

// RemoveDevice takes one of the account's devices out of its list (this
// one's signature), then starts a new epoch in every session this
// account owns, wrapped only for the devices that remain.
func (c *Client) RemoveDevice(ctx context.Context, id string) error {
	l, err := c.Register(ctx)
	if err != nil {
		return err
	}
	stmt, err := l.RemoveDevice(c.dev, id, c.now())
	if err != nil {
		return fmt.Errorf("remove device %s: %w", id, err)
	}
	if err := c.api.RemoveDevice(ctx, id, stmt); err != nil {
		return fmt.Errorf("remove device %s: %w", id, err)
	}
	shared, err := c.api.SharedSessions(ctx)
	if err != nil {
		return fmt.Errorf("remove device %s: the sessions to rekey: %w", id, err)
	}
	for _, s := range shared {
		if s.Owner != c.account {
			continue
		}
		if err := c.newEpoch(ctx, s.Session.ID); err != nil {
			return fmt.Errorf("remove device %s: rekey %s: %w", id, s.Session.ID, err)
		}
	}
	return nil
}

// PairUI is what the person sees and answers while pairing.
type PairUI struct {
	// Code shows the one-time code to type on the new machine (Pair only).
	Code func(code string, expires time.Time)
	// Confirm shows the 12-digit code and returns whether the person
	// says it is the same on both screens.
	Confirm func(sas string) bool
}

// cancelMsg ends a pairing: the person said the codes differ.
var cancelMsg = []byte{0}

// mailbox reads a pairing mailbox's messages from the other device.
type mailbox struct {
	c     *Client
	id    string
	after int64
}

func (m *mailbox) post(ctx context.Context, body []byte) error {
	if _, err := m.c.api.PostPairingMessage(ctx, m.id, m.c.dev.ID(), body); err != nil {
		return fmt.Errorf("pairing: %w", err)
	}
	return nil
}

// next waits for the other device's next message.
func (m *mailbox) next(ctx context.Context) ([]byte, error) {
	for {
		page, err := m.c.api.PairingMessages(ctx, m.id, m.after)
		if err != nil {
			return nil, fmt.Errorf("pairing: %w", err)
		}
		for _, msg := range page.Messages {
			m.after = msg.Seq
			if msg.Device == m.c.dev.ID() {
				continue
			}
			if len(msg.Body) == 1 && msg.Body[0] == cancelMsg[0] {
				return nil, ErrPairCancelled
			}
			return msg.Body, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(m.c.poll):
		}
	}
}

// Pair lets a new machine of this account join, from this (listed)
// machine: it shows a code to type there, runs the exchange, shows the
// 12 digits to compare, and once the person confirms signs the new
// device into the list and sends it every epoch key held here.
func (c *Client) Pair(ctx context.Context, ui PairUI) (keys.DevicePublic, error) {
	list, err := c.Register(ctx)
	if err != nil {
		return keys.DevicePublic{}, err
	}
	p, err := c.api.CreatePairing(ctx, c.dev.ID())
	if err != nil {
		return keys.DevicePublic{}, fmt.Errorf("pairing: %w", err)
	}
	if ui.Code != nil {
		ui.Code(p.Code, p.ExpiresAt)
	}
	m := &mailbox{c: c, id: p.ID}
	in, err := keys.NewPairInitiator(c.dev)
	if err != nil {
		return keys.DevicePublic{}, err
	}
	commit, err := m.next(ctx)
	if err != nil {
		return keys.DevicePublic{}, err
	}
	hello, err := in.HandleCommit(commit)
	if err != nil {
		return keys.DevicePublic{}, err
	}
	if err := m.post(ctx, hello); err != nil {
		return keys.DevicePublic{}, err
	}
	reveal, err := m.next(ctx)
	if err != nil {
		return keys.DevicePublic{}, err
	}
	sas, err := in.HandleReveal(reveal)
	if err != nil {
		return keys.DevicePublic{}, err
	}
	if ui.Confirm == nil || !ui.Confirm(sas) {
		m.post(context.WithoutCancel(ctx), cancelMsg) //nolint:errcheck // the refusal stands either way
		return keys.DevicePublic{}, ErrSASRejected
	}
	confirm, err := in.Confirm()
	if err != nil {
		return keys.DevicePublic{}, err
	}
	if err := m.post(ctx, confirm); err != nil {
		return keys.DevicePublic{}, err
	}
	theirs, err := m.next(ctx)
	if err != nil {
		return keys.DevicePublic{}, err
	}
	joined, err := in.Finish(theirs)
	if err != nil {
		return keys.DevicePublic{}, err
	}
	if joined.Account != c.account {
		return keys.DevicePublic{}, fmt.Errorf("pairing: %w: a device of %q", ErrAccount, joined.Account)
	}
	stmt, err := list.AddDevice(c.dev, joined, c.now())
	if err != nil {
		return keys.DevicePublic{}, err
	}
	pub, err := joined.Marshal()
	if err != nil {
		return keys.DevicePublic{}, err
	}
	if _, err := c.api.PutDevice(ctx, joined.DeviceID, pub, stmt); err != nil {
		return keys.DevicePublic{}, fmt.Errorf("pairing: add the new device: %w", err)
	}
	bundle, err := keys.SealBundle(c.dev, joined, c.allKeys())
	if err != nil {
		return keys.DevicePublic{}, err
	}
	if err := m.post(ctx, bundle); err != nil {
		return keys.DevicePublic{}, err
	}
	return joined, nil
}

// Join makes this (new) machine one of the account's devices with the
// code shown on a listed machine: the exchange, the 12 digits to compare,
// then the keys the other machine sends.
func (c *Client) Join(ctx context.Context, code string, ui PairUI) error {
	if l, err := c.Register(ctx); err == nil && l != nil {
		return nil // listed already
	} else if !errors.Is(err, ErrNotPaired) {
		return err
	}
	p, err := c.api.JoinPairing(ctx, code, c.dev.ID())
	if err != nil {
		return fmt.Errorf("pairing: %w", err)
	}
	m := &mailbox{c: c, id: p.ID}
	j, err := keys.NewPairJoiner(c.dev)
	if err != nil {
		return err
	}
	commit, err := j.Start()
	if err != nil {
		return err
	}
	if err := m.post(ctx, commit); err != nil {
		return err
	}
	hello, err := m.next(ctx)
	if err != nil {
		return err
	}
	reveal, sas, err := j.HandleHello(hello)
	if err != nil {
		return err
	}
	if err := m.post(ctx, reveal); err != nil {
		return err
	}
	if ui.Confirm == nil || !ui.Confirm(sas) {
		m.post(context.WithoutCancel(ctx), cancelMsg) //nolint:errcheck // the refusal stands either way
		return ErrSASRejected
	}
	confirm, err := j.Confirm()
	if err != nil {
		return err
	}
	theirs, err := m.next(ctx)
	if err != nil {
		return err
	}
	initiator, err := j.Finish(theirs)
	if err != nil {
		return err
	}
	if err := m.post(ctx, confirm); err != nil {
		return err
	}
	bundle, err := m.next(ctx)
	if err != nil {
		return err
	}
	recs, err := keys.OpenBundle(c.dev, initiator, bundle)
	if err != nil {
		return fmt.Errorf("pairing: the keys sent: %w", err)
	}
	// The list the server gives must hold both machines, signed.
	l, err := c.Register(ctx)
	if err != nil {
		return err
	}
	if _, ok := l.Device(initiator.DeviceID); !ok {
		return fmt.Errorf("pairing: %w: the machine paired with is not in the list", roster.ErrUnknownSigner)
	}
	for _, r := range recs {
		if err := c.keepKey(r.SessionID, r.Epoch, r.Key); err != nil {
			return err
		}
	}
	return nil
}

// isStatus reports whether err is a control plane answer with code.
func isStatus(err error, code string) bool {
	var e *api.Error
	return errors.As(err, &e) && e.Code == code
}
