package controlplane_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// noKeepalive: a live stream hears only rings (the keepalive, which also
// reads again, would hide a missing ring).
func noKeepalive(c *controlplane.Config) { c.LiveKeepalive = time.Hour }

// liveReader reads a live stream on its own goroutine.
type liveReader struct {
	t      testing.TB
	stream *api.LiveStream
	events chan api.LiveEvent
	err    chan error
}

func openLive(t testing.TB, c *api.Client, id string, after int64) *liveReader {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	s, err := c.Live(ctx, id, after, "dev1")
	if err != nil {
		cancel()
		t.Fatalf("open live: %v", err)
	}
	lr := &liveReader{t: t, stream: s, events: make(chan api.LiveEvent, 1024), err: make(chan error, 1)}
	go func() {
		for {
			ev, err := s.Next()
			if err != nil {
				lr.err <- err
				close(lr.events)
				return
			}
			lr.events <- ev
		}
	}()
	t.Cleanup(func() { cancel(); s.Close() })
	return lr
}

// patience bounds a wait for something that must happen (never a
// measure of speed: a loaded machine is slow, not wrong).
const patience = 30 * time.Second

// next returns the next event of type typ, skipping others.
func (lr *liveReader) next(typ string) api.LiveEvent {
	lr.t.Helper()
	timeout := time.After(patience)
	for {
		select {
		case ev, ok := <-lr.events:
			if !ok {
				lr.t.Fatalf("the live stream ended waiting for %s: %v", typ, <-lr.err)
			}
			if ev.Type == typ {
				return ev
			}
		case <-timeout:
			lr.t.Fatalf("no %s event in %v", typ, patience)
		}
	}
}

// until reads events until ok is true of one.
func (lr *liveReader) until(what string, ok func(api.LiveEvent) bool) api.LiveEvent {
	lr.t.Helper()
	timeout := time.After(patience)
	for {
		select {
		case ev, open := <-lr.events:
			if !open {
				lr.t.Fatalf("the live stream ended waiting for %s: %v", what, <-lr.err)
			}
			if ok(ev) {
				return ev
			}
		case <-timeout:
			lr.t.Fatalf("waited %v for %s", patience, what)
		}
	}
}

// entries reads n entry events and returns their seqs.
func (lr *liveReader) entries(n int) []int64 {
	lr.t.Helper()
	var seqs []int64
	for len(seqs) < n {
		seqs = append(seqs, lr.next(api.EventEntry).Entry.Seq)
	}
	return seqs
}

func wantSeqs(t testing.TB, got []int64, from, to int64) {
	t.Helper()
	if len(got) != int(to-from+1) {
		t.Fatalf("seqs %v; want %d..%d", got, from, to)
	}
	for i, s := range got {
		if s != from+int64(i) {
			t.Fatalf("seqs %v; want %d..%d", got, from, to)
		}
	}
}

// A live stream replays the entries after ?after=, says ready, then
// streams new ones; reconnecting with after = the last seq loses nothing
// and repeats nothing.
func TestLiveReplayThenStreamAndReconnect(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		id := shareOf(t, h, "live1")
		if _, err := h.A.SetMember(t.Context(), id, "bob", api.RoleViewer, sealed("bob views")); err != nil {
			t.Fatal(err)
		}
		for i := int64(1); i <= 5; i++ {
			mustAppend(t, h.A, id, i, entry(api.KindComment, "", fmt.Sprint("c", i)))
		}
		lr := openLive(t, h.B, id, 2)
		wantSeqs(t, lr.entries(3), 3, 5)
		if r := lr.next(api.EventReady); r.Ready.Head != 5 {
			t.Fatalf("ready %+v", r.Ready)
		}
		for i := int64(6); i <= 8; i++ {
			mustAppend(t, h.A, id, i, entry(api.KindComment, "", fmt.Sprint("c", i)))
		}
		got := lr.entries(2)
		wantSeqs(t, got, 6, 7)
		lr.stream.Close()
		// Entries keep coming while bob is away.
		for i := int64(9); i <= 10; i++ {
			mustAppend(t, h.A, id, i, entry(api.KindComment, "", fmt.Sprint("c", i)))
		}
		lr2 := openLive(t, h.B, id, 7)
		wantSeqs(t, lr2.entries(3), 8, 10)
		e := lr2.next(api.EventReady)
		if e.Ready.Head != 10 {
			t.Fatalf("ready %+v", e.Ready)
		}
		mustAppend(t, h.A, id, 11, entry(api.KindComment, "", "c11"))
		if ev := lr2.next(api.EventEntry); ev.Entry.Seq != 11 || string(ev.Entry.Ciphertext) != string(sealed("c11")) || ev.Entry.Actor != "alice" {
			t.Fatalf("entry %+v", ev.Entry)
		}
	}, noKeepalive)
}

