package keys_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"mnote/collab/keys"
)

// Entries round-trip, Chinese and empty included, padded to a size class.
func TestSealOpenRoundTrip(t *testing.T) {
	author := newDevice(t, "ada", "a")
	key := keys.NewEpochKey()
	for i, pt := range [][]byte{
		[]byte("缓存实验：命中率 82%"),
		{},
		bytes.Repeat([]byte("x"), 4096),
		bytes.Repeat([]byte("长"), 100_000),
	} {
		h := keys.Header{SessionID: "s1", Epoch: 3, Seq: uint64(i + 1), AuthorDevice: author.ID(), Kind: "prompt"}
		blob, err := keys.Seal(key, h, pt, author)
		if err != nil {
			t.Fatal(err)
		}
		got, err := keys.Open(key, h, blob, author.Public())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, pt) {
			t.Fatalf("entry %d: got %q", i, got)
		}
		if bytes.Contains(blob, pt) && len(pt) > 0 {
			t.Fatal("plaintext in the blob")
		}
		if eh, err := keys.EntryHeader(blob); err != nil || eh != h {
			t.Fatalf("EntryHeader %+v %v", eh, err)
		}
	}
}

// The padded size hides the exact size: sizes in one class give blobs of
// one length, the overhead stays small.
func TestPadding(t *testing.T) {
	if keys.PaddedSize(0) != 256 || keys.PaddedSize(252) != 256 || keys.PaddedSize(253) <= 256 {
		t.Fatalf("small sizes: %d %d %d", keys.PaddedSize(0), keys.PaddedSize(252), keys.PaddedSize(253))
	}
	for n := 0; n < 1<<20; n = n*5/4 + 1 {
		p := keys.PaddedSize(n)
		if p < n+4 || (n > 256 && float64(p) > float64(n+4)*1.13) {
			t.Fatalf("PaddedSize(%d) = %d", n, p)
		}
	}
	author := newDevice(t, "ada", "a")
	key := keys.NewEpochKey()
	h := keys.Header{SessionID: "s", Epoch: 1, Seq: 1, AuthorDevice: author.ID(), Kind: "answer"}
	a, _ := keys.Seal(key, h, make([]byte, 3000), author)
	b, _ := keys.Seal(key, h, make([]byte, 3010), author)
	if len(a) != len(b) {
		t.Fatalf("3000 and 3010 bytes give blobs of %d and %d", len(a), len(b))
	}
}

