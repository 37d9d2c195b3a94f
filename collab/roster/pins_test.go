package roster_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"mnote/collab/keys"
	"mnote/collab/roster"
)

// First use pins; the same devices pass; a changed set blocks sending,
// survives a restart, and is lifted by Accept.
func TestPins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins.json")
	pins := must(roster.OpenPins(path))
	bob := newAccount(t, "bob", 2)
	if err := pins.Check("bob", bob.list.Devices()); err != nil {
		t.Fatalf("first use: %v", err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("pins file: %v %v", st, err)
	}
	if err := pins.Check("bob", bob.list.Devices()); err != nil {
		t.Fatalf("same devices: %v", err)
	}
	if err := pins.Blocked("bob"); err != nil {
		t.Fatalf("blocked: %v", err)
	}
	if s := pins.Status("bob"); !s.Pinned || s.Verified || s.Changed || s.Fingerprint != roster.SetFingerprint(bob.list.Devices()) {
		t.Fatalf("status %+v", s)
	}
	if err := pins.MarkVerified("bob", bob.list.Devices()); err != nil {
		t.Fatal(err)
	}

	// the server shows a device of its own for bob
	server := must(keys.NewDevice("bob", "server's", t0)).Public()
	shown := append(bob.list.Devices()[:1], server)
	err = pins.Check("bob", shown)
	var kc *roster.KeyChangedError
	if !errors.As(err, &kc) || !errors.Is(err, roster.ErrKeyChanged) {
		t.Fatalf("changed keys: %v", err)
	}
	if kc.Account != "bob" || kc.Old == kc.New || len(kc.Added) != 1 || kc.Added[0] != server.DeviceID || len(kc.Removed) != 1 {
		t.Fatalf("KeyChangedError %+v", kc)
	}
	if kc.Old != roster.SetFingerprint(bob.list.Devices()) || kc.New != roster.SetFingerprint(shown) {
		t.Fatal("fingerprints in the error")
	}
	// blocked until accepted, across a restart
	pins = must(roster.OpenPins(path))
	if err := pins.Blocked("bob"); !errors.Is(err, roster.ErrKeyChanged) {
		t.Fatalf("after restart: %v", err)
	}
	if s := pins.Status("bob"); !s.Changed || !s.Verified {
		t.Fatalf("status %+v", s)
	}
	if err := pins.MarkVerified("bob", shown); !errors.Is(err, roster.ErrKeyChanged) {
		t.Fatalf("verified an unaccepted set: %v", err)
	}
	// seeing the pinned set again lifts the block
	if err := pins.Check("bob", bob.list.Devices()); err != nil || pins.Blocked("bob") != nil {
		t.Fatalf("back to the pinned set: %v", err)
	}
	_ = pins.Check("bob", shown)
	if err := pins.Accept("bob", shown); err != nil {
		t.Fatal(err)
	}
	if err := pins.Blocked("bob"); err != nil {
		t.Fatalf("after accept: %v", err)
	}
	if s := pins.Status("bob"); s.Verified || s.Changed {
		t.Fatalf("accepted set marked verified: %+v", s)
	}
	if err := pins.Check("bob", nil); !errors.Is(err, roster.ErrNoDeviceList) {
		t.Fatalf("no devices: %v", err)
	}
	if got := pins.Accounts(); len(got) != 1 || got[0] != "bob" {
		t.Fatalf("accounts %v", got)
	}
}

// A pins file others may write, or that does not parse, is refused.
func TestPinsFileRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		mode    os.FileMode
		want    error
	}{
		{"group writable", `{"version":1,"accounts":{}}`, 0o620, roster.ErrPinsPermissions},
		{"world writable", `{"version":1,"accounts":{}}`, 0o602, roster.ErrPinsPermissions},
		{"garbage", "{{{", 0o600, roster.ErrPinsCorrupt},
		{"unknown field", `{"version":1,"accounts":{},"x":1}`, 0o600, roster.ErrPinsCorrupt},
		{"other version", `{"version":2,"accounts":{}}`, 0o600, roster.ErrPinsCorrupt},
		{"account without devices", `{"version":1,"accounts":{"bob":{"devices":[],"verified":true}}}`, 0o600, roster.ErrPinsCorrupt},
		{"two documents", `{"version":1,"accounts":{}} {}`, 0o600, roster.ErrPinsCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "pins.json")
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			if _, err := roster.OpenPins(p); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	// a readable, well-formed file is fine
	p := filepath.Join(t.TempDir(), "pins.json")
	if err := os.WriteFile(p, []byte(`{"version":1,"accounts":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := roster.OpenPins(p); err != nil {
		t.Fatal(err)
	}
}
