package keys

import (
	"errors"

	"mnote/collab/internal/wire"
)

// The sentinel errors of this package. An error returned here wraps one of
// them (sometimes two: ErrTampered and what exactly was tampered with).
var (
	// ErrKeyFilePermissions: the device key file can be read by others.
	ErrKeyFilePermissions = errors.New("device key file is readable by others")
	// ErrKeyFileCorrupt: the device key file cannot be parsed or its keys
	// do not belong together.
	ErrKeyFileCorrupt = errors.New("device key file is corrupt")
	// ErrEncoding: a public key, header or envelope does not parse.
	ErrEncoding = wire.ErrEncoding
	// ErrVersion: an encoding of a version this build does not know.
	ErrVersion = errors.New("unknown encoding version")
	// ErrDeviceID: a device id that is not derived from its keys.
	ErrDeviceID = errors.New("device id does not match its keys")
	// ErrTampered: a sealed entry, envelope or bundle was changed, moved or
	// replayed; one of the more precise errors below is joined to it.
	ErrTampered = errors.New("sealed data was tampered with")
	// ErrWrongSession: made for another session.
	ErrWrongSession = errors.New("made for another session")
	// ErrWrongEpoch: made for another epoch.
	ErrWrongEpoch = errors.New("made for another epoch")
	// ErrWrongSeq: an entry at another sequence number (replayed or reordered).
	ErrWrongSeq = errors.New("entry at another sequence number")
	// ErrWrongKind: an entry of another kind.
	ErrWrongKind = errors.New("entry of another kind")
	// ErrWrongAuthor: written or wrapped by another device than expected.
	ErrWrongAuthor = errors.New("made by another device")
	// ErrWrongRecipient: wrapped for another device.
	ErrWrongRecipient = errors.New("made for another device")
	// ErrBadSignature: the signature does not verify.
	ErrBadSignature = errors.New("signature does not verify")
	// ErrDecrypt: authenticated decryption failed (wrong key or changed bytes).
	ErrDecrypt = errors.New("cannot decrypt")
	// ErrPairState: a pairing message out of turn or in a finished exchange.
	ErrPairState = errors.New("pairing message out of turn")
	// ErrPairCommitment: the joining device's key does not match its commitment.
	ErrPairCommitment = errors.New("pairing key does not match its commitment")
	// ErrPairMAC: the device sent after the comparison is not the one that
	// took part in it.
	ErrPairMAC = errors.New("paired device does not match the exchange")
)
