package roster

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"

	"mnote/collab/keys"
	"mnote/internal/atomicfile"
)

// KeyChangedError is the answer of Pins.Check and Pins.Blocked when an
// account's devices are not those pinned: the person is shown it (with a
// new safety number to compare) and nothing is sealed for the account
// until they accept.
type KeyChangedError struct {
	Account string
	Old     string // fingerprint of the pinned device set
	New     string // fingerprint of the device set now shown
	Added   []string
	Removed []string
}

func (e *KeyChangedError) Error() string {
	return fmt.Sprintf("devices of %q changed (%d added, %d removed)", e.Account, len(e.Added), len(e.Removed))
}

// Is makes errors.Is(err, ErrKeyChanged) true.
func (e *KeyChangedError) Is(target error) bool { return target == ErrKeyChanged }

// pin is what is remembered of one account.
type pin struct {
	Devices  []string `json:"devices"`  // the accepted device ids, sorted
	Chain    chainPin `json:"chain"`    // where the accepted device list stood
	Verified bool     `json:"verified"` // the person compared safety numbers for this list
	// Pending is a list seen that does not continue the accepted one, not
	// accepted yet.
	Pending      []string  `json:"pending,omitempty"`
	PendingChain *chainPin `json:"pendingChain,omitempty"`
}

// chainPin is a Checkpoint as the pins file keeps it.
type chainPin struct {
	Len  uint64 `json:"len"`
	Head string `json:"head"` // hex
}

func pinOf(cp Checkpoint) chainPin {
	return chainPin{Len: cp.Len, Head: hex.EncodeToString(cp.Head[:])}
}

func (c chainPin) checkpoint() (Checkpoint, bool) {
	var cp Checkpoint
	b, err := hex.DecodeString(c.Head)
	if err != nil || len(b) != len(cp.Head) || c.Len == 0 {
		return Checkpoint{}, false
	}
	cp.Len = c.Len
	copy(cp.Head[:], b)
	return cp, true
}

// pinsFile is the JSON of the pins file.
type pinsFile struct {
	Version  int            `json:"version"`
	Accounts map[string]pin `json:"accounts"`
}

// Pins is the trust-on-first-use store: per account, the device set the
// person accepted. It is a JSON file of mode 0600, written atomically on
// every change. Safe for concurrent use.
type Pins struct {
	path string
	mu   sync.Mutex
	m    map[string]pin
}

// pinsVersion is the pins file's format: 2 pins the device list's chain
// (1, a device set alone, is refused as corrupt: no release wrote it).
const pinsVersion = 2

// maxPinsFile bounds what OpenPins reads.
const maxPinsFile = 16 << 20

// OpenPins reads the pins file at path; a missing file is an empty store.
// A file others may write is refused (ErrPinsPermissions), one that does
// not parse is ErrPinsCorrupt.
func OpenPins(path string) (*Pins, error) {
	p := &Pins{path: path, m: map[string]pin{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open pins: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open pins: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("open pins %s: %w: not a regular file", path, ErrPinsCorrupt)
	}
	if perm := st.Mode().Perm(); perm&0o022 != 0 {
		return nil, fmt.Errorf("open pins %s: %w: mode %04o", path, ErrPinsPermissions, perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPinsFile+1))
	if err != nil {
		return nil, fmt.Errorf("open pins: %w", err)
	}
	var pf pinsFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pf); err != nil || dec.More() || len(b) > maxPinsFile {
		return nil, fmt.Errorf("open pins %s: %w: %v", path, ErrPinsCorrupt, err)
	}
	if pf.Version != pinsVersion {
		return nil, fmt.Errorf("open pins %s: %w: version %d", path, ErrPinsCorrupt, pf.Version)
	}
	for a, pn := range pf.Accounts {
		if _, ok := pn.Chain.checkpoint(); len(pn.Devices) == 0 || !ok {
			return nil, fmt.Errorf("open pins %s: %w: %q without devices", path, ErrPinsCorrupt, a)
		}
		slices.Sort(pn.Devices)
		pn.Devices = slices.Compact(pn.Devices)
		if pn.Pending != nil {
			slices.Sort(pn.Pending)
			pn.Pending = slices.Compact(pn.Pending)
		}
		p.m[a] = pn
	}
	return p, nil
}

// save writes the store; the caller holds mu.
func (p *Pins) save() error {
	b, err := json.MarshalIndent(pinsFile{Version: pinsVersion, Accounts: p.m}, "", "  ")
	if err != nil {
		return fmt.Errorf("save pins: %w", err)
	}
	if err := atomicfile.WriteFile(p.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save pins: %w", err)
	}
	return nil
}