// Members, the lease and its queue, and presence (who views, who runs)
// come on the live stream as they change.
func TestLiveMembersLeaseAndPresence(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		id := shareOf(t, h, "live2")
		if _, err := h.A.SetMember(ctx, id, "bob", api.RoleEditor, sealed("bob edits")); err != nil {
			t.Fatal(err)
		}
		lr := openLive(t, h.B, id, 0)
		lr.next(api.EventReady)
		lr.until("bob viewing", func(ev api.LiveEvent) bool {
			return ev.Type == api.EventPresence && len(ev.Presence.Viewers) == 1 && ev.Presence.Viewers[0].Account == "bob"
		})
		mustLease(t, h.A, id, "ra")
		mustLease(t, h.B, id, "rb")
		// Either may come first (one read of the store, or two).
		queued, running := false, false
		lr.until("alice running, bob queued", func(ev api.LiveEvent) bool {
			switch ev.Type {
			case api.EventLease:
				queued = ev.Lease.Lease != nil && ev.Lease.Lease.Account == "alice" &&
					len(ev.Lease.Queue) == 1 && ev.Lease.Queue[0].RunID == "rb" && ev.Lease.Queue[0].Position == 1
			case api.EventPresence:
				running = ev.Presence.Running == "alice"
			}
			return queued && running
		})
		h.addUser("carol")
		if _, err := h.A.SetMember(ctx, id, "carol", api.RoleCommenter, sealed("carol")); err != nil {
			t.Fatal(err)
		}
		lr.until("carol a member", func(ev api.LiveEvent) bool {
			return ev.Type == api.EventMembers && len(ev.Members.Members) == 3 && ev.Members.RosterHead == 3
		})
		la := openLive(t, h.A, id, 0)
		la.next(api.EventReady)
		lr.until("alice viewing too", func(ev api.LiveEvent) bool {
			return ev.Type == api.EventPresence && len(ev.Presence.Viewers) == 2
		})
		if _, err := h.A.ReleaseLease(ctx, id, "ra"); err != nil {
			t.Fatal(err)
		}
		lr.until("bob running", func(ev api.LiveEvent) bool {
			return ev.Type == api.EventLease && ev.Lease.Lease != nil && ev.Lease.Lease.RunID == "rb" && len(ev.Lease.Queue) == 0
		})
	}, noKeepalive)
}

// Removing a member closes its live stream at once (the ring, not a
// keepalive: there is none within the test), and it then gets the 404 of
// a missing session everywhere.
func TestLiveRevokeClosesStreamAtOnce(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		id := shareOf(t, h, "live3")
		if _, err := h.A.SetMember(ctx, id, "bob", api.RoleEditor, sealed("bob edits")); err != nil {
			t.Fatal(err)
		}
		mustAppend(t, h.A, id, 1, entry(api.KindComment, "", "before"))
		lr := openLive(t, h.B, id, 0)
		lr.next(api.EventReady)
		if err := h.A.RemoveMember(ctx, id, "bob", sealed("bob out")); err != nil {
			t.Fatal(err)
		}
		lr.next(api.EventRevoked)
		select {
		case _, open := <-lr.events:
			if open {
				t.Fatal("an event after revoked")
			}
		case <-time.After(patience):
			t.Fatal("the stream stayed open after revoked")
		}
		if err := <-lr.err; !errors.Is(err, io.EOF) {
			t.Fatalf("stream end: %v", err)
		}
		_, err := h.B.Entries(ctx, id, 0, 0)
		wantCode(t, err, 404, api.CodeNotFound)
		_, err = h.B.Live(ctx, id, 0, "")
		wantCode(t, err, 404, api.CodeNotFound)
		_, err = h.B.GetSession(ctx, id)
		wantCode(t, err, 404, api.CodeNotFound)
		_, err = h.B.AppendEntry(ctx, id, 2, entry(api.KindComment, "", "after"))
		wantCode(t, err, 404, api.CodeNotFound)

		// The owner deletes the session: every member's stream ends.
		c := member(t, h, id, "carol", api.RoleViewer)
		lc := openLive(t, c, id, 0)
		lc.next(api.EventReady)
		if err := h.A.DeleteSession(ctx, id); err != nil {
			t.Fatal(err)
		}
		lc.next(api.EventRevoked)
		_, err = c.Entries(ctx, id, 0, 0)
		wantCode(t, err, 404, api.CodeNotFound)
	}, noKeepalive)
}

