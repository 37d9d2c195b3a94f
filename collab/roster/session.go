package roster

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"mnote/collab/internal/wire"
	"mnote/collab/keys"
)

// Role is a member's role in a session.
type Role string

// The four roles.
const (
	Owner     Role = "owner"
	Editor    Role = "editor"
	Commenter Role = "commenter"
	Viewer    Role = "viewer"
)

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	switch r {
	case Owner, Editor, Commenter, Viewer:
		return true
	}
	return false
}

// Op is what a session statement does.
type Op string

// The session operations.
const (
	Create       Op = "create"        // Subject: the owner; Role: owner; Epoch: 1; KeyCommitment
	AddMember    Op = "add_member"    // Subject, Role (not owner)
	SetRole      Op = "set_role"      // Subject, Role (not owner)
	RemoveMember Op = "remove_member" // Subject; a new epoch must follow
	NewEpoch     Op = "new_epoch"     // Epoch: the current one plus one; KeyCommitment
)

// Statement is one statement of a session roster.
type Statement struct {
	SessionID string
	N         uint64
	Prev      [32]byte
	Op        Op
	Subject   string // an account
	Role      Role
	Epoch     uint64
	// KeyCommitment is the epoch key's commitment (keys.EpochKey.Commitment)
	// in the statements that start an epoch; zero in the others.
	KeyCommitment [32]byte
	Time          time.Time
	Signer        string // device id
}

func (s Statement) link() link {
	return link{Scope: s.SessionID, N: s.N, Prev: s.Prev, Time: s.Time, Signer: s.Signer}
}

func (s Statement) encode(by *keys.Device) ([]byte, error) {
	w := wire.Writer{}
	if err := writeLink(&w, typeSession, s.link()); err != nil {
		return nil, err
	}
	if err := wire.CheckStr("subject", s.Subject); err != nil {
		return nil, err
	}
	w.Str(string(s.Op))
	w.Str(s.Subject)
	w.Str(string(s.Role))
	w.U64(s.Epoch)
	w.Bytes(s.KeyCommitment[:])
	return finish(&w, by, ctxSession), nil
}

// ParseStatement parses a session statement, without verifying it.
func ParseStatement(blob []byte) (Statement, error) {
	s, _, _, err := parseStatement(blob)
	return s, err
}

func parseStatement(blob []byte) (s Statement, body, sig []byte, err error) {
	r := wire.Reader{B: blob}
	l := readLink(&r, typeSession)
	s = Statement{SessionID: l.Scope, N: l.N, Prev: l.Prev, Time: l.Time, Signer: l.Signer}
	s.Op = Op(r.Str("op"))
	s.Subject = r.Str("subject")
	s.Role = Role(r.Str("role"))
	s.Epoch = r.U64("epoch")
	if c := r.Bytes("key commitment"); len(c) == len(s.KeyCommitment) {
		copy(s.KeyCommitment[:], c)
	} else {
		r.Fail("key commitment")
	}
	body, sig, err = readSig(&r, blob)
	return s, body, sig, err
}

// Member is an account in a session with its role.
type Member struct {
	Account string
	Role    Role
}

// Roster is a session's verified membership.
type Roster struct {
	SessionID string
	Owner     string
	// Epoch is the current epoch: entries are sealed under its key.
	Epoch uint64
	// NeedsNewEpoch: a member was removed since the last new epoch; the
	// owner must start one before anything more is sealed.
	NeedsNewEpoch bool

	owner      *DeviceList
	members    map[string]Role
	commits    map[uint64][32]byte // each epoch's key commitment
	statements []Statement
	raw        [][]byte
	chain      chain
}

// Verify verifies a session roster (the blobs as the server stores
// them, in order) against the owner's verified device list, and rebuilds
// the members, their roles and the current epoch.
func Verify(blobs [][]byte, owner *DeviceList) (*Roster, error) {
	if err := checkLen(len(blobs)); err != nil {
		return nil, fmt.Errorf("roster: %w", err)
	}
	r := &Roster{Owner: owner.Account, owner: owner, members: map[string]Role{}, commits: map[uint64][32]byte{}}
	for i, b := range blobs {
		if err := r.apply(b); err != nil {
			return nil, fmt.Errorf("roster of %q: %w", r.SessionID, statementError(i, err))
		}
	}
	return r, nil
}

func (r *Roster) apply(blob []byte) error {
	s, body, sig, err := parseStatement(blob)
	if err != nil {
		return err
	}
	if err := r.chain.next(s.link()); err != nil {
		return err
	}
	signer, ok := r.owner.signerAt(s.Signer, s.Time)
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotOwnerDevice, s.Signer)
	}
	if err := signer.Verify(ctxSession, body, sig); err != nil {
		return fmt.Errorf("%w: by %s", ErrBadSignature, s.Signer)
	}
	if err := r.do(s); err != nil {
		return err
	}
	r.SessionID = r.chain.scope
	r.chain.push(blob, s.link())
	r.statements = append(r.statements, s)
	r.raw = append(r.raw, blob)
	return nil
}

