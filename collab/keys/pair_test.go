package keys_test

import (
	"errors"
	"regexp"
	"testing"

	"mnote/collab/keys"
)

// pair runs the exchange between an initiator and a joiner, message by
// message; it returns the strings both show.
func pair(t *testing.T, a *keys.PairInitiator, b *keys.PairJoiner) (sasA, sasB string) {
	t.Helper()
	commit, err := b.Start()
	if err != nil {
		t.Fatal(err)
	}
	hello, err := a.HandleCommit(commit)
	if err != nil {
		t.Fatal(err)
	}
	reveal, sasB, err := b.HandleHello(hello)
	if err != nil {
		t.Fatal(err)
	}
	sasA, err = a.HandleReveal(reveal)
	if err != nil {
		t.Fatal(err)
	}
	return sasA, sasB
}

// Two honest machines show the same 12 digits and learn each other's device.
func TestPairing(t *testing.T) {
	laptop := newDevice(t, "ada", "laptop")
	desktop := newDevice(t, "ada", "desktop")
	a, _ := keys.NewPairInitiator(laptop)
	b, _ := keys.NewPairJoiner(desktop)
	sasA, sasB := pair(t, a, b)
	if sasA != sasB {
		t.Fatalf("%q != %q", sasA, sasB)
	}
	if !regexp.MustCompile(`^\d{4} \d{4} \d{4}$`).MatchString(sasA) {
		t.Fatalf("sas %q", sasA)
	}
	ca, err := a.Confirm()
	if err != nil {
		t.Fatal(err)
	}
	cb, err := b.Confirm()
	if err != nil {
		t.Fatal(err)
	}
	gotB, err := a.Finish(cb)
	if err != nil || !gotB.Equal(desktop.Public()) {
		t.Fatalf("initiator learnt %+v, %v", gotB, err)
	}
	gotA, err := b.Finish(ca)
	if err != nil || !gotA.Equal(laptop.Public()) {
		t.Fatalf("joiner learnt %+v, %v", gotA, err)
	}
	if _, err := a.Finish(cb); !errors.Is(err, keys.ErrPairState) {
		t.Fatalf("a second finish: %v", err)
	}
}

// A server in the middle that runs its own exchange with each side gets
// different strings on the two screens; one that swaps the revealed key
// breaks the commitment; one that swaps the device after the comparison
// breaks the MAC.
func TestPairingMITM(t *testing.T) {
	laptop := newDevice(t, "ada", "laptop")
	desktop := newDevice(t, "ada", "desktop")
	evil := newDevice(t, "ada", "server's device")

	t.Run("two exchanges", func(t *testing.T) {
		a, _ := keys.NewPairInitiator(laptop)
		b, _ := keys.NewPairJoiner(desktop)
		mToA, _ := keys.NewPairJoiner(evil)    // plays the joiner to A
		mToB, _ := keys.NewPairInitiator(evil) // plays the initiator to B
		sasA, sasMA := pair(t, a, mToA)
		sasMB, sasB := pair(t, mToB, b)
		if sasA != sasMA || sasB != sasMB {
			t.Fatal("the relayed halves disagree with themselves")
		}
		if sasA == sasB {
			t.Fatalf("both screens show %q through a man in the middle", sasA)
		}
	})
	t.Run("swapped reveal", func(t *testing.T) {
		a, _ := keys.NewPairInitiator(laptop)
		b, _ := keys.NewPairJoiner(desktop)
		m, _ := keys.NewPairJoiner(evil)
		commit, _ := b.Start()
		hello, err := a.HandleCommit(commit)
		if err != nil {
			t.Fatal(err)
		}
		// the server keeps B's commitment but reveals its own key to A
		_, _ = m.Start()
		mReveal, _, err := m.HandleHello(hello)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.HandleReveal(mReveal); !errors.Is(err, keys.ErrPairCommitment) {
			t.Fatalf("err = %v", err)
		}
		if _, err := a.Confirm(); !errors.Is(err, keys.ErrPairState) {
			t.Fatalf("confirm after a failure: %v", err)
		}
	})
	t.Run("swapped device after the comparison", func(t *testing.T) {
		a, _ := keys.NewPairInitiator(laptop)
		b, _ := keys.NewPairJoiner(desktop)
		sasA, sasB := pair(t, a, b)
		if sasA != sasB {
			t.Fatal("honest exchange disagrees")
		}
		if _, err := a.Confirm(); err != nil {
			t.Fatal(err)
		}
		// the server sends its own device with a MAC it cannot compute
		m, _ := keys.NewPairInitiator(evil)
		mb, _ := keys.NewPairJoiner(newDevice(t, "ada", "x"))
		pair(t, m, mb)
		forged, _ := mb.Confirm()
		if _, err := a.Finish(forged); !errors.Is(err, keys.ErrPairMAC) {
			t.Fatalf("err = %v", err)
		}
	})
}

// Messages out of turn or malformed are refused.
func TestPairingOutOfTurn(t *testing.T) {
	d := newDevice(t, "ada", "a")
	a, _ := keys.NewPairInitiator(d)
	if _, err := a.HandleReveal(make([]byte, 65)); !errors.Is(err, keys.ErrPairState) {
		t.Fatalf("reveal first: %v", err)
	}
	a, _ = keys.NewPairInitiator(d)
	if _, err := a.HandleCommit([]byte{1, 2, 3}); !errors.Is(err, keys.ErrEncoding) {
		t.Fatalf("short commit: %v", err)
	}
	b, _ := keys.NewPairJoiner(d)
	if _, _, err := b.HandleHello(make([]byte, 65)); !errors.Is(err, keys.ErrPairState) {
		t.Fatalf("hello before start: %v", err)
	}
	b, _ = keys.NewPairJoiner(d)
	_, _ = b.Start()
	if _, err := b.Confirm(); !errors.Is(err, keys.ErrPairState) {
		t.Fatalf("confirm before the string: %v", err)
	}
}

// The safety number is the same from both sides, 12 groups of 5 digits,
// and changes when either account's devices change.
func TestSafetyNumber(t *testing.T) {
	a1, a2 := newDevice(t, "ada", "1").Public(), newDevice(t, "ada", "2").Public()
	b1 := newDevice(t, "bob", "1").Public()
	ab, err := keys.SafetyNumber("ada", []keys.DevicePublic{a1, a2}, "bob", []keys.DevicePublic{b1})
	if err != nil {
		t.Fatal(err)
	}
	ba, err := keys.SafetyNumber("bob", []keys.DevicePublic{b1}, "ada", []keys.DevicePublic{a2, a1})
	if err != nil {
		t.Fatal(err)
	}
	if ab != ba {
		t.Fatalf("%q != %q", ab, ba)
	}
	if !regexp.MustCompile(`^(\d{5} ){11}\d{5}$`).MatchString(ab) {
		t.Fatalf("format %q", ab)
	}
	fewer, _ := keys.SafetyNumber("ada", []keys.DevicePublic{a1}, "bob", []keys.DevicePublic{b1})
	if fewer == ab {
		t.Fatal("a device more does not change the number")
	}
	if _, err := keys.SafetyNumber("ada", []keys.DevicePublic{b1}, "bob", []keys.DevicePublic{b1}); !errors.Is(err, keys.ErrEncoding) {
		t.Fatalf("a device of another account: %v", err)
	}
	if _, err := keys.SafetyNumber("ada", nil, "bob", []keys.DevicePublic{b1}); !errors.Is(err, keys.ErrEncoding) {
		t.Fatalf("no devices: %v", err)
	}
}
