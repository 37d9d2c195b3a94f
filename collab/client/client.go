package client

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"mnote/collab/keys"
	"mnote/collab/roster"
	"mnote/controlplane/api"
	"mnote/internal/atomicfile"
)

// File names in Options.Dir.
const (
	deviceFile = "device.key" // keys.SaveDevice, 0600
	pinsFile   = "pins.json"  // roster.Pins
	stateFile  = "state.json" // state, 0600: owners, checkpoints, epoch keys
)

// Errors a caller tells apart (errors.Is); the words people read are the
// caller's (the message catalogue).
var (
	// ErrNotPaired: this machine is not in its account's device list;
	// pair it from a listed machine (Pair / Join).
	ErrNotPaired = errors.New("this device is not in the account's device list")
	// ErrAccount: the device key belongs to another account than the token.
	ErrAccount = errors.New("the device key belongs to another account")
	// ErrNotOwner: only the session's owner changes members and keys.
	ErrNotOwner = errors.New("only the session's owner does this")
	// ErrOwnerChanged: the server names another owner than the one pinned.
	ErrOwnerChanged = errors.New("the session's owner changed")
	// ErrNoKey: no key this device can use for an epoch.
	ErrNoKey = errors.New("no key for this epoch")
	// ErrKeyCommitment: a key unwrapped for an epoch is not the one the
	// owner's signed statement committed to (an owner device gave members
	// different keys).
	ErrKeyCommitment = errors.New("the epoch key is not the one the owner committed to")
	// ErrSASRejected: the person said the codes differ.
	ErrSASRejected = errors.New("the codes do not match")
	// ErrPairCancelled: the other device ended the pairing.
	ErrPairCancelled = errors.New("pairing cancelled on the other device")
	// ErrRevoked: this account is no longer a member.
	ErrRevoked = errors.New("no longer a member of the session")
	// ErrRole: the role does not allow it.
	ErrRole = errors.New("your role does not allow this")
)

// Options configure a Client.
type Options struct {
	// Dir keeps the device key, the pins and the state (made 0700).
	Dir string
	// API is the control plane client (cloudsync's: its URL, token and
	// HTTP client).
	API *api.Client
	// DeviceName names this machine in device lists (the host name when
	// empty).
	DeviceName string
	Now        func() time.Time
	Logger     *slog.Logger
	// Poll is how often pairing and a queued run ask again (250 ms).
	Poll time.Duration
}

// Client is one machine's side of shared sessions for one account.
type Client struct {
	api     *api.Client
	dev     *keys.Device
	pins    *roster.Pins
	dir     string
	account string
	now     func() time.Time
	log     *slog.Logger
	poll    time.Duration

	mu sync.Mutex
	st state
}

// state is what the client keeps between runs.
type state struct {
	Sessions map[string]*sessionState `json:"sessions"`
	// Devices are the devices this client verified in accounts' device
	// lists, by id (their DevicePublic encoding): the entries a member
	// wrote before being removed stay readable with them.
	Devices map[string][]byte `json:"devices,omitempty"`
}

type sessionState struct {
	Owner      string `json:"owner"`
	RosterLen  uint64 `json:"rosterLen,omitempty"`
	RosterHead string `json:"rosterHead,omitempty"` // hex
	// Keys are the epoch keys this device holds, by epoch (base64).
	Keys map[string]string `json:"keys,omitempty"`
	// Wrapped are the devices this (owner) device wrapped WrappedEpoch's
	// key for: one that leaves its list makes a new epoch.
	WrappedEpoch uint64   `json:"wrappedEpoch,omitempty"`
	Wrapped      []string `json:"wrapped,omitempty"`
}