// do applies a verified statement's operation.
func (r *Roster) do(s Statement) error {
	if s.Role != "" && !s.Role.Valid() {
		return fmt.Errorf("%w: %q", ErrBadRole, s.Role)
	}
	switch s.Op {
	case Create, AddMember, SetRole, RemoveMember, NewEpoch:
	default:
		return fmt.Errorf("%w: %q", ErrUnknownOp, s.Op)
	}
	first := len(r.statements) == 0
	if first != (s.Op == Create) {
		return fmt.Errorf("%w: %s as statement %d", ErrInvalidOp, s.Op, s.N)
	}
	cur, isMember := r.members[s.Subject]
	memberRole := func() error {
		if s.Role == "" || s.Role == Owner {
			return fmt.Errorf("%w: %q for %s", ErrBadRole, s.Role, s.Op)
		}
		return nil
	}
	sameEpoch := func() error {
		if s.Epoch != r.Epoch {
			return fmt.Errorf("%w: %s in epoch %d, current %d", ErrInvalidOp, s.Op, s.Epoch, r.Epoch)
		}
		return nil
	}
	starts := s.Op == Create || s.Op == NewEpoch
	if starts == (s.KeyCommitment == [32]byte{}) {
		return fmt.Errorf("%w: %s with a key commitment %t", ErrInvalidOp, s.Op, !starts)
	}
	switch s.Op {
	case Create:
		switch {
		case s.Subject != r.owner.Account:
			return fmt.Errorf("%w: created for %q", ErrNotOwner, s.Subject)
		case s.Role != Owner:
			return fmt.Errorf("%w: the creator as %q", ErrBadRole, s.Role)
		case s.Epoch != 1:
			return fmt.Errorf("%w: created in epoch %d", ErrInvalidOp, s.Epoch)
		}
		r.members[s.Subject] = Owner
		r.Epoch = 1
		r.commits[1] = s.KeyCommitment
	case AddMember, SetRole:
		if err := memberRole(); err != nil {
			return err
		}
		if err := sameEpoch(); err != nil {
			return err
		}
		if s.Subject == "" || isMember != (s.Op == SetRole) || cur == Owner {
			return fmt.Errorf("%w: %s %q", ErrInvalidOp, s.Op, s.Subject)
		}
		r.members[s.Subject] = s.Role
	case RemoveMember:
		if err := sameEpoch(); err != nil {
			return err
		}
		if s.Role != "" || !isMember || cur == Owner {
			return fmt.Errorf("%w: %s %q", ErrInvalidOp, s.Op, s.Subject)
		}
		delete(r.members, s.Subject)
		r.NeedsNewEpoch = true
	case NewEpoch:
		if s.Subject != "" || s.Role != "" || s.Epoch != r.Epoch+1 {
			return fmt.Errorf("%w: new epoch %d after %d", ErrInvalidOp, s.Epoch, r.Epoch)
		}
		r.Epoch = s.Epoch
		r.NeedsNewEpoch = false
		r.commits[s.Epoch] = s.KeyCommitment
	}
	return nil
}

// KeyCommitment is the commitment to an epoch's key its starting
// statement carries (false for an epoch the roster has not reached).
func (r *Roster) KeyCommitment(epoch uint64) ([32]byte, bool) {
	c, ok := r.commits[epoch]
	return c, ok
}

// NewSession is the statement, signed by by (a device of the owner, whose
// verified list is owner), that creates the session in epoch 1, whose key
// is key (committed to in the statement).
func NewSession(by *keys.Device, owner *DeviceList, sessionID string, key keys.EpochKey, now time.Time) ([]byte, error) {
	s := Statement{SessionID: sessionID, Op: Create, Subject: owner.Account, Role: Owner, Epoch: 1,
		KeyCommitment: key.Commitment(sessionID, 1), Time: now.UTC().Truncate(time.Millisecond), Signer: by.ID()}
	b, err := s.encode(by)
	if err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	if _, err := Verify([][]byte{b}, owner); err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	return b, nil
}

// Add is the statement adding account as a member with role.
func (r *Roster) Add(by *keys.Device, account string, role Role, now time.Time) ([]byte, error) {
	return r.append(by, Statement{Op: AddMember, Subject: account, Role: role, Epoch: r.Epoch}, now)
}

// SetRole is the statement changing a member's role.
func (r *Roster) SetRole(by *keys.Device, account string, role Role, now time.Time) ([]byte, error) {
	return r.append(by, Statement{Op: SetRole, Subject: account, Role: role, Epoch: r.Epoch}, now)
}

