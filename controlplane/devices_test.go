package controlplane_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"mnote/controlplane/api"
)

// Devices: an account adds, lists and removes its own; a device keeps its
// key; each change appends the signed statement to the device log; the
// devices of an account are visible to the accounts it shares a session
// with, and to nobody else.
func TestDevicesAndDeviceLog(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		if _, err := h.A.PutDevice(ctx, "laptop", sealed("key-a1"), sealed("a adds laptop")); err != nil {
			t.Fatal(err)
		}
		if _, err := h.A.PutDevice(ctx, "desk", sealed("key-a2"), sealed("a adds desk")); err != nil {
			t.Fatal(err)
		}
		_, err := h.A.PutDevice(ctx, "laptop", sealed("another key"), sealed("x"))
		wantCode(t, err, 409, api.CodeConflict)
		if d, err := h.A.PutDevice(ctx, "laptop", sealed("key-a1"), sealed("a states laptop again")); err != nil || d.Account != "alice" {
			t.Fatalf("the same key again: %+v, %v", d, err)
		}
		if _, err := h.B.PutDevice(ctx, "laptop", sealed("key-b1"), sealed("b adds laptop")); err != nil {
			t.Fatalf("another account's device of the same name: %v", err)
		}
		list, err := h.A.Devices(ctx)
		if err != nil || len(list.Devices) != 2 || list.LogHead != 3 || !bytes.Equal(list.Devices[0].PublicKey, sealed("key-a1")) {
			t.Fatalf("alice's devices: %+v, %v", list, err)
		}
		// Bob shares no session with alice: her devices are a 404, like
		// an account that does not exist.
		for _, acct := range []string{"alice", "nobody"} {
			_, err = h.B.AccountDevices(ctx, acct)
			wantCode(t, err, 404, api.CodeNotFound)
			_, err = h.B.DeviceLog(ctx, acct, 0)
			wantCode(t, err, 404, api.CodeNotFound)
		}
		id := shareOf(t, h, "dev-s")
		if _, err := h.A.SetMember(ctx, id, "bob", api.RoleViewer, sealed("bob")); err != nil {
			t.Fatal(err)
		}
		if l, err := h.B.AccountDevices(ctx, "alice"); err != nil || len(l.Devices) != 2 {
			t.Fatalf("bob sees alice's devices: %+v, %v", l, err)
		}
		if l, err := h.A.AccountDevices(ctx, "bob"); err != nil || len(l.Devices) != 1 {
			t.Fatalf("alice sees bob's devices: %+v, %v", l, err)
		}
		if err := h.A.RemoveDevice(ctx, "desk", sealed("a removes desk")); err != nil {
			t.Fatal(err)
		}
		wantCode(t, h.B.RemoveDevice(ctx, "desk", sealed("x")), 404, api.CodeNotFound)
		page, err := h.B.DeviceLog(ctx, "alice", 1)
		if err != nil || page.Head != 4 || len(page.Statements) != 3 {
			t.Fatalf("alice's device log after 1: %+v, %v", page, err)
		}
		for i, want := range []string{"a adds desk", "a states laptop again", "a removes desk"} {
			if st := page.Statements[i]; st.Seq != int64(i+2) || !bytes.Equal(st.Statement, sealed(want)) {
				t.Fatalf("statement %d: %+v", i+2, st)
			}
		}
	})
}

