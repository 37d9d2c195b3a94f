package keys_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mnote/collab/keys"
)

var t0 = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

func newDevice(t testing.TB, account, name string) *keys.Device {
	t.Helper()
	d, err := keys.NewDevice(account, name, t0)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A saved device loads back with the same keys, from a file of mode 0600.
func TestDeviceSaveLoad(t *testing.T) {
	d := newDevice(t, "ada@example.com", "笔记本")
	p := filepath.Join(t.TempDir(), "device.json")
	if err := keys.SaveDevice(p, d); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	if err := keys.SaveDevice(p, newDevice(t, "ada@example.com", "another")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("a second device saved over the first: %v", err)
	}
	got, err := keys.LoadDevice(p)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Public().Equal(d.Public()) {
		t.Fatalf("loaded %+v, saved %+v", got.Public(), d.Public())
	}
	// The loaded key signs what the saved public key verifies.
	if err := d.Public().Verify("test", []byte("x"), got.Sign("test", []byte("x"))); err != nil {
		t.Fatal(err)
	}
}

// A key file others may read is refused before it is parsed; so are
// corrupt files, each with ErrKeyFileCorrupt.
func TestDeviceLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := keys.SaveDevice(good, newDevice(t, "ada", "a")); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	other := newDevice(t, "ada", "b")
	// the other device's id beside this device's keys
	swapped := strings.Replace(string(saved), idOf(t, saved), other.ID(), 1)
	for _, tc := range []struct {
		name    string
		content string
		mode    os.FileMode
		want    error
	}{
		{"group readable", string(saved), 0o640, keys.ErrKeyFilePermissions},
		{"world readable", string(saved), 0o604, keys.ErrKeyFilePermissions},
		{"empty", "", 0o600, keys.ErrKeyFileCorrupt},
		{"not json", "\x00\x01garbage", 0o600, keys.ErrKeyFileCorrupt},
		{"truncated", string(saved[:len(saved)/2]), 0o600, keys.ErrKeyFileCorrupt},
		{"unknown field", strings.Replace(string(saved), "{", `{"extra":1,`, 1), 0o600, keys.ErrKeyFileCorrupt},
		{"other version", strings.Replace(string(saved), `"version": 1`, `"version": 2`, 1), 0o600, keys.ErrKeyFileCorrupt},
		{"id of other keys", swapped, 0o600, keys.ErrKeyFileCorrupt},
		{"short seed", replaceField(t, saved, "sign_seed", "AAAA"), 0o600, keys.ErrKeyFileCorrupt},
		{"short kem key", replaceField(t, saved, "kem_private", "AAAA"), 0o600, keys.ErrKeyFileCorrupt},
		{"two values", string(saved) + "{}", 0o600, keys.ErrKeyFileCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "device.json")
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			_, err := keys.LoadDevice(p)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := keys.LoadDevice(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := keys.LoadDevice(dir); !errors.Is(err, keys.ErrKeyFileCorrupt) && !errors.Is(err, keys.ErrKeyFilePermissions) {
		t.Fatalf("a folder: %v", err)
	}
}

func idOf(t *testing.T, file []byte) string {
	t.Helper()
	_, after, ok := strings.Cut(string(file), `"device_id": "`)
	if !ok {
		t.Fatalf("no device_id in %s", file)
	}
	id, _, _ := strings.Cut(after, `"`)
	return id
}

func replaceField(t *testing.T, file []byte, field, value string) string {
	t.Helper()
	key := `"` + field + `": "`
	before, after, ok := strings.Cut(string(file), key)
	if !ok {
		t.Fatalf("no %s", field)
	}
	_, rest, _ := strings.Cut(after, `"`)
	return before + key + value + `"` + rest
}

// DevicePublic's encoding round-trips and is canonical; a swapped key or
// id, a changed version, trailing bytes are refused.
func TestDevicePublicEncoding(t *testing.T) {
	d := newDevice(t, "ada@example.com", "工作电脑")
	p := d.Public()
	b, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := keys.ParseDevicePublic(b)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(p) {
		t.Fatalf("round trip %+v", got)
	}
	if b2, _ := got.Marshal(); !bytes.Equal(b, b2) {
		t.Fatal("encoding is not canonical")
	}
	other := newDevice(t, "ada@example.com", "x").Public()
	withKEM := p
	withKEM.KEMPub = other.KEMPub
	withSign := p
	withSign.SignPub = other.SignPub
	withID := p
	withID.DeviceID = other.DeviceID
	for _, tc := range []struct {
		name string
		p    keys.DevicePublic
		want error
	}{
		{"KEM key swapped under the id", withKEM, keys.ErrDeviceID},
		{"signing key swapped under the id", withSign, keys.ErrDeviceID},
		{"id swapped", withID, keys.ErrDeviceID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.p.Marshal(); !errors.Is(err, tc.want) {
				t.Fatalf("Marshal: %v", err)
			}
			if err := tc.p.Check(); !errors.Is(err, tc.want) {
				t.Fatalf("Check: %v", err)
			}
		})
	}
	bad := bytes.Clone(b)
	bad[0] = 9
	if _, err := keys.ParseDevicePublic(bad); !errors.Is(err, keys.ErrVersion) {
		t.Fatalf("version: %v", err)
	}
	if _, err := keys.ParseDevicePublic(append(bytes.Clone(b), 0)); !errors.Is(err, keys.ErrEncoding) {
		t.Fatalf("trailing: %v", err)
	}
	if _, err := keys.ParseDevicePublic(b[:len(b)-1]); !errors.Is(err, keys.ErrEncoding) {
		t.Fatalf("short: %v", err)
	}
	// a key byte flipped in the encoding: the id no longer matches
	flip := bytes.Clone(b)
	i := bytes.Index(flip, p.SignPub)
	flip[i] ^= 1
	if _, err := keys.ParseDevicePublic(flip); !errors.Is(err, keys.ErrDeviceID) {
		t.Fatalf("flipped key: %v", err)
	}
	fp := p.Fingerprint()
	if len(fp) != 19 || fp == other.Fingerprint() || fp != got.Fingerprint() {
		t.Fatalf("fingerprints %q %q", fp, other.Fingerprint())
	}
}
