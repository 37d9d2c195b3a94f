package client_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mnote/cloudsync/cloudsynctest"
	"mnote/collab/client"
	"mnote/collab/keys"
	"mnote/collab/projection"
	"mnote/collab/roster"
	"mnote/controlplane/api"
	"mnote/controlplane/pgtest"
)

// The member's turn, seen with its actor, and a removal's new epoch, on
// a control plane on PostgreSQL.
func TestSharedFlowOnPostgres(t *testing.T) {
	pg := pgtest.StartForTest(t)
	db, err := pg.CreateDB(t.Context(), "collab_client")
	if err != nil {
		t.Fatal(err)
	}
	w := newWorldOn(t, cloudsynctest.NewOn(t, db))
	turn(t, w.bob, w.sessionID, 1, "bob on postgres", "fine")
	got := fetch(t, w.ada, w.sessionID, 0)
	if len(got) == 0 || got[0].Actor != "bob" || got[0].Entry.Text != "bob on postgres" {
		t.Fatalf("ada read %+v", got)
	}
	if err := w.ada.RemoveMember(t.Context(), w.sessionID, "bob"); err != nil {
		t.Fatal(err)
	}
	turn(t, w.ada, w.sessionID, 2, "after", "only ada")
	if _, err := w.bob.Fetch(t.Context(), w.sessionID, 0); !errors.Is(err, client.ErrRevoked) {
		t.Fatalf("a removed member fetched: %v", err)
	}
	all := fetch(t, w.ada, w.sessionID, 0)
	if last := all[len(all)-1]; last.Epoch != 2 || last.Unreadable != "" {
		t.Fatalf("after the removal: %+v", last)
	}
	// What bob wrote while a member still opens, with his name.
	if all[0].Unreadable != "" || all[0].Actor != "bob" {
		t.Fatalf("bob's earlier turn after his removal: %+v", all[0])
	}
}

