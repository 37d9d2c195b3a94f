package keys

import (
	"crypto/hmac"
	"crypto/hpke"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"mnote/collab/internal/wire"
)

// EpochKey is the content key of one session epoch, shared by the devices
// of the session's members.
type EpochKey [32]byte

// NewEpochKey is a fresh random epoch key.
func NewEpochKey() EpochKey {
	var k EpochKey
	rand.Read(k[:]) // never fails (crypto/rand, Go 1.24+)
	return k
}

// Commitment binds the key to one epoch of one session: HMAC-SHA256 under
// the key of a label, the session and the epoch. The owner's statement
// starting the epoch carries it, so every member can check that the key
// unwrapped is the one all the others were given: an owner device that
// handed members different keys for one epoch is caught, not just
// unreadable.
func (k EpochKey) Commitment(sessionID string, epoch uint64) [32]byte {
	w := wire.Writer{}
	w.Str("mnote epoch key commitment v1")
	w.Str(sessionID)
	w.U64(epoch)
	m := hmac.New(sha256.New, k[:])
	m.Write(w.B)
	var out [32]byte
	copy(out[:], m.Sum(nil))
	return out
}

// envelopeVersion is the version byte of wrapped epoch keys and bundles.
const (
	envelopeVersion = 1
	bundleVersion   = 1
)

// Signature contexts and HPKE info labels (see Device.Sign).
const (
	ctxEnvelope = "epoch-envelope v1"
	ctxBundle   = "key-bundle v1"
)

// envelope is a wrapped epoch key as it travels: who wrapped it for whom,
// for which session and epoch (in clear, so a misplaced envelope is named
// precisely), the HPKE encapsulated key and ciphertext, and the wrapping
// device's signature over all of it.
type envelope struct {
	Sender, Recipient, Session string
	Epoch                      uint64
	Enc, CT                    []byte
}

func (e envelope) body() []byte {
	w := wire.Writer{}
	w.U8(envelopeVersion)
	w.Str(e.Sender)
	w.Str(e.Recipient)
	w.Str(e.Session)
	w.U64(e.Epoch)
	w.Bytes(e.Enc)
	w.Bytes(e.CT)
	return w.B
}

// envelopeInfo is the HPKE info (and aad) of an envelope: it binds the
// session, the epoch, the recipient and the sender.
func envelopeInfo(session string, epoch uint64, recipient, sender string) []byte {
	w := wire.Writer{}
	w.Str("mnote epoch key v1")
	w.Str(session)
	w.U64(epoch)
	w.Str(recipient)
	w.Str(sender)
	return w.B
}

// WrapEpochKey seals key to the recipient device for (sessionID, epoch),
// signed by the wrapping device from.
func WrapEpochKey(from *Device, key EpochKey, recipient DevicePublic, sessionID string, epoch uint64) ([]byte, error) {
	if err := recipient.Check(); err != nil {
		return nil, fmt.Errorf("wrap epoch key: %w", err)
	}
	if err := wire.CheckStr("session id", sessionID); err != nil {
		return nil, fmt.Errorf("wrap epoch key: %w", err)
	}
	info := envelopeInfo(sessionID, epoch, recipient.DeviceID, from.ID())
	enc, ct, err := hpkeSeal(recipient, info, key[:])
	if err != nil {
		return nil, fmt.Errorf("wrap epoch key: %w", err)
	}
	body := envelope{Sender: from.ID(), Recipient: recipient.DeviceID, Session: sessionID, Epoch: epoch, Enc: enc, CT: ct}.body()
	w := wire.Writer{B: body}
	w.Bytes(from.Sign(ctxEnvelope, body))
	return w.B, nil
}

// UnwrapEpochKey opens an envelope made by WrapEpochKey for self, checking
// that it was wrapped by sender for (sessionID, epoch). The caller checks
// that sender may hand out keys for the session (an owner device).
func UnwrapEpochKey(self *Device, sender DevicePublic, sessionID string, epoch uint64, blob []byte) (EpochKey, error) {
	var key EpochKey
	if err := sender.Check(); err != nil {
		return key, fmt.Errorf("unwrap epoch key: sender: %w", err)
	}
	r := wire.Reader{B: blob}
	if v := r.U8("version"); r.Err == nil && v != envelopeVersion {
		return key, fmt.Errorf("unwrap epoch key: %w: envelope %d", ErrVersion, v)
	}
	e := envelope{Sender: r.Str("sender"), Recipient: r.Str("recipient"), Session: r.Str("session"), Epoch: r.U64("epoch")}
	e.Enc = r.Bytes("enc")
	e.CT = r.Bytes("ciphertext")
	bodyLen := len(blob) - len(r.B)
	sig := r.Bytes("signature")
	if err := r.End(); err != nil {
		return key, fmt.Errorf("unwrap epoch key: %w", err)
	}
	switch {
	case e.Session != sessionID:
		return key, tampered("unwrap epoch key", ErrWrongSession)
	case e.Epoch != epoch:
		return key, tampered("unwrap epoch key", ErrWrongEpoch)
	case e.Recipient != self.ID():
		return key, tampered("unwrap epoch key", ErrWrongRecipient)
	case e.Sender != sender.DeviceID:
		return key, tampered("unwrap epoch key", ErrWrongAuthor)
	}
	if err := sender.Verify(ctxEnvelope, blob[:bodyLen], sig); err != nil {
		return key, tampered("unwrap epoch key", err)
	}
	pt, err := hpkeOpen(self, e.Enc, envelopeInfo(sessionID, epoch, self.ID(), sender.DeviceID), e.CT)
	if err != nil {
		return key, tampered("unwrap epoch key", err)
	}
	if len(pt) != len(key) {
		return key, tampered("unwrap epoch key", fmt.Errorf("%w: key of %d bytes", ErrEncoding, len(pt)))
	}
	copy(key[:], pt)
	return key, nil
}

