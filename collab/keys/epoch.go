package keys

import (
	"crypto/hpke"
	"crypto/rand"
	"errors"
	"fmt"
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
	w := writer{}
	w.u8(envelopeVersion)
	w.str(e.Sender)
	w.str(e.Recipient)
	w.str(e.Session)
	w.u64(e.Epoch)
	w.bytes(e.Enc)
	w.bytes(e.CT)
	return w.b
}

// envelopeInfo is the HPKE info (and aad) of an envelope: it binds the
// session, the epoch, the recipient and the sender.
func envelopeInfo(session string, epoch uint64, recipient, sender string) []byte {
	w := writer{}
	w.str("mnote epoch key v1")
	w.str(session)
	w.u64(epoch)
	w.str(recipient)
	w.str(sender)
	return w.b
}

// WrapEpochKey seals key to the recipient device for (sessionID, epoch),
// signed by the wrapping device from.
func WrapEpochKey(from *Device, key EpochKey, recipient DevicePublic, sessionID string, epoch uint64) ([]byte, error) {
	if err := recipient.Check(); err != nil {
		return nil, fmt.Errorf("wrap epoch key: %w", err)
	}
	if err := checkStr("session id", sessionID); err != nil {
		return nil, fmt.Errorf("wrap epoch key: %w", err)
	}
	info := envelopeInfo(sessionID, epoch, recipient.DeviceID, from.ID())
	enc, ct, err := hpkeSeal(recipient, info, key[:])
	if err != nil {
		return nil, fmt.Errorf("wrap epoch key: %w", err)
	}
	body := envelope{Sender: from.ID(), Recipient: recipient.DeviceID, Session: sessionID, Epoch: epoch, Enc: enc, CT: ct}.body()
	w := writer{b: body}
	w.bytes(from.Sign(ctxEnvelope, body))
	return w.b, nil
}

// UnwrapEpochKey opens an envelope made by WrapEpochKey for self, checking
// that it was wrapped by sender for (sessionID, epoch). The caller checks
// that sender may hand out keys for the session (an owner device).
func UnwrapEpochKey(self *Device, sender DevicePublic, sessionID string, epoch uint64, blob []byte) (EpochKey, error) {
	var key EpochKey
	r := reader{b: blob}
	if v := r.u8("version"); r.err == nil && v != envelopeVersion {
		return key, fmt.Errorf("unwrap epoch key: %w: envelope %d", ErrVersion, v)
	}
	e := envelope{Sender: r.str("sender"), Recipient: r.str("recipient"), Session: r.str("session"), Epoch: r.u64("epoch")}
	e.Enc = r.bytes("enc")
	e.CT = r.bytes("ciphertext")
	bodyLen := len(blob) - len(r.b)
	sig := r.bytes("signature")
	if err := r.end(); err != nil {
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
	w := writer{}
	w.str("mnote key bundle v1")
	w.str(recipient)
	w.str(sender)
	return w.b
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
	pw := writer{}
	pw.u64(uint64(len(records)))
	for _, rec := range records {
		if err := checkStr("session id", rec.SessionID); err != nil {
			return nil, fmt.Errorf("seal key bundle: %w", err)
		}
		pw.str(rec.SessionID)
		pw.u64(rec.Epoch)
		pw.bytes(rec.Key[:])
	}
	enc, ct, err := hpkeSeal(to, bundleInfo(to.DeviceID, from.ID()), pw.b)
	if err != nil {
		return nil, fmt.Errorf("seal key bundle: %w", err)
	}
	w := writer{}
	w.u8(bundleVersion)
	w.str(from.ID())
	w.str(to.DeviceID)
	w.bytes(enc)
	w.u64(uint64(len(ct)))
	w.b = append(w.b, ct...)
	w.bytes(from.Sign(ctxBundle, w.b))
	return w.b, nil
}

// OpenBundle opens a bundle sealed by SealBundle for self by sender, a
// device of the same account.
func OpenBundle(self *Device, sender DevicePublic, blob []byte) ([]EpochKeyRecord, error) {
	r := reader{b: blob}
	if v := r.u8("version"); r.err == nil && v != bundleVersion {
		return nil, fmt.Errorf("open key bundle: %w: bundle %d", ErrVersion, v)
	}
	from, to, enc := r.str("sender"), r.str("recipient"), r.bytes("enc")
	n := r.u64("ciphertext length")
	if r.err == nil && n > uint64(len(r.b)) {
		r.fail("short ciphertext")
	}
	ct := r.take(int(min(n, uint64(len(r.b)))), "ciphertext")
	bodyLen := len(blob) - len(r.b)
	sig := r.bytes("signature")
	if err := r.end(); err != nil {
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
	pr := reader{b: pt}
	count := pr.u64("count")
	if count > maxBundle {
		pr.fail("too many records")
	}
	var recs []EpochKeyRecord
	for i := uint64(0); i < count && pr.err == nil; i++ {
		rec := EpochKeyRecord{SessionID: pr.str("session id"), Epoch: pr.u64("epoch")}
		if k := pr.bytes("key"); pr.err == nil {
			if len(k) != len(rec.Key) {
				pr.fail("key size")
			}
			copy(rec.Key[:], k)
		}
		recs = append(recs, rec)
	}
	if err := pr.end(); err != nil {
		return nil, fmt.Errorf("open key bundle: %w", err)
	}
	return recs, nil
}
