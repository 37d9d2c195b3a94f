package keys

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"mnote/collab/internal/wire"
)

// Header is what the control plane sees of an entry and what the sealing
// binds: the entry belongs to this session and epoch, at this sequence
// number, written by this device, of this kind ("prompt", "answer",
// "comment", …; the caller's vocabulary).
type Header struct {
	SessionID    string
	Epoch        uint64
	Seq          uint64
	AuthorDevice string
	Kind         string
}

const (
	headerVersion = 1
	entryVersion  = 1
	ctxEntry      = "entry v1"
	// MaxEntry is the largest plaintext Seal takes.
	MaxEntry = 16 << 20
	// minPadded is the smallest padded plaintext.
	minPadded = 256
)

// Marshal is the canonical encoding of h (version 1), the AEAD's
// associated data.
func (h Header) Marshal() ([]byte, error) {
	for what, v := range map[string]string{"session id": h.SessionID, "author device": h.AuthorDevice, "kind": h.Kind} {
		if err := wire.CheckStr(what, v); err != nil {
			return nil, err
		}
	}
	w := wire.Writer{}
	w.U8(headerVersion)
	w.Str(h.SessionID)
	w.U64(h.Epoch)
	w.U64(h.Seq)
	w.Str(h.AuthorDevice)
	w.Str(h.Kind)
	return w.B, nil
}

// ParseHeader parses Header.Marshal's encoding.
func ParseHeader(b []byte) (Header, error) {
	r := wire.Reader{B: b}
	if v := r.U8("version"); r.Err == nil && v != headerVersion {
		return Header{}, fmt.Errorf("%w: header %d", ErrVersion, v)
	}
	h := Header{SessionID: r.Str("session id"), Epoch: r.U64("epoch"), Seq: r.U64("seq"), AuthorDevice: r.Str("author device"), Kind: r.Str("kind")}
	return h, r.End()
}

// EntryHeader is the header a sealed blob carries, unauthenticated: for
// routing, or to learn the author before calling Open. Open checks it.
func EntryHeader(blob []byte) (Header, error) {
	e, err := parseEntry(blob)
	if err != nil {
		return Header{}, err
	}
	return ParseHeader(e.header)
}

// entryAEAD is AES-256-GCM with random nonces under the key of one
// (session, epoch), derived from the epoch key with HKDF-SHA256.
func entryAEAD(key EpochKey, session string, epoch uint64) (cipher.AEAD, error) {
	w := wire.Writer{}
	w.Str("mnote entry key v1")
	w.Str(session)
	w.U64(epoch)
	k, err := hkdf.Key(sha256.New, key[:], nil, string(w.B), 32)
	if err != nil {
		return nil, err
	}
	b, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCMWithRandomNonce(b)
}

// Seal seals plaintext as the entry h, signed by author (whose id must be
// h.AuthorDevice). The blob is: version, the header, the ciphertext of the
// padded plaintext, and the author's signature over all of that.
func Seal(key EpochKey, h Header, plaintext []byte, author *Device) ([]byte, error) {
	if h.AuthorDevice != author.ID() {
		return nil, fmt.Errorf("seal entry: %w: header names %q, signer is %q", ErrWrongAuthor, h.AuthorDevice, author.ID())
	}
	if len(plaintext) > MaxEntry {
		return nil, fmt.Errorf("seal entry: %w: %d bytes, at most %d", ErrEncoding, len(plaintext), MaxEntry)
	}
	hb, err := h.Marshal()
	if err != nil {
		return nil, fmt.Errorf("seal entry: %w", err)
	}
	a, err := entryAEAD(key, h.SessionID, h.Epoch)
	if err != nil {
		return nil, fmt.Errorf("seal entry: %w", err)
	}
	ct := a.Seal(nil, nil, pad(plaintext), hb)
	w := wire.Writer{B: make([]byte, 0, 1+2+len(hb)+8+len(ct)+2+64)}
	w.U8(entryVersion)
	w.Bytes(hb)
	w.Long(ct)
	w.Bytes(author.Sign(ctxEntry, w.B))
	return w.B, nil
}

// sealedEntry is a parsed blob.
type sealedEntry struct {
	header, ct, body, sig []byte
}