// tampered joins ErrTampered to what precisely is wrong.
func tampered(op string, why error) error {
	return fmt.Errorf("%s: %w: %w", op, ErrTampered, why)
}

// hpkeSeal seals pt to the recipient with info as HPKE info and aad.
func hpkeSeal(to DevicePublic, info, pt []byte) (enc, ct []byte, err error) {
	pk, err := kem.NewPublicKey(to.KEMPub)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrEncoding, err)
	}
	enc, s, err := hpke.NewSender(pk, kdf, aead, info)
	if err != nil {
		return nil, nil, err
	}
	ct, err = s.Seal(info, pt)
	return enc, ct, err
}

// hpkeOpen opens what hpkeSeal sealed to self.
func hpkeOpen(self *Device, enc, info, ct []byte) ([]byte, error) {
	r, err := hpke.NewRecipient(enc, self.kem, kdf, aead, info)
	if err != nil {
		return nil, errors.Join(ErrDecrypt, err)
	}
	pt, err := r.Open(info, ct)
	if err != nil {
		return nil, errors.Join(ErrDecrypt, err)
	}
	return pt, nil
}

// EpochKeyRecord is one epoch key in a bundle.
type EpochKeyRecord struct {
	SessionID string
	Epoch     uint64
	Key       EpochKey
}

// maxBundle bounds the records of a bundle.
const maxBundle = 1 << 16

func bundleInfo(recipient, sender string) []byte {
	w := wire.Writer{}
	w.Str("mnote key bundle v1")
	w.Str(recipient)
	w.Str(sender)
	return w.B
}

// SealBundle seals epoch keys for a new device of from's account, signed by
// from. It refuses a recipient of another account.
func SealBundle(from *Device, to DevicePublic, records []EpochKeyRecord) ([]byte, error) {
	if err := to.Check(); err != nil {
		return nil, fmt.Errorf("seal key bundle: %w", err)
	}
	if to.Account != from.pub.Account {
		return nil, fmt.Errorf("seal key bundle: %w: device of account %q", ErrWrongRecipient, to.Account)
	}
	if len(records) > maxBundle {
		return nil, fmt.Errorf("seal key bundle: %w: %d records", ErrEncoding, len(records))
	}
	pw := wire.Writer{}
	pw.U64(uint64(len(records)))
	for _, rec := range records {
		if err := wire.CheckStr("session id", rec.SessionID); err != nil {
			return nil, fmt.Errorf("seal key bundle: %w", err)
		}
		pw.Str(rec.SessionID)
		pw.U64(rec.Epoch)
		pw.Bytes(rec.Key[:])
	}
	enc, ct, err := hpkeSeal(to, bundleInfo(to.DeviceID, from.ID()), pw.B)
	if err != nil {
		return nil, fmt.Errorf("seal key bundle: %w", err)
	}
	w := wire.Writer{}
	w.U8(bundleVersion)
	w.Str(from.ID())
	w.Str(to.DeviceID)
	w.Bytes(enc)
	w.Long(ct)
	w.Bytes(from.Sign(ctxBundle, w.B))
	return w.B, nil
}

// OpenBundle opens a bundle sealed by SealBundle for self by sender, a
// device of the same account.
func OpenBundle(self *Device, sender DevicePublic, blob []byte) ([]EpochKeyRecord, error) {
	if err := sender.Check(); err != nil {
		return nil, fmt.Errorf("open key bundle: sender: %w", err)
	}
	r := wire.Reader{B: blob}
	if v := r.U8("version"); r.Err == nil && v != bundleVersion {
		return nil, fmt.Errorf("open key bundle: %w: bundle %d", ErrVersion, v)
	}
	from, to, enc := r.Str("sender"), r.Str("recipient"), r.Bytes("enc")
	ct := r.Long("ciphertext")
	bodyLen := len(blob) - len(r.B)
	sig := r.Bytes("signature")
	if err := r.End(); err != nil {
		return nil, fmt.Errorf("open key bundle: %w", err)
	}
	switch {
	case to != self.ID():
		return nil, tampered("open key bundle", ErrWrongRecipient)
	case from != sender.DeviceID:
		return nil, tampered("open key bundle", ErrWrongAuthor)
	case sender.Account != self.pub.Account:
		return nil, fmt.Errorf("open key bundle: %w: sender of account %q", ErrWrongAuthor, sender.Account)
	}
	if err := sender.Verify(ctxBundle, blob[:bodyLen], sig); err != nil {
		return nil, tampered("open key bundle", err)
	}
	pt, err := hpkeOpen(self, enc, bundleInfo(self.ID(), sender.DeviceID), ct)
	if err != nil {
		return nil, tampered("open key bundle", err)
	}
	pr := wire.Reader{B: pt}
	count := pr.U64("count")
	if count > maxBundle {
		pr.Fail("too many records")
	}
	var recs []EpochKeyRecord
	for i := uint64(0); i < count && pr.Err == nil; i++ {
		rec := EpochKeyRecord{SessionID: pr.Str("session id"), Epoch: pr.U64("epoch")}
		if k := pr.Bytes("key"); pr.Err == nil {
			if len(k) != len(rec.Key) {
				pr.Fail("key size")
			}
			copy(rec.Key[:], k)
		}
		recs = append(recs, rec)
	}
	if err := pr.End(); err != nil {
		return nil, fmt.Errorf("open key bundle: %w", err)
	}
	return recs, nil
}
