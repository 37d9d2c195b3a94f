package roster_test

import (
	"errors"
	"slices"
	"testing"

	"mnote/collab/keys"
	"mnote/collab/roster"
)

// A device list starts self-signed, grows by paired devices signed by a
// listed one, and shrinks by a removal that calls for a new epoch.
func TestDeviceList(t *testing.T) {
	ada := newAccount(t, "ada", 3)
	if got := len(ada.list.Devices()); got != 3 {
		t.Fatalf("%d devices", got)
	}
	before := ada.list
	// the second device removes the first (stolen laptop)
	ada.push(t, must(ada.list.RemoveDevice(ada.devices[1], ada.devices[0].ID(), at(10))))
	if _, ok := ada.list.Device(ada.devices[0].ID()); ok {
		t.Fatal("removed device still listed")
	}
	if !roster.NeedsNewEpoch(before, ada.list) || !slices.Equal(roster.RemovedDevices(before, ada.list), []string{ada.devices[0].ID()}) {
		t.Fatal("a removal does not call for a new epoch")
	}
	if roster.NeedsNewEpoch(ada.list, ada.list) {
		t.Fatal("no change calls for a new epoch")
	}
	// the removed device can sign nothing more
	if _, err := ada.list.AddDevice(ada.devices[0], must(keys.NewDevice("ada", "x", t0)).Public(), at(11)); !errors.Is(err, roster.ErrUnknownSigner) {
		t.Fatalf("removed device adds one: %v", err)
	}
	// statements it signed while listed stay valid in rosters dated before
	s := newSession(t, ada, "s1")
	if s.r.Owner != "ada" {
		t.Fatal("owner")
	}
	if _, err := ada.list.RemoveDevice(ada.devices[1], ada.devices[1].ID(), at(12)); err != nil {
		t.Fatalf("a device removes itself: %v", err)
	}
	if _, err := ada.list.RemoveDevice(ada.devices[1], ada.devices[0].ID(), at(12)); !errors.Is(err, roster.ErrInvalidOp) {
		t.Fatalf("removed twice: %v", err)
	}
	if _, err := ada.list.AddDevice(ada.devices[1], ada.devices[0].Public(), at(12)); !errors.Is(err, roster.ErrInvalidOp) {
		t.Fatalf("a removed device back: %v", err)
	}
	one := newAccount(t, "solo", 1)
	if _, err := one.list.RemoveDevice(one.devices[0], one.devices[0].ID(), at(1)); !errors.Is(err, roster.ErrInvalidOp) {
		t.Fatalf("last device removed: %v", err)
	}
}

// A removed owner device's statements verify only when dated before its
// removal.
func TestRemovedOwnerDevice(t *testing.T) {
	ada := newAccount(t, "ada", 2)
	s := newSession(t, ada, "s1") // signed by devices[0] at t0
	s.push(t, must(s.r.Add(ada.devices[0], "bob", roster.Editor, at(1))))
	ada.push(t, must(ada.list.RemoveDevice(ada.devices[1], ada.devices[0].ID(), at(5))))
	r := must(roster.Verify(s.chain, ada.list))
	if _, ok := r.Role("bob"); !ok {
		t.Fatal("history signed before the removal was refused")
	}
	if _, err := r.Add(ada.devices[0], "mallory", roster.Editor, at(6)); !errors.Is(err, roster.ErrNotOwnerDevice) {
		t.Fatalf("the removed device adds a member: %v", err)
	}
	// backdating into the window before the removal is refused once the
	// owner signed after it: statements cannot be dated before their predecessor
	r2 := must(roster.Verify(s.with(must(r.Remove(ada.devices[1], "bob", at(6)))), ada.list))
	cp := r2.Checkpoint()
	late := roster.Statement{SessionID: "s1", N: cp.Len, Prev: cp.Head, Op: roster.AddMember, Subject: "mallory",
		Role: roster.Editor, Epoch: 1, Time: at(4), Signer: ada.devices[0].ID()}
	chain := s.with(must(r.Remove(ada.devices[1], "bob", at(6))), must(roster.SignStatementForTest(ada.devices[0], late)))
	if _, err := roster.Verify(chain, ada.list); !errors.Is(err, roster.ErrBrokenChain) {
		t.Fatalf("backdated statement: %v", err)
	}
}