func parseEntry(blob []byte) (sealedEntry, error) {
	r := wire.Reader{B: blob}
	if v := r.U8("version"); r.Err == nil && v != entryVersion {
		return sealedEntry{}, fmt.Errorf("%w: entry %d", ErrVersion, v)
	}
	var e sealedEntry
	e.header = r.Bytes("header")
	e.ct = r.Long("ciphertext")
	e.body = blob[:len(blob)-len(r.B)]
	e.sig = r.Bytes("signature")
	return e, r.End()
}

// Open opens a blob sealed by Seal, expected to be the entry want, written
// by the device author. It fails with ErrTampered joined with what is
// wrong when the blob was made for another session (ErrWrongSession),
// epoch (ErrWrongEpoch), sequence number (ErrWrongSeq: replayed or
// reordered), kind (ErrWrongKind) or author (ErrWrongAuthor), when the
// header or ciphertext was changed (ErrBadSignature), or when it does not
// decrypt under key (ErrDecrypt: another epoch's key).
func Open(key EpochKey, want Header, blob []byte, author DevicePublic) ([]byte, error) {
	if err := author.Check(); err != nil {
		return nil, fmt.Errorf("open entry: author: %w", err)
	}
	e, err := parseEntry(blob)
	if err != nil {
		return nil, fmt.Errorf("open entry: %w", err)
	}
	got, err := ParseHeader(e.header)
	if err != nil {
		return nil, fmt.Errorf("open entry: %w", err)
	}
	switch {
	case got.SessionID != want.SessionID:
		return nil, tampered("open entry", ErrWrongSession)
	case got.Epoch != want.Epoch:
		return nil, tampered("open entry", ErrWrongEpoch)
	case got.Seq != want.Seq:
		return nil, tampered("open entry", ErrWrongSeq)
	case got.Kind != want.Kind:
		return nil, tampered("open entry", ErrWrongKind)
	case got.AuthorDevice != want.AuthorDevice, want.AuthorDevice != author.DeviceID:
		return nil, tampered("open entry", ErrWrongAuthor)
	}
	if err := author.Verify(ctxEntry, e.body, e.sig); err != nil {
		return nil, tampered("open entry", err)
	}
	a, err := entryAEAD(key, want.SessionID, want.Epoch)
	if err != nil {
		return nil, fmt.Errorf("open entry: %w", err)
	}
	padded, err := a.Open(nil, nil, e.ct, e.header)
	if err != nil {
		return nil, tampered("open entry", errors.Join(ErrDecrypt, err))
	}
	pt, err := unpad(padded)
	if err != nil {
		return nil, fmt.Errorf("open entry: %w", err)
	}
	return pt, nil
}

// PaddedSize is the size a plaintext of n bytes is padded to before
// sealing: n plus a 4-byte length, at least 256, rounded up by Padmé
// (Nikitin et al., "Reducing Metadata Leakage from Encrypted Files and
// Communication with PURBs", 2019): keep the top ⌊log2 ⌊log2 L⌋⌋+1 bits of
// the length, round the rest up. The overhead is at most about 12%.
func PaddedSize(n int) int {
	l := n + 4
	if l <= minPadded {
		return minPadded
	}
	e := bits.Len(uint(l)) - 1     // ⌊log2 L⌋
	s := bits.Len(uint(e))         // ⌊log2 E⌋ + 1
	mask := (1 << max(e-s, 0)) - 1 // the low bits to round away
	return (l + mask) &^ mask
}

func pad(p []byte) []byte {
	out := make([]byte, PaddedSize(len(p)))
	binary.BigEndian.PutUint32(out, uint32(len(p)))
	copy(out[4:], p)
	return out
}

func unpad(b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: padded entry of %d bytes", ErrEncoding, len(b))
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) || PaddedSize(int(n)) != len(b) {
		return nil, fmt.Errorf("%w: entry length %d in %d padded bytes", ErrEncoding, n, len(b))
	}
	rest := b[4+n:]
	if subtle.ConstantTimeCompare(rest, make([]byte, len(rest))) != 1 {
		return nil, fmt.Errorf("%w: padding is not zero", ErrEncoding)
	}
	return b[4 : 4+n], nil
}