// Two servers on one PostgreSQL: a member streaming from one sees what
// is appended through the other (NOTIFY rings; the entries are read from
// the table by seq), and a removal through one closes a stream on the
// other at once.
func TestLiveAcrossServersOnPostgres(t *testing.T) {
	h := newHarness(t, "postgres", noKeepalive)
	other := &harness{t: t, kind: h.kind, db: h.db, clock: h.clock, logs: &syncBuffer{}, opts: h.opts}
	other.start()
	t.Cleanup(other.stop)
	a2 := &api.Client{BaseURL: other.srv.URL, Token: h.tokenA}

	id := shareOf(t, h, "multi")
	if _, err := a2.SetMember(t.Context(), id, "bob", api.RoleViewer, sealed("bob views")); err != nil {
		t.Fatal(err)
	}
	lr := openLive(t, h.B, id, 0)
	lr.next(api.EventReady)
	const n = 50
	for i := int64(1); i <= n; i++ {
		mustAppend(t, a2, id, i, entry(api.KindComment, "", fmt.Sprint("via 2: ", i)))
	}
	wantSeqs(t, lr.entries(n), 1, n)
	if err := a2.RemoveMember(t.Context(), id, "bob", sealed("bob out")); err != nil {
		t.Fatal(err)
	}
	lr.next(api.EventRevoked)
}

// A live stream outlives the server's read and write timeouts (a write
// deadline, once passed, fails every later write), and CloseLive (run at
// shutdown) ends it so that Shutdown does not wait for it.
func TestLiveOutlivesServerTimeoutsAndEndsAtShutdown(t *testing.T) {
	h := newHarness(t, "sqlite", noKeepalive)
	srv := controlplane.NewServer(controlplane.Config{Store: h.store, Now: h.clock.now, LiveKeepalive: time.Hour})
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ReadTimeout, ts.Config.WriteTimeout = 300*time.Millisecond, 300*time.Millisecond
	ts.Config.RegisterOnShutdown(srv.CloseLive)
	ts.Start()
	t.Cleanup(ts.Close)
	b := &api.Client{BaseURL: ts.URL, Token: h.tokenB}

	id := shareOf(t, h, "timeouts")
	if _, err := h.A.SetMember(t.Context(), id, "bob", api.RoleViewer, sealed("bob")); err != nil {
		t.Fatal(err)
	}
	lr := openLive(t, b, id, 0)
	lr.next(api.EventReady)
	time.Sleep(time.Second) // past both timeouts
	mustAppend(t, h.A, id, 1, entry(api.KindComment, "", "a second later"))
	if ev := lr.next(api.EventEntry); ev.Entry.Seq != 1 {
		t.Fatalf("entry %+v", ev.Entry)
	}
	ctx, cancel := context.WithTimeout(t.Context(), patience)
	defer cancel()
	if err := ts.Config.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with a live stream open: %v", err)
	}
	for ev := range lr.events {
		if ev.Type == api.EventRevoked {
			t.Fatal("a shutdown is not a revocation")
		}
	}
	if err := <-lr.err; !errors.Is(err, io.EOF) {
		t.Fatalf("stream end: %v", err)
	}
}