// Remove is the statement removing a member; a new epoch must follow.
func (r *Roster) Remove(by *keys.Device, account string, now time.Time) ([]byte, error) {
	return r.append(by, Statement{Op: RemoveMember, Subject: account, Epoch: r.Epoch}, now)
}

// NewEpoch is the statement starting the next epoch, whose key is key
// (committed to in the statement). The key goes, wrapped
// (keys.WrapEpochKey), to the Recipients of the roster it makes.
func (r *Roster) NewEpoch(by *keys.Device, key keys.EpochKey, now time.Time) ([]byte, error) {
	return r.append(by, Statement{Op: NewEpoch, Epoch: r.Epoch + 1, KeyCommitment: key.Commitment(r.SessionID, r.Epoch+1)}, now)
}

func (r *Roster) append(by *keys.Device, s Statement, now time.Time) ([]byte, error) {
	lk := r.chain.nextLink(by, now)
	s.SessionID, s.N, s.Prev, s.Time, s.Signer = r.SessionID, lk.N, lk.Prev, lk.Time, lk.Signer
	b, err := s.encode(by)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Op, err)
	}
	if _, err := Verify(append(slices.Clone(r.raw), b), r.owner); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Op, err)
	}
	return b, nil
}

// Role is account's role, if it is a member.
func (r *Roster) Role(account string) (Role, bool) {
	role, ok := r.members[account]
	return role, ok
}

// Members are the members, in account order.
func (r *Roster) Members() []Member {
	out := make([]Member, 0, len(r.members))
	for _, a := range slices.Sorted(maps.Keys(r.members)) {
		out = append(out, Member{Account: a, Role: r.members[a]})
	}
	return out
}

// Statements are the verified statements, in order.
func (r *Roster) Statements() []Statement { return slices.Clone(r.statements) }

// Checkpoint is what to keep of this chain to check the next (Extends).
func (r *Roster) Checkpoint() Checkpoint { return r.chain.checkpoint() }

// Extends checks that this roster continues the one of cp.
func (r *Roster) Extends(cp Checkpoint) error {
	if err := r.chain.extends(cp); err != nil {
		return fmt.Errorf("roster of %q: %w", r.SessionID, err)
	}
	return nil
}

// Recipients are the devices the current epoch key is wrapped for: every
// listed device of every member, from each member's verified device list
// (devices, by account; the owner's is the roster's own). A member without
// a list is an error: the key cannot be handed to devices no one vouched
// for. Check each member's devices against the Pins first (Pins.Check,
// Pins.Blocked): a changed set must be accepted before a key goes to it.
func (r *Roster) Recipients(devices map[string]*DeviceList) ([]keys.DevicePublic, error) {
	var out []keys.DevicePublic
	for _, m := range r.Members() {
		l := devices[m.Account]
		if m.Account == r.Owner {
			l = r.owner
		}
		if l == nil || l.Account != m.Account {
			return nil, fmt.Errorf("recipients of %q: %w: %q", r.SessionID, ErrNoDeviceList, m.Account)
		}
		out = append(out, l.Devices()...)
	}
	return out, nil
}

// KeyWrapper is the owner device id, if it may hand out the session's
// epoch keys: the sender to pass to keys.UnwrapEpochKey. Any other
// sender is ErrNotOwnerDevice — a key the server or a member wrapped must
// not be used.
func (r *Roster) KeyWrapper(id string) (keys.DevicePublic, error) {
	p, ok := r.owner.Device(id)
	if !ok {
		return keys.DevicePublic{}, fmt.Errorf("key of %q wrapped by %s: %w", r.SessionID, id, ErrNotOwnerDevice)
	}
	return p, nil
}

// Author is who wrote an entry: the member whose device it is.
type Author struct {
	Member
	Device keys.DevicePublic
	// Removed: the device is no longer in the member's list. Its entries
	// of epochs before the removal stay readable; a newer one is the
	// caller's to refuse (the removal made a new epoch).
	Removed bool
}

// Author finds the member whose device wrote an entry (the AuthorDevice of
// keys.EntryHeader), in the members' verified device lists (devices, by
// account; the owner's is the roster's own): the author to pass to
// keys.Open, and the role to check the entry's kind against. A device of
// no current member is ErrUnknownSigner.
func (r *Roster) Author(devices map[string]*DeviceList, deviceID string) (Author, error) {
	for _, m := range r.Members() {
		l := devices[m.Account]
		if m.Account == r.Owner {
			l = r.owner
		}
		if l == nil || l.Account != m.Account {
			continue
		}
		if p, ok := l.active[deviceID]; ok {
			return Author{Member: m, Device: p}, nil
		}
		if rd, ok := l.removed[deviceID]; ok {
			return Author{Member: m, Device: rd.pub, Removed: true}, nil
		}
	}
	return Author{}, fmt.Errorf("author of an entry of %q: %w: %s", r.SessionID, ErrUnknownSigner, deviceID)
}