// Device chains refuse the same tampering as rosters, and a device of
// another account or a start not signed by the device it adds.
func TestDeviceListRefuses(t *testing.T) {
	ada := newAccount(t, "ada", 2)
	bob := newAccount(t, "bob", 1)
	stranger := must(keys.NewDevice("ada", "server's", t0))
	cp := ada.list.Checkpoint()
	sign := func(by *keys.Device, s roster.DeviceStatement) []byte {
		return must(roster.SignDeviceStatementForTest(by, s))
	}
	add := func(by *keys.Device, dev keys.DevicePublic) []byte {
		return sign(by, roster.DeviceStatement{Account: "ada", N: cp.Len, Prev: cp.Head, Op: roster.AddDevice,
			DeviceID: dev.DeviceID, Device: dev, Time: at(5), Signer: by.ID()})
	}
	with := func(extra ...[]byte) [][]byte { return append(slices.Clone(ada.chain), extra...) }
	for _, tc := range []struct {
		name  string
		chain [][]byte
		want  error
	}{
		{"server adds its device", with(add(stranger, stranger.Public())), roster.ErrUnknownSigner},
		{"another account's device signs", with(add(bob.devices[0], stranger.Public())), roster.ErrUnknownSigner},
		{"a device of another account added", with(add(ada.devices[0], bob.devices[0].Public())), roster.ErrMalformed},
		{"server starts the chain with its device", [][]byte{sign(stranger, roster.DeviceStatement{Account: "ada", Op: roster.AddDevice,
			DeviceID: ada.devices[0].ID(), Device: ada.devices[0].Public(), Time: t0, Signer: stranger.ID()})}, roster.ErrUnknownSigner},
		{"start not self-signed", [][]byte{sign(ada.devices[0], roster.DeviceStatement{Account: "ada", Op: roster.AddDevice,
			DeviceID: stranger.ID(), Device: stranger.Public(), Time: t0, Signer: ada.devices[0].ID()})}, roster.ErrUnknownSigner},
		{"dropped", [][]byte{ada.chain[1]}, roster.ErrBrokenChain},
		{"reordered", [][]byte{ada.chain[1], ada.chain[0]}, roster.ErrBrokenChain},
		{"other account's chain", with(bob.chain[0]), roster.ErrBrokenChain},
		{"dated before its predecessor", [][]byte{ada.chain[0], sign(ada.devices[0], roster.DeviceStatement{Account: "ada", N: 1,
			Prev: ada.list.Statements()[1].Prev, Op: roster.AddDevice, DeviceID: stranger.ID(), Device: stranger.Public(),
			Time: t0.Add(-1), Signer: ada.devices[0].ID()})}, roster.ErrBrokenChain},
		{"unknown op", with(sign(ada.devices[0], roster.DeviceStatement{Account: "ada", N: cp.Len, Prev: cp.Head, Op: "promote",
			DeviceID: stranger.ID(), Time: at(5), Signer: ada.devices[0].ID()})), roster.ErrUnknownOp},
		{"empty", nil, roster.ErrEmptyChain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := roster.VerifyDevices("ada", tc.chain); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := roster.VerifyDevices("bob", ada.chain); !errors.Is(err, roster.ErrBrokenChain) {
		t.Fatalf("ada's chain as bob's: %v", err)
	}
	old := must(roster.VerifyDevices("ada", ada.chain[:1]))
	if err := old.Extends(cp); !errors.Is(err, roster.ErrRollback) {
		t.Fatalf("rollback: %v", err)
	}
}

// Verify and VerifyDevices never panic on random input, and accept
// no statement that was not signed. (The fuzzing workers make keys of their
// own, so the seeds' signatures are foreign to them: only the prefix made
// in the same process may verify.)
func FuzzVerify(f *testing.F) {
	ada := newAccount(f, "ada", 2)
	s := newSession(f, ada, "s1")
	s.push(f, must(s.r.Add(ada.devices[0], "bob", roster.Editor, at(1))))
	f.Add(s.chain[1], []byte{}, uint8(0))
	f.Add(ada.chain[1], []byte{}, uint8(1))
	f.Add([]byte{1, 'S', 0, 0}, []byte{}, uint8(2))
	f.Add([]byte{1, 'D', 0, 0}, []byte{1, 0xff}, uint8(3))
	f.Fuzz(func(t *testing.T, a, b []byte, mode uint8) {
		tail := [][]byte{a, b}
		if len(b) == 0 {
			tail = tail[:1]
		}
		if mode%2 == 0 {
			r, err := roster.Verify(append([][]byte{s.chain[0]}, tail...), ada.list)
			if err == nil && !(len(tail) == 1 && slices.Equal(a, s.chain[1])) {
				t.Fatalf("verified a roster no owner signed: %+v", r.Members())
			}
		} else {
			_, err := roster.VerifyDevices("ada", append([][]byte{ada.chain[0]}, tail...))
			if err == nil && !(len(tail) == 1 && slices.Equal(a, ada.chain[1])) {
				t.Fatal("verified a device list no device signed")
			}
		}
		_, _ = roster.Verify(tail, ada.list)
		_, _ = roster.VerifyDevices("ada", tail)
		_, _ = roster.ParseStatement(a)
		_, _ = roster.ParseDeviceStatement(a)
	})
}