// Open opens (or makes, on first use) this machine's device for the
// token's account.
func Open(ctx context.Context, o Options) (*Client, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Poll == 0 {
		o.Poll = 250 * time.Millisecond
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("shared sessions: %w", err)
	}
	me, err := o.API.Me(ctx)
	if err != nil {
		return nil, fmt.Errorf("shared sessions: who am I: %w", err)
	}
	c := &Client{api: o.API, dir: o.Dir, account: me.Name, now: o.Now, log: o.Logger, poll: o.Poll}
	path := filepath.Join(o.Dir, deviceFile)
	c.dev, err = keys.LoadDevice(path)
	if errors.Is(err, fs.ErrNotExist) {
		name := o.DeviceName
		if name == "" {
			name, _ = os.Hostname()
		}
		if c.dev, err = keys.NewDevice(me.Name, name, o.Now()); err == nil {
			err = keys.SaveDevice(path, c.dev)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("shared sessions: this device's key: %w", err)
	}
	if a := c.dev.Public().Account; a != me.Name {
		return nil, fmt.Errorf("%w: %q, the token is %q's", ErrAccount, a, me.Name)
	}
	if c.pins, err = roster.OpenPins(filepath.Join(o.Dir, pinsFile)); err != nil {
		return nil, fmt.Errorf("shared sessions: %w", err)
	}
	if err := c.loadState(); err != nil {
		return nil, err
	}
	return c, nil
}

// Account is the token's account.
func (c *Client) Account() string { return c.account }

// Device is this machine's public device.
func (c *Client) Device() keys.DevicePublic { return c.dev.Public() }

// Pins are the pinned device sets of other accounts.
func (c *Client) Pins() *roster.Pins { return c.pins }

func (c *Client) loadState() error {
	c.st = state{Sessions: map[string]*sessionState{}}
	b, err := os.ReadFile(filepath.Join(c.dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = json.Unmarshal(b, &c.st)
	}
	if err != nil {
		return fmt.Errorf("shared sessions: state: %w", err)
	}
	if c.st.Sessions == nil {
		c.st.Sessions = map[string]*sessionState{}
	}
	return nil
}

// saveLocked writes the state (0600).
func (c *Client) saveLocked() error {
	b, err := json.MarshalIndent(c.st, "", " ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(c.dir, stateFile), b, 0o600); err != nil {
		return fmt.Errorf("shared sessions: save state: %w", err)
	}
	return nil
}

func (c *Client) sessionLocked(id string) *sessionState {
	s := c.st.Sessions[id]
	if s == nil {
		s = &sessionState{}
		c.st.Sessions[id] = s
	}
	return s
}

// keepKey keeps an epoch key of a session.
func (c *Client) keepKey(id string, epoch uint64, k keys.EpochKey) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sessionLocked(id)
	if s.Keys == nil {
		s.Keys = map[string]string{}
	}
	s.Keys[strconv.FormatUint(epoch, 10)] = base64.StdEncoding.EncodeToString(k[:])
	return c.saveLocked()
}

// heldKey is a kept epoch key.
func (c *Client) heldKey(id string, epoch uint64) (keys.EpochKey, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var k keys.EpochKey
	s := c.st.Sessions[id]
	if s == nil {
		return k, false
	}
	b, err := base64.StdEncoding.DecodeString(s.Keys[strconv.FormatUint(epoch, 10)])
	if err != nil || len(b) != len(k) {
		return k, false
	}
	copy(k[:], b)
	return k, true
}

// allKeys are every epoch key kept, for a bundle.
func (c *Client) allKeys() []keys.EpochKeyRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []keys.EpochKeyRecord
	ids := make([]string, 0, len(c.st.Sessions))
	for id := range c.st.Sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		for e, v := range c.st.Sessions[id].Keys {
			n, err1 := strconv.ParseUint(e, 10, 64)
			b, err2 := base64.StdEncoding.DecodeString(v)
			if err1 != nil || err2 != nil || len(b) != 32 {
				continue
			}
			r := keys.EpochKeyRecord{SessionID: id, Epoch: n}
			copy(r.Key[:], b)
			out = append(out, r)
		}
	}
	return out
}

// checkpoint is the kept roster checkpoint of a session.
func (c *Client) checkpoint(id string) (roster.Checkpoint, string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.st.Sessions[id]
	if s == nil {
		return roster.Checkpoint{}, "", false
	}
	var cp roster.Checkpoint
	b, err := hex.DecodeString(s.RosterHead)
	if err != nil || len(b) != len(cp.Head) || s.RosterLen == 0 {
		return cp, s.Owner, false
	}
	cp.Len = s.RosterLen
	copy(cp.Head[:], b)
	return cp, s.Owner, true
}

func (c *Client) keepCheckpoint(id, owner string, cp roster.Checkpoint) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sessionLocked(id)
	s.Owner, s.RosterLen, s.RosterHead = owner, cp.Len, hex.EncodeToString(cp.Head[:])
	return c.saveLocked()
}

// KnownSession reports, without a network connection, whether the client
// kept in dir has seen the shared session id (its owner pinned).
func KnownSession(dir, id string) bool {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return false
	}
	var st state
	if json.Unmarshal(b, &st) != nil {
		return false
	}
	s, ok := st.Sessions[id]
	return ok && s.Owner != ""
}

// SessionOwner is the owner the client kept in dir pinned for the shared
// session id ("" when it has not seen it), without a network connection.
func SessionOwner(dir, id string) string {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return ""
	}
	var st state
	if json.Unmarshal(b, &st) != nil {
		return ""
	}
	if s, ok := st.Sessions[id]; ok {
		return s.Owner
	}
	return ""
}

// SharedSessions lists the shared sessions this account is a member of,
// with its role in each (the server's list; Members verifies one).
func (c *Client) SharedSessions(ctx context.Context) ([]api.SharedSession, error) {
	return c.api.SharedSessions(ctx)
}

// Shared reports whether the session is shared with this account.
func (c *Client) Shared(ctx context.Context, id string) (bool, error) {
	_, err := c.api.SharedSession(ctx, id)
	if isStatus(err, api.CodeNotFound) {
		return false, nil
	}
	return err == nil, err
}

// rememberDevices keeps the devices of a verified list.
func (c *Client) rememberDevices(l *roster.DeviceList) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.Devices == nil {
		c.st.Devices = map[string][]byte{}
	}
	changed := false
	for _, d := range l.Devices() {
		if _, ok := c.st.Devices[d.DeviceID]; ok {
			continue
		}
		if b, err := d.Marshal(); err == nil {
			c.st.Devices[d.DeviceID] = b
			changed = true
		}
	}
	if changed {
		if err := c.saveLocked(); err != nil {
			c.log.Warn("shared sessions: devices not kept", "err", err)
		}
	}
}

// knownDevice is a device this client verified before.
func (c *Client) knownDevice(id string) (keys.DevicePublic, bool) {
	c.mu.Lock()
	b, ok := c.st.Devices[id]
	c.mu.Unlock()
	if !ok {
		return keys.DevicePublic{}, false
	}
	p, err := keys.ParseDevicePublic(b)
	if err != nil || p.DeviceID != id {
		return keys.DevicePublic{}, false
	}
	return p, true
}