// Key envelopes: the owner wraps an epoch's key for members' devices;
// each member fetches its own device's envelopes, nobody else's.
func TestKeyEnvelopes(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		id := shareOf(t, h, "keys")
		if _, err := h.A.SetMember(ctx, id, "bob", api.RoleEditor, sealed("bob")); err != nil {
			t.Fatal(err)
		}
		for _, d := range []struct {
			c  *api.Client
			id string
		}{{h.A, "a1"}, {h.B, "b1"}, {h.B, "b2"}} {
			if _, err := d.c.PutDevice(ctx, d.id, sealed("key "+d.id), sealed("add "+d.id)); err != nil {
				t.Fatal(err)
			}
		}
		envs := func(epoch string) []api.KeyEnvelope {
			return []api.KeyEnvelope{
				{Account: "alice", Device: "a1", Envelope: sealed(epoch + " for a1")},
				{Account: "bob", Device: "b1", Envelope: sealed(epoch + " for b1")},
				{Account: "bob", Device: "b2", Envelope: sealed(epoch + " for b2")},
			}
		}
		if err := h.A.PutKeys(ctx, id, 1, envs("e1")); err != nil {
			t.Fatal(err)
		}
		if err := h.A.PutKeys(ctx, id, 2, envs("e2")); err != nil {
			t.Fatal(err)
		}
		wantCode(t, h.B.PutKeys(ctx, id, 3, envs("e3")), 403, api.CodeForbidden)
		bad := []api.KeyEnvelope{{Account: "carol", Device: "c1", Envelope: sealed("x")}}
		wantCode(t, h.A.PutKeys(ctx, id, 3, bad), 400, api.CodeBadRequest)
		got, err := h.B.Keys(ctx, id, "b2", 0)
		if err != nil || len(got) != 2 || got[0].Epoch != 1 || !bytes.Equal(got[1].Envelope, sealed("e2 for b2")) {
			t.Fatalf("bob's b2 envelopes: %+v, %v", got, err)
		}
		if got, err := h.B.Keys(ctx, id, "b1", 1); err != nil || len(got) != 1 || got[0].Epoch != 2 {
			t.Fatalf("bob's b1 envelopes after 1: %+v, %v", got, err)
		}
		// Another member's device: nothing.
		if got, err := h.B.Keys(ctx, id, "a1", 0); err != nil || len(got) != 0 {
			t.Fatalf("bob asks for a1's envelopes: %+v, %v", got, err)
		}
		// A removed member reads no keys; a removed device has none.
		if err := h.B.RemoveDevice(ctx, "b1", sealed("rm b1")); err != nil {
			t.Fatal(err)
		}
		if got, err := h.B.Keys(ctx, id, "b1", 0); err != nil || len(got) != 0 {
			t.Fatalf("a removed device's envelopes: %+v, %v", got, err)
		}
		if err := h.A.RemoveMember(ctx, id, "bob", sealed("bob out")); err != nil {
			t.Fatal(err)
		}
		_, err = h.B.Keys(ctx, id, "b2", 0)
		wantCode(t, err, 404, api.CodeNotFound)
	})
}

// Pairing: a short code shown once, stored hashed, valid ten minutes and
// for five wrong tries; both devices of the account exchange ordered
// opaque messages on the mailbox; another account finds nothing.
func TestPairingMailbox(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		pr, err := h.A.CreatePairing(ctx, "laptop")
		if err != nil || len(pr.Code) != 9 || pr.Code[4] != '-' {
			t.Fatalf("pairing: %+v, %v", pr, err)
		}
		// Typed on the other device, lower case and without the dash.
		joined, err := h.A.JoinPairing(ctx, strings.ToLower(strings.ReplaceAll(pr.Code, "-", "")), "desk")
		if err != nil || joined.ID != pr.ID || joined.Code != "" {
			t.Fatalf("join: %+v, %v", joined, err)
		}
		// Bob's token does not find alice's pairing by its code or id.
		_, err = h.B.JoinPairing(ctx, pr.Code, "x")
		wantCode(t, err, 404, api.CodeNotFound)
		_, err = h.B.PairingMessages(ctx, pr.ID, 0)
		wantCode(t, err, 404, api.CodeNotFound)
		_, err = h.B.PostPairingMessage(ctx, pr.ID, "x", sealed("x"))
		wantCode(t, err, 404, api.CodeNotFound)

		for i, m := range []struct{ dev, body string }{{"desk", "commit"}, {"laptop", "key"}, {"desk", "reveal"}} {
			got, err := h.A.PostPairingMessage(ctx, pr.ID, m.dev, sealed(m.body))
			if err != nil || got.Seq != int64(i+1) {
				t.Fatalf("message %d: %+v, %v", i, got, err)
			}
		}
		page, err := h.A.PairingMessages(ctx, pr.ID, 1)
		if err != nil || len(page.Messages) != 2 || page.Messages[0].Device != "laptop" || !bytes.Equal(page.Messages[1].Body, sealed("reveal")) {
			t.Fatalf("messages after 1: %+v, %v", page, err)
		}
		// The code is not stored in clear.
		if got := columnsHolding(t, h, strings.ReplaceAll(pr.Code, "-", "")); len(got) != 0 {
			t.Fatalf("the pairing code is stored in %v", got)
		}

		// Five wrong codes use the pairing up: the right one is then 410.
		pr2, err := h.A.CreatePairing(ctx, "laptop")
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			_, err := h.A.JoinPairing(ctx, "WRONG-CODE", "desk")
			wantCode(t, err, 404, api.CodeNotFound)
		}
		_, err = h.A.JoinPairing(ctx, pr2.Code, "desk")
		wantCode(t, err, 410, api.CodeGone)
		// Ten minutes on, the first one is gone too.
		h.clock.advance(10*time.Minute + time.Second)
		_, err = h.A.PairingMessages(ctx, pr.ID, 0)
		wantCode(t, err, 410, api.CodeGone)
		_, err = h.A.JoinPairing(ctx, pr.Code, "desk")
		wantCode(t, err, 410, api.CodeGone)
		if st, _, b := h.raw(http.MethodPost, "/v1/pairings", h.tokenA, []byte(`{"device":"a/b"}`)); st != 400 {
			t.Fatalf("bad device: %d %s", st, b)
		}
	})
}