// An entry sealed for one seq and appended at another (a replay, by a
// member or a server) is returned marked, not dropped, and the entries
// around it still open.
func TestReplayedEntryIsMarkedNotDropped(t *testing.T) {
	forEachPlane(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		turn(t, w.bob, w.sessionID, 1, "first", "one")
		page, err := w.bobAPI.Entries(ctx, w.sessionID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		first := page.Entries[0]
		st, err := w.bobAPI.RequestLease(ctx, w.sessionID, "run-replay", w.bob.Device().DeviceID)
		if err != nil || !st.Granted {
			t.Fatalf("lease: %+v %v", st, err)
		}
		if _, err := w.bobAPI.AppendEntry(ctx, w.sessionID, page.Head+1, api.AppendEntryRequest{Epoch: first.Epoch, Kind: first.Kind,
			RunID: "run-replay", AuthorDevice: first.AuthorDevice, Ciphertext: first.Ciphertext}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.bobAPI.ReleaseLease(ctx, w.sessionID, "run-replay"); err != nil {
			t.Fatal(err)
		}
		turn(t, w.ada, w.sessionID, 2, "after the replay", "two")
		got := fetch(t, w.ada, w.sessionID, 0)
		var marked, prompts int
		for _, o := range got {
			if o.Unreadable != "" {
				marked++
				if o.Seq != page.Head+1 || o.Unreadable != client.UnreadableTampered {
					t.Errorf("marked %d: %s", o.Seq, o.Unreadable)
				}
			} else if o.Kind == projection.KindPrompt {
				prompts++
			}
		}
		if marked != 1 || prompts != 2 || int64(len(got)) != got[len(got)-1].Seq {
			t.Fatalf("%d marked, %d prompts, %d entries", marked, prompts, len(got))
		}
	})
}

// A commenter comments (no lease) and runs nothing; a viewer does
// neither; comments open with their actor.
func TestCommenterComments(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	if err := w.ada.SetMember(ctx, w.sessionID, "bob", roster.Commenter); err != nil {
		t.Fatal(err)
	}
	if _, err := w.bob.Comment(ctx, w.sessionID, "nice work"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.bob.StartRun(ctx, w.sessionID, projection.Prompt(1, "x", nil), client.RunEvents{}); !errors.Is(err, client.ErrRole) {
		t.Fatalf("a commenter ran: %v", err)
	}
	got := fetch(t, w.ada, w.sessionID, 0)
	if len(got) != 1 || got[0].Kind != projection.KindComment || got[0].Actor != "bob" || got[0].Entry.Text != "nice work" {
		t.Fatalf("ada read %+v", got)
	}
	if err := w.ada.SetMember(ctx, w.sessionID, "bob", roster.Viewer); err != nil {
		t.Fatal(err)
	}
	if _, err := w.bob.Comment(ctx, w.sessionID, "still?"); !errors.Is(err, client.ErrRole) {
		t.Fatalf("a viewer commented: %v", err)
	}
}

// Removing one of ada's devices starts a new epoch in the sessions she
// owns: the removed device cannot open what follows.
func TestRemovedDeviceCannotOpenLaterEntries(t *testing.T) {
	forEachPlane(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		ada2 := pairSecond(t, w)
		turn(t, w.ada, w.sessionID, 1, "both devices", "read")
		if got := fetch(t, ada2, w.sessionID, 0); got[0].Unreadable != "" {
			t.Fatalf("the second device before its removal: %+v", got[0])
		}
		if err := w.ada.RemoveDevice(ctx, ada2.Device().DeviceID); err != nil {
			t.Fatal(err)
		}
		turn(t, w.ada, w.sessionID, 2, "after the removal", "secret")
		got, err := ada2.Fetch(ctx, w.sessionID, 0)
		if err == nil {
			for _, o := range got {
				if o.Epoch > 1 && o.Unreadable == "" {
					t.Fatalf("a removed device opened %d: %+v", o.Seq, o.Entry)
				}
			}
		}
		for _, o := range fetch(t, w.bob, w.sessionID, 0) {
			if o.Unreadable != "" {
				t.Fatalf("bob cannot open %d after ada's device removal: %s", o.Seq, o.Unreadable)
			}
		}
	})
}

// pairSecond pairs a second machine of ada's.
func pairSecond(t *testing.T, w *world) *client.Client {
	t.Helper()
	ada2, _ := newMachine(t, w.cp.URL, w.adaTok, "desktop")
	codes := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := w.ada.Pair(t.Context(), client.PairUI{Code: func(c string, _ time.Time) { codes <- c }, Confirm: func(string) bool { return true }})
		done <- err
	}()
	if err := ada2.Join(t.Context(), <-codes, client.PairUI{Confirm: func(string) bool { return true }}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return ada2
}

// Which context a member's agent gets: everything when its agent does not
// hold the session; with session/load, the others' turns since its last.
func TestContextFor(t *testing.T) {
	op := func(seq int64, actor, kind, text string, turn int) client.Opened {
		o := client.Opened{Entry: projection.Entry{Kind: kind, Text: text, Turn: turn}}
		o.Seq, o.Actor, o.Kind, o.AuthorDevice = seq, actor, kind, actor+"-device"
		return o
	}
	log := []client.Opened{
		op(1, "ada", "prompt", "ada one", 1), op(2, "ada", "answer", "ans ", 1), op(3, "ada", "answer", "one", 1),
		op(4, "bob", "prompt", "bob two", 2), op(5, "bob", "answer", "ans two", 2),
		op(6, "ada", "prompt", "ada three", 3), op(7, "ada", "answer", "ans three", 3),
		op(8, "bob", "prompt", "bob four", 4), op(9, "bob", "tool", "", 4),
	}
	mode, text := client.ContextFor(log, false, "bob-device")
	if mode != client.ContextEarlier || !strings.Contains(text, "Assistant (turn 1):\nans one") || !strings.Contains(text, "User bob (turn 4):\nbob four") {
		t.Fatalf("%s:\n%s", mode, text)
	}
	mode, text = client.ContextFor(log[:7], true, "bob-device")
	if mode != client.ContextLoad || !strings.Contains(text, "ada three") || strings.Contains(text, "ada one") || strings.Contains(text, "bob two") {
		t.Fatalf("%s:\n%s", mode, text)
	}
	if mode, _ := client.ContextFor(log, true, "carol-device"); mode != client.ContextEarlier {
		t.Fatalf("a member who never ran a turn: %s", mode)
	}
}

// An entry sealed under an older epoch after the log moved to a newer
// one (a key that should be retired, used again) is marked.
func TestOlderEpochAfterNewerIsMarked(t *testing.T) {
	forEachPlane(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		turn(t, w.bob, w.sessionID, 1, "in epoch one", "ok")
		w.cp.AddUser("carol")
		if err := w.ada.SetMember(ctx, w.sessionID, "carol", roster.Viewer); err != nil {
			t.Fatal(err)
		}
		if err := w.ada.RemoveMember(ctx, w.sessionID, "carol"); err != nil {
			t.Fatal(err)
		}
		turn(t, w.ada, w.sessionID, 2, "in epoch two", "ok")
		// bob still holds epoch 1's key and seals with it now.
		var st struct {
			Sessions map[string]struct {
				Keys map[string]string `json:"keys"`
			} `json:"sessions"`
		}
		b, err := os.ReadFile(filepath.Join(w.bobHome, "collab", "state.json"))
		if err != nil || json.Unmarshal(b, &st) != nil {
			t.Fatalf("bob's state: %v", err)
		}
		raw, err := base64.StdEncoding.DecodeString(st.Sessions[w.sessionID].Keys["1"])
		if err != nil || len(raw) != 32 {
			t.Fatalf("bob's epoch 1 key: %v", err)
		}
		var key keys.EpochKey
		copy(key[:], raw)
		dev, err := keys.LoadDevice(filepath.Join(w.bobHome, "collab", "device.key"))
		if err != nil {
			t.Fatal(err)
		}
		sh, err := w.bobAPI.SharedSession(ctx, w.sessionID)
		if err != nil {
			t.Fatal(err)
		}
		seq := sh.Head + 1
		blob, err := keys.Seal(key, keys.Header{SessionID: w.sessionID, Epoch: 1, Seq: uint64(seq), AuthorDevice: dev.ID(), Kind: "comment"}, []byte(`{"kind":"comment","text":"old key"}`), dev)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.bobAPI.AppendEntry(ctx, w.sessionID, seq, api.AppendEntryRequest{Epoch: 1, Kind: "comment", AuthorDevice: dev.ID(), Ciphertext: blob}); err != nil {
			t.Fatal(err)
		}
		got := fetch(t, w.ada, w.sessionID, 0)
		last := got[len(got)-1]
		if last.Seq != seq || last.Unreadable != client.UnreadableTampered {
			t.Fatalf("the old-epoch entry: %+v", last)
		}
	})
}

