package keys

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/hpke"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mnote/collab/internal/wire"
	"os"
	"strings"
	"time"

	"mnote/internal/atomicfile"
)

// The HPKE suite of envelopes and bundles.
var (
	kem  = hpke.DHKEM(ecdh.X25519())
	kdf  = hpke.HKDFSHA256()
	aead = hpke.ChaCha20Poly1305()
)

// deviceVersion is the version byte of DevicePublic's encoding.
const deviceVersion = 1

// idBytes is how much of the SHA-256 a DeviceID keeps (200 bits).
const idBytes = 25

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// DevicePublic is what others know of a device. Build it with
// Device.Public or ParseDevicePublic, which check that DeviceID belongs to
// the keys.
type DevicePublic struct {
	Account  string    // the account the device says it belongs to (see package roster)
	DeviceID string    // DeviceIDOf(SignPub, KEMPub)
	KEMPub   []byte    // X25519 public key, the HPKE recipient key (32 bytes)
	SignPub  []byte    // Ed25519 public key (32 bytes)
	Name     string    // a display name ("Work laptop")
	Created  time.Time // when the device was made, to the second
}

// DeviceIDOf is the id of the device with these public keys: base32 of the
// first 25 bytes of SHA-256 over a label and both keys (40 characters).
func DeviceIDOf(signPub, kemPub []byte) string {
	h := sha256.New()
	h.Write([]byte("mnote device id v1\x00"))
	h.Write(signPub)
	h.Write(kemPub)
	return idEncoding.EncodeToString(h.Sum(nil)[:idBytes])
}

// Check reports whether p is well formed and its id belongs to its keys.
func (p DevicePublic) Check() error {
	if len(p.KEMPub) != 32 || len(p.SignPub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: device key sizes %d, %d", ErrEncoding, len(p.KEMPub), len(p.SignPub))
	}
	if _, err := kem.NewPublicKey(p.KEMPub); err != nil {
		return fmt.Errorf("%w: device KEM key: %w", ErrEncoding, err)
	}
	for what, v := range map[string]string{"account": p.Account, "device name": p.Name} {
		if err := wire.CheckStr(what, v); err != nil {
			return err
		}
	}
	if p.Account == "" {
		return fmt.Errorf("%w: device without an account", ErrEncoding)
	}
	if p.DeviceID != DeviceIDOf(p.SignPub, p.KEMPub) {
		return fmt.Errorf("%w: %q", ErrDeviceID, p.DeviceID)
	}
	return nil
}

// Marshal is the canonical encoding of p (version 1): version byte, then
// account, device id, KEM key, signing key, name, and the creation time in
// Unix seconds.
func (p DevicePublic) Marshal() ([]byte, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	w := wire.Writer{B: make([]byte, 0, 128+len(p.Account)+len(p.Name))}
	w.U8(deviceVersion)
	w.Str(p.Account)
	w.Str(p.DeviceID)
	w.Bytes(p.KEMPub)
	w.Bytes(p.SignPub)
	w.Str(p.Name)
	w.U64(uint64(p.Created.Unix()))
	return w.B, nil
}

// ParseDevicePublic parses Marshal's encoding and checks the id.
func ParseDevicePublic(b []byte) (DevicePublic, error) {
	r := wire.Reader{B: b}
	if v := r.U8("version"); r.Err == nil && v != deviceVersion {
		return DevicePublic{}, fmt.Errorf("%w: device encoding %d", ErrVersion, v)
	}
	p := DevicePublic{
		Account:  r.Str("account"),
		DeviceID: r.Str("device id"),
		KEMPub:   bytes.Clone(r.Bytes("KEM key")),
		SignPub:  bytes.Clone(r.Bytes("signing key")),
		Name:     r.Str("name"),
		Created:  time.Unix(int64(r.U64("created")), 0).UTC(),
	}
	if err := r.End(); err != nil {
		return DevicePublic{}, err
	}
	if err := p.Check(); err != nil {
		return DevicePublic{}, err
	}
	return p, nil
}

// Fingerprint is a short fingerprint of the device's keys, to show next to
// its name: 16 upper-case hex digits of SHA-256 over both keys, in groups of
// 4 ("3FA2 91C0 7D4E 0B18").
func (p DevicePublic) Fingerprint() string {
	h := sha256.New()
	h.Write([]byte("mnote device fingerprint v1\x00"))
	h.Write(p.SignPub)
	h.Write(p.KEMPub)
	s := strings.ToUpper(hex.EncodeToString(h.Sum(nil)[:8]))
	return s[0:4] + " " + s[4:8] + " " + s[8:12] + " " + s[12:16]
}

// Equal reports whether p and q are the same device with the same keys.
func (p DevicePublic) Equal(q DevicePublic) bool {
	return p.Account == q.Account && p.DeviceID == q.DeviceID && p.Name == q.Name &&
		bytes.Equal(p.KEMPub, q.KEMPub) && bytes.Equal(p.SignPub, q.SignPub) &&
		p.Created.Unix() == q.Created.Unix()
}

// Verify checks an Ed25519 signature by the device over msg with the
// domain label context.
func (p DevicePublic) Verify(context string, msg, sig []byte) error {
	if len(p.SignPub) != ed25519.PublicKeySize || !ed25519.Verify(p.SignPub, signed(context, msg), sig) {
		return ErrBadSignature
	}
	return nil
}

