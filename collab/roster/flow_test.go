package roster_test

import (
	"errors"
	"path/filepath"
	"testing"

	"mnote/collab/keys"
	"mnote/collab/roster"
)

// The whole path a client takes, as the wiring will: ada pairs a second
// machine, shares a session with bob, bob writes, ada's new machine reads
// with the keys its first machine bundled for it, and a server that hands
// out a key of its own is caught.
func TestSharedSessionFlow(t *testing.T) {
	laptop := must(keys.NewDevice("ada", "laptop", t0))
	adaChain := [][]byte{must(roster.NewDeviceList(laptop, t0))}
	adaList := must(roster.VerifyDevices("ada", adaChain))

	// ada's desktop joins by pairing; the 12 digits match on both screens
	desktop := must(keys.NewDevice("ada", "desktop", at(1)))
	a := must(keys.NewPairInitiator(laptop))
	b := must(keys.NewPairJoiner(desktop))
	hello := must(a.HandleCommit(must(b.Start())))
	reveal, sasB, err := b.HandleHello(hello)
	if err != nil {
		t.Fatal(err)
	}
	if sasA := must(a.HandleReveal(reveal)); sasA != sasB {
		t.Fatalf("%s != %s", sasA, sasB)
	}
	confirmA, confirmB := must(a.Confirm()), must(b.Confirm())
	joined := must(a.Finish(confirmB))
	if must(b.Finish(confirmA)).DeviceID != laptop.ID() {
		t.Fatal("desktop paired with another machine")
	}
	adaChain = append(adaChain, must(adaList.AddDevice(laptop, joined, at(2))))
	adaList = must(roster.VerifyDevices("ada", adaChain))

	bob := must(keys.NewDevice("bob", "bob", t0))
	bobList := must(roster.VerifyDevices("bob", [][]byte{must(roster.NewDeviceList(bob, t0))}))
	lists := map[string]*roster.DeviceList{"bob": bobList}

	// ada pins bob on first use, shares a session with him
	pins := must(roster.OpenPins(filepath.Join(t.TempDir(), "pins.json")))
	if err := pins.Check(bobList); err != nil {
		t.Fatal(err)
	}
	key := keys.NewEpochKey() // epoch 1's, committed to by the first statement
	chain := [][]byte{must(roster.NewSession(laptop, adaList, "s1", key, at(3)))}
	r := must(roster.Verify(chain, adaList))
	chain = append(chain, must(r.Add(laptop, "bob", roster.Editor, at(4))))
	r = must(roster.Verify(chain, adaList))

	// epoch 1's key, wrapped by the laptop for every member device
	envelopes := map[string][]byte{}
	for _, d := range must(r.Recipients(lists)) {
		if err := pins.Blocked(d.Account); err != nil {
			t.Fatalf("blocked: %v", err)
		}
		envelopes[d.DeviceID] = must(keys.WrapEpochKey(laptop, key, d, "s1", r.Epoch))
	}
	if len(envelopes) != 3 {
		t.Fatalf("%d envelopes", len(envelopes))
	}

	// bob's client: verifies the roster against ada's list, checks the
	// envelope's sender, unwraps, writes
	bobView := must(roster.Verify(chain, adaList))
	if role, _ := bobView.Role("bob"); role != roster.Editor {
		t.Fatalf("bob is %s", role)
	}
	wrapper := must(bobView.KeyWrapper(laptop.ID()))
	bobKey := must(keys.UnwrapEpochKey(bob, wrapper, "s1", bobView.Epoch, envelopes[bob.ID()]))
	// the key is the one the owner's signed statement committed to
	if c, ok := bobView.KeyCommitment(1); !ok || c != bobKey.Commitment("s1", 1) || c == keys.NewEpochKey().Commitment("s1", 1) || c == bobKey.Commitment("s2", 1) || c == bobKey.Commitment("s1", 2) {
		t.Fatal("epoch 1's key commitment does not bind the key, the session and the epoch")
	}
	h := keys.Header{SessionID: "s1", Epoch: bobView.Epoch, Seq: 1, AuthorDevice: bob.ID(), Kind: "prompt"}
	blob := must(keys.Seal(bobKey, h, []byte("缓存实验：命中率 82%"), bob))

	// ada's desktop: its key comes in a bundle from the laptop and the one
	// envelope made for it; both agree
	bundle := must(keys.SealBundle(laptop, desktop.Public(), []keys.EpochKeyRecord{{SessionID: "s1", Epoch: 1, Key: key}}))
	sender, ok := adaList.Device(laptop.ID())
	if !ok {
		t.Fatal("laptop not listed")
	}
	recs := must(keys.OpenBundle(desktop, sender, bundle))
	if recs[0].Key != must(keys.UnwrapEpochKey(desktop, wrapper, "s1", 1, envelopes[desktop.ID()])) {
		t.Fatal("bundle and envelope disagree")
	}
	got, err := keys.EntryHeader(blob)
	if err != nil || got.Seq != 1 {
		t.Fatalf("header %+v %v", got, err)
	}
	author := must(r.Author(lists, got.AuthorDevice))
	if author.Account != "bob" || author.Role != roster.Editor {
		t.Fatalf("author %+v", author)
	}
	pt := must(keys.Open(recs[0].Key, keys.Header{SessionID: "s1", Epoch: 1, Seq: 1, AuthorDevice: author.Device.DeviceID, Kind: "prompt"}, blob, author.Device))
	if string(pt) != "缓存实验：命中率 82%" {
		t.Fatalf("got %q", pt)
	}

	// the server wraps a key of its own to bob, signed by a device it made
	server := must(keys.NewDevice("ada", "server's", t0))
	evil := must(keys.WrapEpochKey(server, keys.NewEpochKey(), bob.Public(), "s1", 1))
	if _, err := bobView.KeyWrapper(server.ID()); !errors.Is(err, roster.ErrNotOwnerDevice) {
		t.Fatalf("server's device as key wrapper: %v", err)
	}
	if _, err := keys.UnwrapEpochKey(bob, wrapper, "s1", 1, evil); !errors.Is(err, keys.ErrWrongAuthor) {
		t.Fatalf("server's key: %v", err)
	}
}
