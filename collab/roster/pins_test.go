package roster_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"mnote/collab/keys"
	"mnote/collab/roster"
)

// First use pins; the same list passes, and so does a list the account's
// own devices extended (a device signed in, one signed out): nothing to
// ask. A list that does not continue the pinned one — the server's own
// chain for the account, or an old state of it — blocks sending, survives
// a restart, and is lifted by Accept.
func TestPins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins.json")
	pins := must(roster.OpenPins(path))
	bob := newAccount(t, "bob", 2)
	if err := pins.Check(bob.list); err != nil {
		t.Fatalf("first use: %v", err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("pins file: %v %v", st, err)
	}
	if err := pins.Check(bob.list); err != nil {
		t.Fatalf("same devices: %v", err)
	}
	if err := pins.Blocked("bob"); err != nil {
		t.Fatalf("blocked: %v", err)
	}
	if s := pins.Status("bob"); !s.Pinned || s.Verified || s.Changed || s.Fingerprint != roster.SetFingerprint(bob.list.Devices()) {
		t.Fatalf("status %+v", s)
	}
	if err := pins.MarkVerified(bob.list); err != nil {
		t.Fatal(err)
	}
	old := bob.list

	// bob's laptop signs in a third device, then signs out the second:
	// his own devices did it, the comparison made still counts
	third := must(keys.NewDevice("bob", "bob's phone", t0))
	bob.push(t, must(bob.list.AddDevice(bob.devices[0], third.Public(), at(10))))
	bob.push(t, must(bob.list.RemoveDevice(bob.devices[0], bob.devices[1].ID(), at(11))))
	if err := pins.Check(bob.list); err != nil {
		t.Fatalf("a list bob's devices extended: %v", err)
	}
	if s := pins.Status("bob"); !s.Verified || s.Changed || s.Fingerprint != roster.SetFingerprint(bob.list.Devices()) {
		t.Fatalf("status after bob's own changes %+v", s)
	}

	// the server shows a device list of its own making for bob (a chain
	// it started itself), then the old state of bob's list
	server := must(keys.NewDevice("bob", "server's", t0))
	forged := must(roster.VerifyDevices("bob", [][]byte{must(roster.NewDeviceList(server, t0))}))
	for name, shown := range map[string]*roster.DeviceList{"forged": forged, "rolled back": old} {
		err = pins.Check(shown)
		var kc *roster.KeyChangedError
		if !errors.As(err, &kc) || !errors.Is(err, roster.ErrKeyChanged) {
			t.Fatalf("%s list: %v", name, err)
		}
		if kc.Account != "bob" || kc.Old != roster.SetFingerprint(bob.list.Devices()) || kc.New != roster.SetFingerprint(shown.Devices()) {
			t.Fatalf("%s: KeyChangedError %+v", name, kc)
		}
		if name == "forged" && (len(kc.Added) != 1 || kc.Added[0] != server.ID() || len(kc.Removed) != 2) {
			t.Fatalf("forged: KeyChangedError %+v", kc)
		}
		if err := pins.Blocked("bob"); !errors.Is(err, roster.ErrKeyChanged) {
			t.Fatalf("%s: not blocked: %v", name, err)
		}
		if err := pins.MarkVerified(shown); !errors.Is(err, roster.ErrKeyChanged) {
			t.Fatalf("%s: verified an unaccepted list: %v", name, err)
		}
		// seeing the pinned list again lifts the block
		if err := pins.Check(bob.list); err != nil || pins.Blocked("bob") != nil {
			t.Fatalf("back to the pinned list: %v", err)
		}
	}
	// blocked until accepted, across a restart
	_ = pins.Check(forged)
	pins = must(roster.OpenPins(path))
	if err := pins.Blocked("bob"); !errors.Is(err, roster.ErrKeyChanged) {
		t.Fatalf("after restart: %v", err)
	}
	if s := pins.Status("bob"); !s.Changed || !s.Verified {
		t.Fatalf("status %+v", s)
	}
	if err := pins.Accept(forged); err != nil {
		t.Fatal(err)
	}
	if err := pins.Blocked("bob"); err != nil {
		t.Fatalf("after accept: %v", err)
	}
	if s := pins.Status("bob"); s.Verified || s.Changed {
		t.Fatalf("accepted list marked verified: %+v", s)
	}
	// bob's real list is now the changed one
	if err := pins.Check(bob.list); !errors.Is(err, roster.ErrKeyChanged) {
		t.Fatalf("the list before the accepted one: %v", err)
	}
	if err := pins.Check(nil); !errors.Is(err, roster.ErrNoDeviceList) {
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
		{"group writable", `{"version":2,"accounts":{}}`, 0o620, roster.ErrPinsPermissions},
		{"world writable", `{"version":2,"accounts":{}}`, 0o602, roster.ErrPinsPermissions},
		{"garbage", "{{{", 0o600, roster.ErrPinsCorrupt},
		{"unknown field", `{"version":2,"accounts":{},"x":1}`, 0o600, roster.ErrPinsCorrupt},
		{"other version", `{"version":1,"accounts":{}}`, 0o600, roster.ErrPinsCorrupt},
		{"account without devices", `{"version":2,"accounts":{"bob":{"devices":[],"chain":{"len":1,"head":"00"},"verified":true}}}`, 0o600, roster.ErrPinsCorrupt},
		{"two documents", `{"version":2,"accounts":{}} {}`, 0o600, roster.ErrPinsCorrupt},
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
	// an account whose chain is not a checkpoint
	p0 := filepath.Join(t.TempDir(), "pins.json")
	if err := os.WriteFile(p0, []byte(`{"version":2,"accounts":{"bob":{"devices":["X"],"chain":{"len":0,"head":""},"verified":false}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := roster.OpenPins(p0); !errors.Is(err, roster.ErrPinsCorrupt) {
		t.Fatalf("chainless pin: %v", err)
	}
	// a readable, well-formed file is fine
	p := filepath.Join(t.TempDir(), "pins.json")
	if err := os.WriteFile(p, []byte(`{"version":2,"accounts":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := roster.OpenPins(p); err != nil {
		t.Fatal(err)
	}
}
