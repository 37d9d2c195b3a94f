package roster

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"mnote/collab/internal/wire"
	"mnote/collab/keys"
)

// DeviceOp is what a device statement does.
type DeviceOp string

// The device operations.
const (
	AddDevice    DeviceOp = "add_device"
	RemoveDevice DeviceOp = "remove_device"
)

// DeviceStatement is one statement of an account's device list.
type DeviceStatement struct {
	Account  string
	N        uint64
	Prev     [32]byte
	Op       DeviceOp
	DeviceID string            // the device added or removed
	Device   keys.DevicePublic // the device added (zero for a removal)
	Time     time.Time
	Signer   string
}

func (s DeviceStatement) link() link {
	return link{Scope: s.Account, N: s.N, Prev: s.Prev, Time: s.Time, Signer: s.Signer}
}

func (s DeviceStatement) encode(by *keys.Device) ([]byte, error) {
	w := wire.Writer{}
	if err := writeLink(&w, typeDevices, s.link()); err != nil {
		return nil, err
	}
	w.Str(string(s.Op))
	w.Str(s.DeviceID)
	var dev []byte
	if s.Op == AddDevice {
		var err error
		if dev, err = s.Device.Marshal(); err != nil {
			return nil, err
		}
	}
	w.Bytes(dev)
	return finish(&w, by, ctxDevices), nil
}

// ParseDeviceStatement parses a device statement, without verifying it.
func ParseDeviceStatement(blob []byte) (DeviceStatement, error) {
	s, _, _, err := parseDeviceStatement(blob)
	return s, err
}

func parseDeviceStatement(blob []byte) (s DeviceStatement, body, sig []byte, err error) {
	r := wire.Reader{B: blob}
	l := readLink(&r, typeDevices)
	s = DeviceStatement{Account: l.Scope, N: l.N, Prev: l.Prev, Time: l.Time, Signer: l.Signer}
	s.Op = DeviceOp(r.Str("op"))
	s.DeviceID = r.Str("device id")
	dev := r.Bytes("device")
	if body, sig, err = readSig(&r, blob); err != nil {
		return s, nil, nil, err
	}
	switch s.Op {
	case AddDevice:
		if s.Device, err = keys.ParseDevicePublic(dev); err != nil {
			return s, nil, nil, malformed(err)
		}
		if s.Device.DeviceID != s.DeviceID || s.Device.Account != s.Account {
			return s, nil, nil, fmt.Errorf("%w: device %s of %q added as %s of %q", ErrMalformed, s.Device.DeviceID, s.Device.Account, s.DeviceID, s.Account)
		}
	case RemoveDevice:
		if len(dev) != 0 {
			return s, nil, nil, fmt.Errorf("%w: a removal carrying a device", ErrMalformed)
		}
	default:
		return s, nil, nil, fmt.Errorf("%w: %q", ErrUnknownOp, s.Op)
	}
	return s, body, sig, nil
}

// removedDevice is a device no longer listed, and from when.
type removedDevice struct {
	pub keys.DevicePublic
	at  time.Time
}

// DeviceList is an account's verified device list.
type DeviceList struct {
	Account    string
	active     map[string]keys.DevicePublic
	removed    map[string]removedDevice
	statements []DeviceStatement
	raw        [][]byte
	chain      chain
}

// VerifyDevices verifies the device chain of account (the blobs as the
// server stores them, in order) and returns the devices it lists.
func VerifyDevices(account string, blobs [][]byte) (*DeviceList, error) {
	if err := checkLen(len(blobs)); err != nil {
		return nil, fmt.Errorf("devices of %q: %w", account, err)
	}
	l := &DeviceList{Account: account, active: map[string]keys.DevicePublic{}, removed: map[string]removedDevice{}}
	for i, b := range blobs {
		if err := l.apply(b); err != nil {
			return nil, fmt.Errorf("devices of %q: %w", account, statementError(i, err))
		}
	}
	return l, nil
}

func (l *DeviceList) apply(blob []byte) error {
	s, body, sig, err := parseDeviceStatement(blob)
	if err != nil {
		return err
	}
	if s.Account != l.Account {
		return fmt.Errorf("%w: statement of account %q", ErrBrokenChain, s.Account)
	}
	if err := l.chain.next(s.link()); err != nil {
		return err
	}
	first := len(l.statements) == 0
	signer, ok := l.active[s.Signer]
	if first {
		// trust on first use: the first device vouches for itself
		signer, ok = s.Device, s.Op == AddDevice && s.Signer == s.DeviceID
	}
	if !ok {
		return fmt.Errorf("%w: %s", ErrUnknownSigner, s.Signer)
	}
	if err := signer.Verify(ctxDevices, body, sig); err != nil {
		return fmt.Errorf("%w: by %s", ErrBadSignature, s.Signer)
	}
	switch s.Op {
	case AddDevice:
		_, isActive := l.active[s.DeviceID]
		_, wasRemoved := l.removed[s.DeviceID]
		if isActive || wasRemoved {
			return fmt.Errorf("%w: device %s listed before", ErrInvalidOp, s.DeviceID)
		}
		l.active[s.DeviceID] = s.Device
	case RemoveDevice:
		pub, isActive := l.active[s.DeviceID]
		if !isActive {
			return fmt.Errorf("%w: device %s is not listed", ErrInvalidOp, s.DeviceID)
		}
		if len(l.active) == 1 {
			return fmt.Errorf("%w: removing the last device", ErrInvalidOp)
		}
		delete(l.active, s.DeviceID)
		l.removed[s.DeviceID] = removedDevice{pub: pub, at: s.Time}
	}
	l.chain.push(blob, s.link())
	l.statements = append(l.statements, s)
	l.raw = append(l.raw, blob)
	return nil
}