func deviceIDs(devices []keys.DevicePublic) []string {
	ids := make([]string, len(devices))
	for i, d := range devices {
		ids[i] = d.DeviceID
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func changed(account string, old, now []string) *KeyChangedError {
	e := &KeyChangedError{Account: account, Old: fingerprintIDs(old), New: fingerprintIDs(now)}
	for _, id := range now {
		if _, found := slices.BinarySearch(old, id); !found {
			e.Added = append(e.Added, id)
		}
	}
	for _, id := range old {
		if _, found := slices.BinarySearch(now, id); !found {
			e.Removed = append(e.Removed, id)
		}
	}
	return e
}

// Check compares an account's verified device list with the one pinned.
// An account seen for the first time is pinned (trust on first use) and
// nil returned. A list that continues the pinned one (the same chain,
// perhaps longer: devices the account's own devices signed in or out) is
// pinned as it now stands and nil returned, the safety number compared
// still counting. A list that does not continue it (another chain, or a
// shorter one: a server showing devices of its own making, or an old
// state) is a *KeyChangedError, remembered so that Blocked returns it too
// until Accept.
func (p *Pins) Check(l *DeviceList) error {
	if l == nil || len(l.Devices()) == 0 {
		return fmt.Errorf("check pins: %w", ErrNoDeviceList)
	}
	account, ids, cp := l.Account, deviceIDs(l.Devices()), l.Checkpoint()
	p.mu.Lock()
	defer p.mu.Unlock()
	pn, ok := p.m[account]
	if !ok {
		p.m[account] = pin{Devices: ids, Chain: pinOf(cp)}
		return p.save()
	}
	if old, _ := pn.Chain.checkpoint(); l.Extends(old) == nil {
		if pn.Pending == nil && pn.Chain == pinOf(cp) {
			return nil
		}
		p.m[account] = pin{Devices: ids, Chain: pinOf(cp), Verified: pn.Verified}
		return p.save()
	}
	if next := pinOf(cp); pn.PendingChain == nil || *pn.PendingChain != next {
		pn.Pending, pn.PendingChain = ids, &next
		p.m[account] = pn
		if err := p.save(); err != nil {
			return err
		}
	}
	return changed(account, pn.Devices, ids)
}

// Blocked is the send gate: nil when nothing may be sealed for account
// without asking, the *KeyChangedError of the last Check otherwise.
func (p *Pins) Blocked(account string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	pn, ok := p.m[account]
	if !ok || pn.Pending == nil {
		return nil
	}
	return changed(account, pn.Devices, pn.Pending)
}

// Accept pins an account's device list as it stands, after the person
// accepted a change; Verified is cleared until they compare safety
// numbers again.
func (p *Pins) Accept(l *DeviceList) error {
	if l == nil || len(l.Devices()) == 0 {
		return fmt.Errorf("accept pins: %w", ErrNoDeviceList)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m[l.Account] = pin{Devices: deviceIDs(l.Devices()), Chain: pinOf(l.Checkpoint())}
	return p.save()
}

// MarkVerified records that the person compared safety numbers for an
// account's device list; it fails with a *KeyChangedError if the list is
// not the pinned one.
func (p *Pins) MarkVerified(l *DeviceList) error {
	if l == nil || len(l.Devices()) == 0 {
		return fmt.Errorf("verify pins: %w", ErrNoDeviceList)
	}
	ids := deviceIDs(l.Devices())
	p.mu.Lock()
	defer p.mu.Unlock()
	pn, ok := p.m[l.Account]
	if !ok || pn.Chain != pinOf(l.Checkpoint()) {
		return changed(l.Account, pn.Devices, ids)
	}
	pn.Verified = true
	p.m[l.Account] = pn
	return p.save()
}

// PinStatus is what the store knows of one account.
type PinStatus struct {
	Pinned      bool   // seen before
	Fingerprint string // of the pinned set
	Verified    bool   // safety number compared for the pinned set
	Changed     bool   // a different set seen and not accepted (Blocked)
}

// Status is what the store knows of account.
func (p *Pins) Status(account string) PinStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	pn, ok := p.m[account]
	if !ok {
		return PinStatus{}
	}
	return PinStatus{Pinned: true, Fingerprint: fingerprintIDs(pn.Devices), Verified: pn.Verified, Changed: pn.Pending != nil}
}

// Accounts are the pinned accounts, sorted.
func (p *Pins) Accounts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.m))
}
