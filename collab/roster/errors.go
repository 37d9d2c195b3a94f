package roster

import (
	"errors"
	"fmt"
)

// The sentinel errors of this package; returned errors wrap one of them.
var (
	// ErrMalformed: a statement that does not parse (wraps keys.ErrEncoding).
	ErrMalformed = errors.New("malformed statement")
	// ErrEmptyChain: no statements at all.
	ErrEmptyChain = errors.New("empty chain")
	// ErrBrokenChain: a statement dropped, reordered, inserted, forked, of
	// another session or account, or dated before its predecessor.
	ErrBrokenChain = errors.New("broken chain")
	// ErrBadSignature: a statement whose signature does not verify.
	ErrBadSignature = errors.New("statement signature does not verify")
	// ErrNotOwnerDevice: a session statement not signed by a device of the
	// session's owner.
	ErrNotOwnerDevice = errors.New("not signed by a device of the owner")
	// ErrNotOwner: a session created for another account than the owner's.
	ErrNotOwner = errors.New("session is not the owner's")
	// ErrUnknownSigner: a device statement not signed by a listed device.
	ErrUnknownSigner = errors.New("not signed by a device of the account")
	// ErrUnknownOp: an operation this build does not know.
	ErrUnknownOp = errors.New("unknown operation")
	// ErrBadRole: a role other than owner, editor, commenter, viewer, or
	// one the operation does not allow.
	ErrBadRole = errors.New("invalid role")
	// ErrInvalidOp: a known operation that does not apply here (adding a
	// member twice, removing the owner, skipping an epoch…).
	ErrInvalidOp = errors.New("operation does not apply")
	// ErrNoDeviceList: a member whose verified device list is missing.
	ErrNoDeviceList = errors.New("no device list for a member")
	// ErrRollback: a chain shorter than one seen before.
	ErrRollback = errors.New("chain rolled back")
	// ErrFork: a chain whose history differs from one seen before.
	ErrFork = errors.New("chain forked")
	// ErrKeyChanged: an account's devices changed since they were pinned;
	// returned as a *KeyChangedError.
	ErrKeyChanged = errors.New("account keys changed")
	// ErrPinsCorrupt: the pins file does not parse.
	ErrPinsCorrupt = errors.New("pins file is corrupt")
	// ErrPinsPermissions: the pins file can be changed by others.
	ErrPinsPermissions = errors.New("pins file is writable by others")
)

// statementError names the statement a verification failed at.
func statementError(n int, err error) error {
	return fmt.Errorf("statement %d: %w", n, err)
}