// Every way a server can misuse a sealed entry fails, each with its error.
func TestOpenRefusesTampering(t *testing.T) {
	author := newDevice(t, "ada", "a")
	mallory := newDevice(t, "mallory", "m") // a member: knows the epoch key
	key := keys.NewEpochKey()
	h := keys.Header{SessionID: "s1", Epoch: 2, Seq: 7, AuthorDevice: author.ID(), Kind: "prompt"}
	blob, err := keys.Seal(key, h, []byte("缓存实验：命中率 82%"), author)
	if err != nil {
		t.Fatal(err)
	}
	with := func(f func(*keys.Header)) keys.Header { c := h; f(&c); return c }
	// a forged entry by another member, claiming ada's device in the header
	forgedHeader := with(func(h *keys.Header) { h.AuthorDevice = mallory.ID() })
	forged, err := keys.Seal(key, forgedHeader, []byte("ada says: delete everything"), mallory)
	if err != nil {
		t.Fatal(err)
	}
	relabelled := rewriteHeader(t, forged, h) // mallory's blob, ada's header
	otherHeader := rewriteHeader(t, blob, with(func(h *keys.Header) { h.Seq = 8 }))
	flipCT := bytes.Clone(blob)
	flipCT[len(flipCT)-80] ^= 1
	flipSig := bytes.Clone(blob)
	flipSig[len(flipSig)-1] ^= 1
	for _, tc := range []struct {
		name   string
		key    keys.EpochKey
		want   keys.Header
		blob   []byte
		author keys.DevicePublic
		err    error
	}{
		{"moved to another session", key, with(func(h *keys.Header) { h.SessionID = "s2" }), blob, author.Public(), keys.ErrWrongSession},
		{"moved to another epoch", key, with(func(h *keys.Header) { h.Epoch = 3 }), blob, author.Public(), keys.ErrWrongEpoch},
		{"replayed at a later seq", key, with(func(h *keys.Header) { h.Seq = 9 }), blob, author.Public(), keys.ErrWrongSeq},
		{"reordered to an earlier seq", key, with(func(h *keys.Header) { h.Seq = 6 }), blob, author.Public(), keys.ErrWrongSeq},
		{"kind changed", key, with(func(h *keys.Header) { h.Kind = "comment" }), blob, author.Public(), keys.ErrWrongKind},
		{"author changed", key, forgedHeader, blob, mallory.Public(), keys.ErrWrongAuthor},
		{"expected author, other key", key, h, blob, mallory.Public(), keys.ErrWrongAuthor},
		{"member forges another's entry", key, h, relabelled, author.Public(), keys.ErrBadSignature},
		{"header rewritten in the blob", key, with(func(h *keys.Header) { h.Seq = 8 }), otherHeader, author.Public(), keys.ErrBadSignature},
		{"ciphertext changed", key, h, flipCT, author.Public(), keys.ErrBadSignature},
		{"signature changed", key, h, flipSig, author.Public(), keys.ErrBadSignature},
		{"old epoch's key", keys.NewEpochKey(), h, blob, author.Public(), keys.ErrDecrypt},
		{"truncated", key, h, blob[:len(blob)-10], author.Public(), keys.ErrEncoding},
		{"trailing bytes", key, h, append(bytes.Clone(blob), 0), author.Public(), keys.ErrEncoding},
		{"empty", key, h, nil, author.Public(), keys.ErrEncoding},
		{"other version", key, h, append([]byte{9}, blob[1:]...), author.Public(), keys.ErrVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pt, err := keys.Open(tc.key, tc.want, tc.blob, tc.author)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if pt != nil {
				t.Fatalf("plaintext %q with an error", pt)
			}
			if tc.err != keys.ErrEncoding && tc.err != keys.ErrVersion && !errors.Is(err, keys.ErrTampered) {
				t.Fatalf("%v is not ErrTampered", err)
			}
		})
	}
	if _, err := keys.Seal(key, h, []byte("x"), mallory); !errors.Is(err, keys.ErrWrongAuthor) {
		t.Fatalf("sealing in another device's name: %v", err)
	}
}

// rewriteHeader puts header h in a sealed blob, keeping the rest.
func rewriteHeader(t *testing.T, blob []byte, h keys.Header) []byte {
	t.Helper()
	old, err := keys.EntryHeader(blob)
	if err != nil {
		t.Fatal(err)
	}
	ob, _ := old.Marshal()
	nb, _ := h.Marshal()
	if len(ob) != len(nb) {
		t.Fatalf("headers of different lengths")
	}
	out := bytes.Clone(blob)
	copy(out[3:], nb)
	return out
}

