package roster_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"mnote/collab/keys"
	"mnote/collab/roster"
)

// The owner's statements rebuild members, roles and epoch.
func TestSessionRoundTrip(t *testing.T) {
	ada := newAccount(t, "ada", 2)
	s := newSession(t, ada, "会话-1")
	s.push(t, must(s.r.Add(ada.devices[0], "bob", roster.Editor, at(1))))
	s.push(t, must(s.r.Add(ada.devices[1], "carol", roster.Viewer, at(2))))
	s.push(t, must(s.r.SetRole(ada.devices[0], "carol", roster.Commenter, at(3))))
	s.push(t, must(s.r.Remove(ada.devices[0], "bob", at(4))))
	if !s.r.NeedsNewEpoch || s.r.Epoch != 1 {
		t.Fatalf("after a removal: epoch %d, needs new %v", s.r.Epoch, s.r.NeedsNewEpoch)
	}
	s.push(t, must(s.r.NewEpoch(ada.devices[1], keys.NewEpochKey(), at(5))))
	want := []roster.Member{{Account: "ada", Role: roster.Owner}, {Account: "carol", Role: roster.Commenter}}
	if got := s.r.Members(); !slices.Equal(got, want) {
		t.Fatalf("members %v", got)
	}
	if s.r.Epoch != 2 || s.r.NeedsNewEpoch || s.r.SessionID != "会话-1" || s.r.Owner != "ada" {
		t.Fatalf("roster %+v", s.r)
	}
	if role, ok := s.r.Role("bob"); ok {
		t.Fatalf("bob is still %s", role)
	}
	if len(s.r.Statements()) != 6 || s.r.Statements()[5].Op != roster.NewEpoch {
		t.Fatalf("statements %+v", s.r.Statements())
	}
	// the owner's own client refuses to author what would not verify
	for name, f := range map[string]func() ([]byte, error){
		"add twice":        func() ([]byte, error) { return s.r.Add(ada.devices[0], "carol", roster.Viewer, at(6)) },
		"add as owner":     func() ([]byte, error) { return s.r.Add(ada.devices[0], "dan", roster.Owner, at(6)) },
		"role of nobody":   func() ([]byte, error) { return s.r.SetRole(ada.devices[0], "dan", roster.Viewer, at(6)) },
		"remove the owner": func() ([]byte, error) { return s.r.Remove(ada.devices[0], "ada", at(6)) },
		"invented role":    func() ([]byte, error) { return s.r.Add(ada.devices[0], "dan", "admin", at(6)) },
	} {
		if _, err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// stmt signs an arbitrary session statement, as a hostile server (or a
// member) with some device's key could.
func stmt(t *testing.T, by *keys.Device, s roster.Statement) []byte {
	t.Helper()
	b, err := roster.SignStatementForTest(by, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every way to misuse a roster is refused with its error; in particular a
// control plane that adds a member on its own.
func TestSessionRefuses(t *testing.T) {
	ada := newAccount(t, "ada", 1)
	bob := newAccount(t, "bob", 1)
	server := must(keys.NewDevice("ada", "the server's own device", t0)) // claims ada's account
	s := newSession(t, ada, "s1")
	s.push(t, must(s.r.Add(ada.devices[0], "bob", roster.Editor, at(1))))
	head := s.r.Checkpoint()
	next := func(by *keys.Device, op roster.Op, subject string, role roster.Role, epoch uint64) []byte {
		return stmt(t, by, roster.Statement{SessionID: "s1", N: head.Len, Prev: head.Head, Op: op,
			Subject: subject, Role: role, Epoch: epoch, Time: at(2), Signer: by.ID()})
	}
	good := must(s.r.Add(ada.devices[0], "carol", roster.Viewer, at(2)))
	flipped := bytes.Clone(good)
	flipped[len(flipped)-70] ^= 1 // inside the signed body
	otherSession := newSession(t, ada, "s2")
	for _, tc := range []struct {
		name  string
		chain [][]byte
		want  error
	}{
		{"server adds a member, unsigned", s.with(slices.Concat(good[:len(good)-66], []byte{0, 64}, make([]byte, 64))), roster.ErrBadSignature},
		{"server adds a member with its own key", s.with(next(server, roster.AddMember, "mallory", roster.Editor, 1)), roster.ErrNotOwnerDevice},
		{"an editor adds a member", s.with(next(bob.devices[0], roster.AddMember, "mallory", roster.Editor, 1)), roster.ErrNotOwnerDevice},
		{"an editor makes itself owner", s.with(next(bob.devices[0], roster.SetRole, "bob", roster.Owner, 1)), roster.ErrNotOwnerDevice},
		{"changed after signing", s.with(flipped), roster.ErrBadSignature},
		{"statement dropped", [][]byte{s.chain[0], good}, roster.ErrBrokenChain},
		{"statements reordered", [][]byte{s.chain[1], s.chain[0]}, roster.ErrBrokenChain},
		{"statement repeated", s.with(s.chain[1]), roster.ErrBrokenChain},
		{"forked: two statements at one place", s.with(good, must(s.r.Add(ada.devices[0], "dan", roster.Viewer, at(3)))), roster.ErrBrokenChain},
		{"spliced from another session", [][]byte{s.chain[0], otherSession.chain[0]}, roster.ErrBrokenChain},
		{"unknown op", s.with(next(ada.devices[0], "make_admin", "bob", "", 1)), roster.ErrUnknownOp},
		{"role outside the four", s.with(next(ada.devices[0], roster.AddMember, "dan", "admin", 1)), roster.ErrBadRole},
		{"a second owner", s.with(next(ada.devices[0], roster.AddMember, "dan", roster.Owner, 1)), roster.ErrBadRole},
		{"a second create", s.with(next(ada.devices[0], roster.Create, "ada", roster.Owner, 1)), roster.ErrInvalidOp},
		{"skipped epoch", s.with(next(ada.devices[0], roster.NewEpoch, "", "", 3)), roster.ErrInvalidOp},
		{"remove the owner", s.with(next(ada.devices[0], roster.RemoveMember, "ada", "", 1)), roster.ErrInvalidOp},
		{"add in a past epoch", s.with(next(ada.devices[0], roster.AddMember, "dan", roster.Viewer, 0)), roster.ErrInvalidOp},
		{"unknown op at the start", [][]byte{stmt(t, ada.devices[0], roster.Statement{SessionID: "s9", Op: "import", Subject: "ada", Role: roster.Owner, Epoch: 1, Time: t0, Signer: ada.devices[0].ID()})}, roster.ErrUnknownOp},
		{"starts without create", [][]byte{stmt(t, ada.devices[0], roster.Statement{SessionID: "s9", Op: roster.AddMember, Subject: "bob", Role: roster.Editor, Epoch: 1, Time: t0, Signer: ada.devices[0].ID()})}, roster.ErrInvalidOp},
		{"empty", nil, roster.ErrEmptyChain},
		{"garbage", [][]byte{[]byte("garbage")}, roster.ErrMalformed},
		{"a device statement in a roster", [][]byte{ada.chain[0]}, roster.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := roster.Verify(tc.chain, ada.list); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	// a session created by bob's account is not ada's, even signed by bob
	bobs := stmt(t, bob.devices[0], roster.Statement{SessionID: "s3", Op: roster.Create, Subject: "bob", Role: roster.Owner, Epoch: 1, KeyCommitment: [32]byte{1}, Time: t0, Signer: bob.devices[0].ID()})
	if _, err := roster.Verify([][]byte{bobs}, ada.list); !errors.Is(err, roster.ErrNotOwnerDevice) {
		t.Fatalf("bob's session under ada: %v", err)
	}
	adaForBob := stmt(t, ada.devices[0], roster.Statement{SessionID: "s3", Op: roster.Create, Subject: "bob", Role: roster.Owner, Epoch: 1, KeyCommitment: [32]byte{1}, Time: t0, Signer: ada.devices[0].ID()})
	if _, err := roster.Verify([][]byte{adaForBob}, ada.list); !errors.Is(err, roster.ErrNotOwner) {
		t.Fatalf("created for another account: %v", err)
	}
}

// A client that remembers its checkpoint sees a rollback or a fork.
func TestSessionRollbackAndFork(t *testing.T) {
	ada := newAccount(t, "ada", 1)
	s := newSession(t, ada, "s1")
	s.push(t, must(s.r.Add(ada.devices[0], "bob", roster.Editor, at(1))))
	cp := s.r.Checkpoint()
	old := must(roster.Verify(s.chain[:1], ada.list))
	if err := old.Extends(cp); !errors.Is(err, roster.ErrRollback) {
		t.Fatalf("rollback: %v", err)
	}
	fork := must(roster.Verify([][]byte{s.chain[0], must(old.Add(ada.devices[0], "carol", roster.Viewer, at(1)))}, ada.list))
	if err := fork.Extends(cp); !errors.Is(err, roster.ErrFork) {
		t.Fatalf("fork: %v", err)
	}
	s.push(t, must(s.r.Add(ada.devices[0], "carol", roster.Viewer, at(2))))
	if err := s.r.Extends(cp); err != nil {
		t.Fatalf("an honest extension: %v", err)
	}
}

// Removing a member starts a new epoch whose key only the remaining
// members' devices get; what is sealed in it cannot be opened with the
// old key, and the removed member has no envelope.
func TestRevocation(t *testing.T) {
	ada := newAccount(t, "ada", 2)
	bob := newAccount(t, "bob", 2)
	carol := newAccount(t, "carol", 1)
	lists := map[string]*roster.DeviceList{"bob": bob.list, "carol": carol.list}
	s := newSession(t, ada, "s1")
	s.push(t, must(s.r.Add(ada.devices[0], "bob", roster.Editor, at(1))))
	s.push(t, must(s.r.Add(ada.devices[0], "carol", roster.Viewer, at(2))))
	oldKey := keys.NewEpochKey()
	if n := len(must(s.r.Recipients(lists))); n != 5 {
		t.Fatalf("%d recipients in epoch 1", n)
	}

	s.push(t, must(s.r.Remove(ada.devices[0], "bob", at(3))))
	s.push(t, must(s.r.NewEpoch(ada.devices[0], keys.NewEpochKey(), at(4))))
	recipients := must(s.r.Recipients(lists))
	newKey := keys.NewEpochKey()
	envelopes := map[string][]byte{}
	for _, d := range recipients {
		if d.Account == "bob" {
			t.Fatalf("removed member's device %s gets the new key", d.DeviceID)
		}
		envelopes[d.DeviceID] = must(keys.WrapEpochKey(ada.devices[0], newKey, d, "s1", s.r.Epoch))
	}
	if len(envelopes) != 3 {
		t.Fatalf("%d envelopes", len(envelopes))
	}
	// carol opens hers; bob has none, and carol's is not his
	if k := must(keys.UnwrapEpochKey(carol.devices[0], ada.devices[0].Public(), "s1", 2, envelopes[carol.devices[0].ID()])); k != newKey {
		t.Fatal("carol got another key")
	}
	if _, err := keys.UnwrapEpochKey(bob.devices[0], ada.devices[0].Public(), "s1", 2, envelopes[carol.devices[0].ID()]); !errors.Is(err, keys.ErrWrongRecipient) {
		t.Fatalf("bob opens carol's envelope: %v", err)
	}
	h := keys.Header{SessionID: "s1", Epoch: 2, Seq: 10, AuthorDevice: carol.devices[0].ID(), Kind: "comment"}
	blob := must(keys.Seal(newKey, h, []byte("缓存实验：命中率 82%"), carol.devices[0]))
	if _, err := keys.Open(oldKey, h, blob, carol.devices[0].Public()); !errors.Is(err, keys.ErrDecrypt) {
		t.Fatalf("opened with the old key: %v", err)
	}
	if pt := must(keys.Open(newKey, h, blob, carol.devices[0].Public())); string(pt) != "缓存实验：命中率 82%" {
		t.Fatalf("got %q", pt)
	}
	// a member without a verified device list gets nothing
	if _, err := s.r.Recipients(map[string]*roster.DeviceList{}); !errors.Is(err, roster.ErrNoDeviceList) {
		t.Fatalf("missing list: %v", err)
	}
	if _, err := s.r.Recipients(map[string]*roster.DeviceList{"carol": bob.list}); !errors.Is(err, roster.ErrNoDeviceList) {
		t.Fatalf("another account's list: %v", err)
	}
}

// Only an owner device may hand out keys; an entry's author is found in
// the members' device lists, with its role.
func TestKeyWrapperAndAuthor(t *testing.T) {
	ada := newAccount(t, "ada", 2)
	bob := newAccount(t, "bob", 2)
	mallory := newAccount(t, "mallory", 1)
	lists := map[string]*roster.DeviceList{"bob": bob.list, "mallory": mallory.list}
	s := newSession(t, ada, "s1")
	s.push(t, must(s.r.Add(ada.devices[0], "bob", roster.Commenter, at(1))))
	if p, err := s.r.KeyWrapper(ada.devices[1].ID()); err != nil || p.DeviceID != ada.devices[1].ID() {
		t.Fatalf("owner device: %v", err)
	}
	if _, err := s.r.KeyWrapper(bob.devices[0].ID()); !errors.Is(err, roster.ErrNotOwnerDevice) {
		t.Fatalf("a member's device hands out keys: %v", err)
	}
	a, err := s.r.Author(lists, bob.devices[1].ID())
	if err != nil || a.Account != "bob" || a.Role != roster.Commenter || a.Device.DeviceID != bob.devices[1].ID() || a.Removed {
		t.Fatalf("author %+v %v", a, err)
	}
	if a, err := s.r.Author(lists, ada.devices[0].ID()); err != nil || a.Role != roster.Owner {
		t.Fatalf("owner as author %+v %v", a, err)
	}
	if _, err := s.r.Author(lists, mallory.devices[0].ID()); !errors.Is(err, roster.ErrUnknownSigner) {
		t.Fatalf("a non-member's device: %v", err)
	}
	bob.push(t, must(bob.list.RemoveDevice(bob.devices[0], bob.devices[1].ID(), at(2))))
	lists["bob"] = bob.list
	if a, err := s.r.Author(lists, bob.devices[1].ID()); err != nil || !a.Removed {
		t.Fatalf("removed device %+v %v", a, err)
	}
}

// A statement that starts an epoch carries a commitment to its key, and
// no other does: a roster with a create or a new epoch without one, or a
// member added with one, is refused.
func TestKeyCommitmentOnlyWhereAnEpochStarts(t *testing.T) {
	ada := newAccount(t, "ada", 1)
	var zero keys.EpochKey
	if zero.Commitment("s", 1) == ([32]byte{}) {
		t.Fatal("a zero key commits to zero")
	}
	good := must(roster.NewSession(ada.devices[0], ada.list, "s", keys.NewEpochKey(), at(1)))
	r := must(roster.Verify([][]byte{good}, ada.list))
	if _, ok := r.KeyCommitment(1); !ok {
		t.Fatal("epoch 1 has no commitment")
	}
	if _, ok := r.KeyCommitment(2); ok {
		t.Fatal("epoch 2 has a commitment before it started")
	}
	by := ada.devices[0]
	bare := must(roster.SignStatementForTest(by, roster.Statement{SessionID: "s", Op: roster.Create, Subject: "ada", Role: roster.Owner, Epoch: 1, Time: at(1), Signer: by.ID()}))
	if _, err := roster.Verify([][]byte{bare}, ada.list); !errors.Is(err, roster.ErrInvalidOp) {
		t.Fatalf("a create without a commitment: %v", err)
	}
	// A member added with a commitment, and a new epoch without one.
	for _, s := range []roster.Statement{
		{Op: roster.AddMember, Subject: "bob", Role: roster.Editor, Epoch: 1, KeyCommitment: [32]byte{1}},
		{Op: roster.NewEpoch, Epoch: 2},
	} {
		prev := must(roster.Verify([][]byte{good}, ada.list))
		s.SessionID, s.N, s.Time, s.Signer = "s", 1, at(2), by.ID()
		s.Prev = prev.HeadForTest()
		bad := must(roster.SignStatementForTest(by, s))
		if _, err := roster.Verify([][]byte{good, bad}, ada.list); !errors.Is(err, roster.ErrInvalidOp) {
			t.Fatalf("%s with commitment %x: %v", s.Op, s.KeyCommitment[:1], err)
		}
	}
}