// NewDeviceList starts the device list of first's account with first,
// self-signed. It returns the statement to publish.
func NewDeviceList(first *keys.Device, now time.Time) ([]byte, error) {
	p := first.Public()
	s := DeviceStatement{Account: p.Account, Op: AddDevice, DeviceID: p.DeviceID, Device: p,
		Time: now.UTC().Truncate(time.Millisecond), Signer: first.ID()}
	b, err := s.encode(first)
	if err != nil {
		return nil, fmt.Errorf("new device list: %w", err)
	}
	if _, err := VerifyDevices(p.Account, [][]byte{b}); err != nil {
		return nil, fmt.Errorf("new device list: %w", err)
	}
	return b, nil
}

// AddDevice is the statement, signed by by (a listed device), that adds
// dev — a device whose keys the person checked by pairing.
func (l *DeviceList) AddDevice(by *keys.Device, dev keys.DevicePublic, now time.Time) ([]byte, error) {
	return l.append(by, DeviceStatement{Op: AddDevice, DeviceID: dev.DeviceID, Device: dev}, now)
}

// RemoveDevice is the statement, signed by by, that removes the device id.
// Every session shared with the account then needs a new epoch.
func (l *DeviceList) RemoveDevice(by *keys.Device, id string, now time.Time) ([]byte, error) {
	return l.append(by, DeviceStatement{Op: RemoveDevice, DeviceID: id}, now)
}

func (l *DeviceList) append(by *keys.Device, s DeviceStatement, now time.Time) ([]byte, error) {
	lk := l.chain.nextLink(by, now)
	s.Account, s.N, s.Prev, s.Time, s.Signer = l.Account, lk.N, lk.Prev, lk.Time, lk.Signer
	b, err := s.encode(by)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Op, err)
	}
	if _, err := VerifyDevices(l.Account, append(slices.Clone(l.raw), b)); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Op, err)
	}
	return b, nil
}

// Devices are the listed devices, in device id order.
func (l *DeviceList) Devices() []keys.DevicePublic {
	ids := slices.Sorted(maps.Keys(l.active))
	out := make([]keys.DevicePublic, len(ids))
	for i, id := range ids {
		out[i] = l.active[id]
	}
	return out
}

// Device is the listed device id.
func (l *DeviceList) Device(id string) (keys.DevicePublic, bool) {
	p, ok := l.active[id]
	return p, ok
}

// signerAt is the device id if it may sign a statement dated t: listed, or
// removed after t. (A removed device could backdate, but only into the
// window before its removal, and never after a later statement: chains
// refuse a statement dated before its predecessor, and removal is followed
// by a new epoch that the owner signs.)
func (l *DeviceList) signerAt(id string, t time.Time) (keys.DevicePublic, bool) {
	if p, ok := l.active[id]; ok {
		return p, true
	}
	if r, ok := l.removed[id]; ok && t.Before(r.at) {
		return r.pub, true
	}
	return keys.DevicePublic{}, false
}

// Statements are the verified statements, in order.
func (l *DeviceList) Statements() []DeviceStatement { return slices.Clone(l.statements) }

// Checkpoint is what to keep of this chain to check the next (Extends).
func (l *DeviceList) Checkpoint() Checkpoint { return l.chain.checkpoint() }

// Extends checks that this chain continues the one of cp.
func (l *DeviceList) Extends(cp Checkpoint) error {
	if err := l.chain.extends(cp); err != nil {
		return fmt.Errorf("devices of %q: %w", l.Account, err)
	}
	return nil
}

// NeedsNewEpoch reports whether a device listed in before is gone from
// after: every session shared with the account must start a new epoch
// before anything more is sealed.
func NeedsNewEpoch(before, after *DeviceList) bool {
	return len(RemovedDevices(before, after)) > 0
}

// RemovedDevices are the ids of the devices listed in before and not in
// after, in order.
func RemovedDevices(before, after *DeviceList) []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(before.active)) {
		if _, ok := after.active[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// SetFingerprint is the fingerprint of a set of devices, as Pins keeps it:
// hex SHA-256 of their ids (which commit to their keys), sorted.
func SetFingerprint(devices []keys.DevicePublic) string {
	ids := make([]string, len(devices))
	for i, d := range devices {
		ids[i] = d.DeviceID
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return fingerprintIDs(ids)
}

func fingerprintIDs(ids []string) string {
	return fmt.Sprintf("%x", sha256Sum("mnote device set v1\x00"+strings.Join(ids, "\n")))
}