// Device is a machine's private identity. It is made once (NewDevice),
// saved with SaveDevice, and never leaves the machine.
type Device struct {
	pub  DevicePublic
	kem  hpke.PrivateKey
	ecdh *ecdh.PrivateKey
	sign ed25519.PrivateKey
}

// NewDevice makes the keys of a new machine of account.
func NewDevice(account, name string, now time.Time) (*Device, error) {
	x, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("new device: %w", err)
	}
	_, sk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("new device: %w", err)
	}
	return newDevice(account, name, now, x, sk)
}

func newDevice(account, name string, created time.Time, x *ecdh.PrivateKey, sk ed25519.PrivateKey) (*Device, error) {
	k, err := hpke.NewDHKEMPrivateKey(x)
	if err != nil {
		return nil, fmt.Errorf("device key: %w", err)
	}
	signPub := sk.Public().(ed25519.PublicKey)
	kemPub := x.PublicKey().Bytes()
	d := &Device{kem: k, ecdh: x, sign: sk, pub: DevicePublic{
		Account:  account,
		DeviceID: DeviceIDOf(signPub, kemPub),
		KEMPub:   kemPub,
		SignPub:  bytes.Clone(signPub),
		Name:     name,
		Created:  time.Unix(created.Unix(), 0).UTC(),
	}}
	if err := d.pub.Check(); err != nil {
		return nil, err
	}
	return d, nil
}

// Public is the device's public part.
func (d *Device) Public() DevicePublic {
	p := d.pub
	p.KEMPub = bytes.Clone(p.KEMPub)
	p.SignPub = bytes.Clone(p.SignPub)
	return p
}

// ID is the device's id.
func (d *Device) ID() string { return d.pub.DeviceID }

// Sign signs msg with the device's Ed25519 key under the domain label
// context (so a signature made for one purpose never verifies for another).
func (d *Device) Sign(context string, msg []byte) []byte {
	return ed25519.Sign(d.sign, signed(context, msg))
}

// signed is what is signed: "mnote/" context, a zero byte, then msg.
func signed(context string, msg []byte) []byte {
	b := make([]byte, 0, len("mnote/")+len(context)+1+len(msg))
	b = append(b, "mnote/"...)
	b = append(b, context...)
	b = append(b, 0)
	return append(b, msg...)
}

// keyFile is the JSON of a device key file.
type keyFile struct {
	Version    int       `json:"version"`
	Account    string    `json:"account"`
	Name       string    `json:"name"`
	Created    time.Time `json:"created"`
	KEMPrivate []byte    `json:"kem_private"` // X25519 scalar
	SignSeed   []byte    `json:"sign_seed"`   // Ed25519 seed
	DeviceID   string    `json:"device_id"`   // checked on load
}

// maxKeyFile bounds what LoadDevice reads.
const maxKeyFile = 64 << 10

// SaveDevice writes d to path, mode 0600, atomically. It never replaces
// an existing file (fs.ErrExist): a device key that is overwritten takes
// with it every epoch key wrapped for the device.
func SaveDevice(path string, d *Device) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("save device key %s: %w", path, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("save device key: %w", err)
	}
	b, err := json.MarshalIndent(keyFile{
		Version: 1, Account: d.pub.Account, Name: d.pub.Name, Created: d.pub.Created,
		KEMPrivate: d.ecdh.Bytes(), SignSeed: d.sign.Seed(), DeviceID: d.pub.DeviceID,
	}, "", "  ")
	if err != nil {
		return fmt.Errorf("save device key: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save device key: %w", err)
	}
	return nil
}

// LoadDevice reads a key file written by SaveDevice. A file that group or
// others may read or write is refused (ErrKeyFilePermissions) before it is
// read; content that does not parse, or keys that do not give the id
// recorded beside them, are ErrKeyFileCorrupt.
func LoadDevice(path string) (*Device, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load device key: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load device key: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("load device key %s: %w: not a regular file", path, ErrKeyFileCorrupt)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("load device key %s: %w: mode %04o, want 0600", path, ErrKeyFilePermissions, perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("load device key: %w", err)
	}
	d, err := parseKeyFile(b)
	if err != nil {
		return nil, fmt.Errorf("load device key %s: %w", path, err)
	}
	return d, nil
}

func parseKeyFile(b []byte) (*Device, error) {
	if len(b) > maxKeyFile {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrKeyFileCorrupt, maxKeyFile)
	}
	var kf keyFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&kf); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyFileCorrupt, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the key", ErrKeyFileCorrupt)
	}
	if kf.Version != 1 {
		return nil, fmt.Errorf("%w: version %d", ErrKeyFileCorrupt, kf.Version)
	}
	if len(kf.SignSeed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%w: signing key of %d bytes", ErrKeyFileCorrupt, len(kf.SignSeed))
	}
	x, err := ecdh.X25519().NewPrivateKey(kf.KEMPrivate)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyFileCorrupt, err)
	}
	d, err := newDevice(kf.Account, kf.Name, kf.Created, x, ed25519.NewKeyFromSeed(kf.SignSeed))
	if err != nil {
		return nil, errors.Join(ErrKeyFileCorrupt, err)
	}
	if d.pub.DeviceID != kf.DeviceID {
		return nil, fmt.Errorf("%w: keys give device %s, file says %s", ErrKeyFileCorrupt, d.pub.DeviceID, kf.DeviceID)
	}
	return d, nil
}