// Invariant 9: a run that cannot reach the control plane fails visibly —
// at its start (no lease: nothing runs) and midway (an append refused:
// Err says so and Finish fails) — never a silent local-only turn.
func TestRunFailsVisiblyWithoutTheControlPlane(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	w.cp.Inject(cloudsynctest.Fault{Method: "POST", PathPrefix: "/v1/sessions/" + w.sessionID + "/lease", Status: 503})
	if _, err := w.bob.StartRun(ctx, w.sessionID, projection.Prompt(1, "x", nil), client.RunEvents{}); err == nil {
		t.Fatal("a run started without the lease")
	}
	run, err := w.bob.StartRun(ctx, w.sessionID, projection.Prompt(1, "kept", nil), client.RunEvents{})
	if err != nil {
		t.Fatal(err)
	}
	w.cp.Inject(cloudsynctest.Fault{Method: "PUT", PathPrefix: "/v1/sessions/" + w.sessionID + "/entries/", Status: 503, Count: 100})
	run.Add(projection.Entry{Kind: projection.KindAnswer, Text: "lost?"})
	for range 500 {
		if run.Err() != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if run.Err() == nil {
		t.Fatal("a refused append left the run going")
	}
	if err := run.Finish(ctx, client.RunEnded); err == nil {
		t.Fatal("Finish of a failed run said nothing")
	}
	w.cp.ClearFaults()
	// The lease was given back: the next run gets it at once.
	next, err := w.ada.StartRun(ctx, w.sessionID, projection.Prompt(2, "next", nil), client.RunEvents{Queued: func(int) { t.Error("queued behind a failed run") }})
	if err != nil {
		t.Fatal(err)
	}
	if err := next.Finish(ctx, client.RunEnded); err != nil {
		t.Fatal(err)
	}
}

// A member who removes one of their devices makes the owner's next turn
// start a new epoch: the removed device cannot open what follows, the
// member's other device can.
func TestMemberDeviceRemovalStartsNewEpoch(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	bob2, _ := newMachine(t, w.cp.URL, w.bobTok, "bob's phone")
	codes := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := w.bob.Pair(ctx, client.PairUI{Code: func(c string, _ time.Time) { codes <- c }, Confirm: func(string) bool { return true }})
		done <- err
	}()
	if err := bob2.Join(ctx, <-codes, client.PairUI{Confirm: func(string) bool { return true }}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	turn(t, w.ada, w.sessionID, 1, "to both of bob's", "ok") // wraps epoch 1 for bob's phone too
	if got := fetch(t, bob2, w.sessionID, 0); got[0].Unreadable != "" {
		t.Fatalf("bob's phone: %+v", got[0])
	}
	if err := w.bob.RemoveDevice(ctx, bob2.Device().DeviceID); err != nil {
		t.Fatal(err)
	}
	turn(t, w.ada, w.sessionID, 2, "after the phone left", "secret")
	all := fetch(t, w.bob, w.sessionID, 0)
	last := all[len(all)-1]
	if last.Epoch != 2 || last.Unreadable != "" {
		t.Fatalf("bob's laptop after the rotation: %+v", last)
	}
	got, err := bob2.Fetch(ctx, w.sessionID, 0)
	if err != nil {
		return // refused altogether: fine
	}
	for _, o := range got {
		if o.Epoch == 2 && o.Unreadable == "" {
			t.Fatalf("the removed phone opened %d", o.Seq)
		}
	}
}

// An owner device that gives one member another key for an epoch than the
// one its signed statement committed to is caught: the member's client
// refuses the key (ErrKeyCommitment) and runs nothing under it, instead
// of writing entries the other members cannot read.
func TestOwnerEquivocationIsRefused(t *testing.T) {
	forEachPlane(t, func(t *testing.T, w *world) {
		ctx := t.Context()
		adaDev, err := keys.LoadDevice(filepath.Join(w.adaHome, "collab", "device.key"))
		if err != nil {
			t.Fatal(err)
		}
		other := keys.NewEpochKey()
		env, err := keys.WrapEpochKey(adaDev, other, w.bob.Device(), w.sessionID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.adaAPI.PutKeys(ctx, w.sessionID, 1, []api.KeyEnvelope{{Epoch: 1, Account: "bob", Device: w.bob.Device().DeviceID, Envelope: env}}); err != nil {
			t.Fatal(err)
		}
		_, err = w.bob.StartRun(ctx, w.sessionID, projection.Prompt(1, "我的一轮", nil), client.RunEvents{})
		if !errors.Is(err, client.ErrKeyCommitment) {
			t.Fatalf("bob ran under a key the owner did not commit to: %v", err)
		}
		// The key the owner committed to still opens: ada's own turn reads.
		turn(t, w.ada, w.sessionID, 1, "继续", "好的")
		if got := fetch(t, w.ada, w.sessionID, 0); len(got) == 0 || got[0].Unreadable != "" {
			t.Fatalf("ada reads %+v", got)
		}
	})
}

// forEachPlane runs fn on a world whose control plane keeps its data in
// SQLite, then in PostgreSQL (one throwaway server for the package, a
// database per test): what clients refuse must not depend on the store.
func forEachPlane(t *testing.T, fn func(t *testing.T, w *world)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, newWorld(t)) })
	t.Run("postgres", func(t *testing.T) {
		pgtest.Require(t)
		sharedPG.once.Do(func() { sharedPG.srv, sharedPG.err = pgtest.Start(context.Background(), pgtest.Options{}) })
		if sharedPG.err != nil {
			t.Fatalf("start PostgreSQL: %v", sharedPG.err)
		}
		db, err := sharedPG.srv.CreateDB(t.Context(), fmt.Sprintf("collab_%d", sharedPG.n.Add(1)))
		if err != nil {
			t.Fatal(err)
		}
		fn(t, newWorldOn(t, cloudsynctest.NewOn(t, db)))
	})
}

// sharedPG is the package's PostgreSQL server, started on first use and
// stopped by TestMain.
var sharedPG struct {
	once sync.Once
	srv  *pgtest.Server
	err  error
	n    atomic.Int64
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedPG.srv != nil {
		sharedPG.srv.Close()
	}
	os.Exit(code)
}