// An envelope opens only on its device, for its session and epoch, from
// its wrapper.
func TestWrapEpochKey(t *testing.T) {
	owner := newDevice(t, "ada", "owner")
	bob := newDevice(t, "bob", "bob")
	carol := newDevice(t, "carol", "carol")
	key := keys.NewEpochKey()
	env, err := keys.WrapEpochKey(owner, key, bob.Public(), "s1", 4)
	if err != nil {
		t.Fatal(err)
	}
	got, err := keys.UnwrapEpochKey(bob, owner.Public(), "s1", 4, env)
	if err != nil || got != key {
		t.Fatalf("unwrap: %v", err)
	}
	// the server wraps a key of its own choosing to bob, or re-signs it
	serverKey, _ := keys.WrapEpochKey(carol, keys.NewEpochKey(), bob.Public(), "s1", 4)
	flip := bytes.Clone(env)
	flip[len(flip)-70] ^= 1
	forCarol, _ := keys.WrapEpochKey(owner, key, carol.Public(), "s1", 4)
	for _, tc := range []struct {
		name    string
		self    *keys.Device
		sender  keys.DevicePublic
		session string
		epoch   uint64
		env     []byte
		want    error
	}{
		{"another session", bob, owner.Public(), "s2", 4, env, keys.ErrWrongSession},
		{"another epoch", bob, owner.Public(), "s1", 5, env, keys.ErrWrongEpoch},
		{"another device", carol, owner.Public(), "s1", 4, env, keys.ErrWrongRecipient},
		{"moved to another device", bob, owner.Public(), "s1", 4, forCarol, keys.ErrWrongRecipient},
		{"wrapped by someone else", bob, owner.Public(), "s1", 4, serverKey, keys.ErrWrongAuthor},
		{"re-signed by someone else", bob, carol.Public(), "s1", 4, resign(t, env, carol), keys.ErrDecrypt},
		{"ciphertext changed", bob, owner.Public(), "s1", 4, flip, keys.ErrBadSignature},
		{"truncated", bob, owner.Public(), "s1", 4, env[:20], keys.ErrEncoding},
		{"empty", bob, owner.Public(), "s1", 4, nil, keys.ErrEncoding},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := keys.UnwrapEpochKey(tc.self, tc.sender, tc.session, tc.epoch, tc.env); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// Session ids up to wire's limit wrap and seal; longer ones are refused.
func TestLongSessionID(t *testing.T) {
	a, b := newDevice(t, "ada", "a"), newDevice(t, "ada", "b")
	key := keys.NewEpochKey()
	long := strings.Repeat("会", 4096/3)
	env, err := keys.WrapEpochKey(a, key, b.Public(), long, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := keys.UnwrapEpochKey(b, a.Public(), long, 1, env); err != nil || got != key {
		t.Fatalf("unwrap: %v", err)
	}
	h := keys.Header{SessionID: long, Epoch: 1, Seq: 1, AuthorDevice: a.ID(), Kind: "prompt"}
	blob, err := keys.Seal(key, h, []byte("x"), a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Open(key, h, blob, a.Public()); err != nil {
		t.Fatal(err)
	}
	tooLong := strings.Repeat("s", 4097)
	if _, err := keys.WrapEpochKey(a, key, b.Public(), tooLong, 1); !errors.Is(err, keys.ErrEncoding) {
		t.Fatalf("wrap: %v", err)
	}
	h.SessionID = tooLong
	if _, err := keys.Seal(key, h, []byte("x"), a); !errors.Is(err, keys.ErrEncoding) {
		t.Fatalf("seal: %v", err)
	}
	if _, err := keys.Seal(key, keys.Header{AuthorDevice: a.ID()}, make([]byte, keys.MaxEntry+1), a); !errors.Is(err, keys.ErrEncoding) {
		t.Fatalf("seal of more than MaxEntry: %v", err)
	}
}

// resign replaces the sender id and signature of an envelope, so only the
// HPKE binding is left to catch it.
func resign(t *testing.T, env []byte, by *keys.Device) []byte {
	t.Helper()
	// envelope: version, sender (2+40), ...; signature last (2+64)
	body := bytes.Clone(env[:len(env)-66])
	copy(body[3:43], by.ID())
	sig := by.Sign("epoch-envelope v1", body)
	return append(append(body, 0, 64), sig...)
}

// A bundle carries epoch keys to a new device of the same account only.
func TestBundle(t *testing.T) {
	laptop := newDevice(t, "ada", "laptop")
	desktop := newDevice(t, "ada", "desktop")
	bob := newDevice(t, "bob", "bob")
	recs := []keys.EpochKeyRecord{
		{SessionID: "会话-1", Epoch: 1, Key: keys.NewEpochKey()},
		{SessionID: "s2", Epoch: 7, Key: keys.NewEpochKey()},
	}
	b, err := keys.SealBundle(laptop, desktop.Public(), recs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := keys.OpenBundle(desktop, laptop.Public(), b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != recs[0] || got[1] != recs[1] {
		t.Fatalf("got %+v", got)
	}
	if _, err := keys.SealBundle(laptop, bob.Public(), recs); !errors.Is(err, keys.ErrWrongRecipient) {
		t.Fatalf("bundle to another account: %v", err)
	}
	other := newDevice(t, "ada", "phone")
	if _, err := keys.OpenBundle(other, laptop.Public(), b); !errors.Is(err, keys.ErrWrongRecipient) {
		t.Fatalf("bundle opened by another device: %v", err)
	}
	if _, err := keys.OpenBundle(desktop, other.Public(), b); !errors.Is(err, keys.ErrWrongAuthor) {
		t.Fatalf("bundle from another sender: %v", err)
	}
	flip := bytes.Clone(b)
	flip[len(flip)-90] ^= 1
	if _, err := keys.OpenBundle(desktop, laptop.Public(), flip); !errors.Is(err, keys.ErrBadSignature) {
		t.Fatalf("changed bundle: %v", err)
	}
	empty, err := keys.SealBundle(laptop, desktop.Public(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := keys.OpenBundle(desktop, laptop.Public(), empty); err != nil || len(got) != 0 {
		t.Fatalf("empty bundle: %v %v", got, err)
	}
}

// Open never panics on random blobs; what it accepts was sealed by the author.
func FuzzOpen(f *testing.F) {
	author, err := keys.NewDevice("ada", "a", t0)
	if err != nil {
		f.Fatal(err)
	}
	var key keys.EpochKey
	h := keys.Header{SessionID: "s", Epoch: 1, Seq: 1, AuthorDevice: author.ID(), Kind: "prompt"}
	blob, _ := keys.Seal(key, h, []byte("缓存实验：命中率 82%"), author)
	f.Add(blob)
	f.Add(blob[:40])
	f.Add([]byte{1, 0, 0})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = keys.EntryHeader(b)
		pt, err := keys.Open(key, h, b, author.Public())
		if err == nil && !bytes.Equal(b, blob) {
			t.Fatalf("opened a blob that was not sealed: %q", pt)
		}
		_, _ = keys.ParseDevicePublic(b)
		_, _ = keys.UnwrapEpochKey(author, author.Public(), "s", 1, b)
		_, _ = keys.OpenBundle(author, author.Public(), b)
	})
}

func BenchmarkSeal4K(b *testing.B) {
	author := newDevice(b, "ada", "a")
	key := keys.NewEpochKey()
	h := keys.Header{SessionID: "s", Epoch: 1, Seq: 1, AuthorDevice: author.ID(), Kind: "answer"}
	pt := bytes.Repeat([]byte("缓存"), 4096/6)
	b.SetBytes(int64(len(pt)))
	for b.Loop() {
		if _, err := keys.Seal(key, h, pt, author); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen4K(b *testing.B) {
	author := newDevice(b, "ada", "a")
	key := keys.NewEpochKey()
	h := keys.Header{SessionID: "s", Epoch: 1, Seq: 1, AuthorDevice: author.ID(), Kind: "answer"}
	pt := bytes.Repeat([]byte("缓存"), 4096/6)
	blob, err := keys.Seal(key, h, pt, author)
	if err != nil {
		b.Fatal(err)
	}
	pub := author.Public()
	b.SetBytes(int64(len(pt)))
	for b.Loop() {
		if _, err := keys.Open(key, h, blob, pub); err != nil {
			b.Fatal(err)
		}
	}
}

// A DevicePublic whose id does not match its keys is refused as an author
// or a sender, before anything is checked against it.
func TestForgedDevicePublic(t *testing.T) {
	ada, bob := newDevice(t, "ada", "a"), newDevice(t, "bob", "b")
	key := keys.NewEpochKey()
	h := keys.Header{SessionID: "s", Epoch: 1, Seq: 1, AuthorDevice: ada.ID(), Kind: "prompt"}
	blob, _ := keys.Seal(key, h, []byte("x"), ada)
	forged := bob.Public()
	forged.DeviceID = ada.ID() // bob's keys under ada's id
	if _, err := keys.Open(key, h, blob, forged); !errors.Is(err, keys.ErrDeviceID) {
		t.Fatalf("open: %v", err)
	}
	env, _ := keys.WrapEpochKey(ada, key, bob.Public(), "s", 1)
	if _, err := keys.UnwrapEpochKey(bob, forged, "s", 1, env); !errors.Is(err, keys.ErrDeviceID) {
		t.Fatalf("unwrap: %v", err)
	}
	if _, err := keys.OpenBundle(bob, forged, nil); !errors.Is(err, keys.ErrDeviceID) {
		t.Fatalf("bundle: %v", err)
	}
}
