package controlplane_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// sealed stands for a client's ciphertext: the server never reads it.
func sealed(s string) []byte { return []byte("\x00sealed\xff" + s) }

// shareOf makes A's session id a shared one and returns its id.
func shareOf(t testing.TB, h *harness, id string) string {
	t.Helper()
	mustPut(t, h.A, rec(id, 1))
	sh, err := h.A.ShareSession(t.Context(), id, sealed("roster: alice owns "+id))
	if err != nil {
		t.Fatalf("share %s: %v", id, err)
	}
	if sh.Role != api.RoleOwner || sh.Owner != "alice" || sh.RosterHead != 1 || sh.Head != 0 {
		t.Fatalf("shared session %+v", sh)
	}
	return id
}

// member adds a new account to A's shared session with role and
// returns its client.
func member(t testing.TB, h *harness, sessionID, name, role string) *api.Client {
	t.Helper()
	_, tok := h.addUser(name)
	if _, err := h.A.SetMember(t.Context(), sessionID, name, role, sealed("roster: "+name+" is "+role)); err != nil {
		t.Fatalf("add %s as %s: %v", name, role, err)
	}
	return h.client(tok)
}

func entry(kind, run, text string) api.AppendEntryRequest {
	return api.AppendEntryRequest{Epoch: 1, Kind: kind, RunID: run, AuthorDevice: "dev1", Ciphertext: sealed(text)}
}

func mustAppend(t testing.TB, c *api.Client, id string, seq int64, req api.AppendEntryRequest) api.Entry {
	t.Helper()
	e, err := c.AppendEntry(t.Context(), id, seq, req)
	if err != nil {
		t.Fatalf("append %s at %d: %v", req.Kind, seq, err)
	}
	return e
}

func mustLease(t testing.TB, c *api.Client, id, run string) api.LeaseState {
	t.Helper()
	st, err := c.RequestLease(t.Context(), id, run, "dev1")
	if err != nil {
		t.Fatalf("lease %s: %v", run, err)
	}
	return st
}

// Invariant 1 for shared sessions: a private session stays invisible to
// everyone else (list, detail, entries, members, roster, lease, live),
// and a shared one to everyone but its members — with the 404 of a
// missing session.
func TestSharedInvariant1PrivateStaysInvisible(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		mustPut(t, h.A, rec("a-private", 1))
		id := shareOf(t, h, "a-shared")
		// B is nobody in either; C is a viewer of the shared one.
		c := member(t, h, id, "carol", api.RoleViewer)

		for _, who := range []struct {
			name  string
			token string
			ids   []string
		}{{"bob", h.tokenB, []string{"a-private", id}}, {"carol", c.Token, []string{"a-private"}}} {
			for _, sid := range who.ids {
				for _, p := range []string{"", "/shared", "/members", "/roster", "/entries", "/lease", "/live"} {
					st1, _, b1 := h.raw(http.MethodGet, "/v1/sessions/"+sid+p, who.token, nil)
					st2, _, b2 := h.raw(http.MethodGet, "/v1/sessions/no-such"+p, who.token, nil)
					if st1 != 404 || st1 != st2 || !bytes.Equal(b1, b2) {
						t.Fatalf("%s GET %s%s: %d %s; a missing session: %d %s", who.name, sid, p, st1, b1, st2, b2)
					}
				}
				body := []byte(`{"epoch":1,"kind":"comment","authorDevice":"d","ciphertext":"AAAA"}`)
				if st, _, b := h.raw(http.MethodPut, "/v1/sessions/"+sid+"/entries/1", who.token, body); st != 404 {
					t.Fatalf("%s appends to %s: %d %s", who.name, sid, st, b)
				}
				if st, _, b := h.raw(http.MethodPost, "/v1/sessions/"+sid+"/lease", who.token, []byte(`{"runId":"r"}`)); st != 404 {
					t.Fatalf("%s asks for %s's lease: %d %s", who.name, sid, st, b)
				}
			}
		}
		// Nobody but the owner shares a session, or changes one's record.
		_, err := h.B.ShareSession(ctx, "a-private", sealed("x"))
		wantCode(t, err, 404, api.CodeNotFound)
		_, err = c.ShareSession(ctx, id, sealed("x"))
		wantCode(t, err, 404, api.CodeNotFound)
		_, err = c.PutSession(ctx, rec(id, 9))
		wantCode(t, err, 404, api.CodeNotFound)
		wantCode(t, c.DeleteSession(ctx, id), 404, api.CodeNotFound)

		if list, err := h.B.SharedSessions(ctx); err != nil || len(list) != 0 {
			t.Fatalf("bob's shared sessions: %+v, %v", list, err)
		}
		list, err := c.SharedSessions(ctx)
		if err != nil || len(list) != 1 || list[0].Session.ID != id || list[0].Role != api.RoleViewer || list[0].Owner != "alice" {
			t.Fatalf("carol's shared sessions: %+v, %v", list, err)
		}
		// A member reads the record; its own list stays its own.
		if got, err := c.GetSession(ctx, id); err != nil || got.ID != id {
			t.Fatalf("carol reads the shared record: %+v, %v", got, err)
		}
		if page, err := c.ListSessions(ctx, 0, ""); err != nil || len(page.Sessions) != 0 {
			t.Fatalf("carol's own sessions: %+v, %v", page.Sessions, err)
		}
	})
}

// Invariant 4: an editor's run records actor = that editor, never the
// owner; the actor comes from the token, a body cannot name one.
func TestSharedInvariant4ActorIsTheEditor(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		id := shareOf(t, h, "s4")
		if _, err := h.A.SetMember(ctx, id, "bob", api.RoleEditor, sealed("bob edits")); err != nil {
			t.Fatal(err)
		}
		if st := mustLease(t, h.B, id, "run-b"); !st.Granted || st.Lease.Account != "bob" {
			t.Fatalf("bob's lease: %+v", st)
		}
		e := mustAppend(t, h.B, id, 1, entry(api.KindPrompt, "run-b", "bob asks"))
		if e.Actor != "bob" {
			t.Fatalf("bob's prompt has actor %q", e.Actor)
		}
		mustAppend(t, h.B, id, 2, entry(api.KindAnswer, "run-b", "bob's agent answers"))
		mustAppend(t, h.A, id, 3, entry(api.KindComment, "", "alice comments"))
		// A body naming an actor is refused, not believed.
		body := []byte(`{"epoch":1,"kind":"answer","runId":"run-b","authorDevice":"d","actor":"alice","ciphertext":"AAAA"}`)
		if st, _, b := h.raw(http.MethodPut, "/v1/sessions/"+id+"/entries/4", h.tokenB, body); st != 400 || !strings.Contains(string(b), "actor") {
			t.Fatalf("a body naming the actor: %d %s", st, b)
		}
		page, err := h.A.Entries(ctx, id, 0, 0)
		if err != nil || len(page.Entries) != 3 || page.Head != 3 || page.More {
			t.Fatalf("entries: %+v, %v", page, err)
		}
		for i, want := range []string{"bob", "bob", "alice"} {
			if got := page.Entries[i]; got.Actor != want || got.Seq != int64(i+1) || !bytes.Equal(got.Ciphertext, sealed([]string{"bob asks", "bob's agent answers", "alice comments"}[i])) {
				t.Fatalf("entry %d: %+v; want actor %s", i+1, got, want)
			}
		}
	})
}

// Invariant 5: a viewer cannot run — the server refuses its lease and
// every entry (403), even with the run id of the run holding the lease.
func TestSharedInvariant5ViewerCannotRun(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		id := shareOf(t, h, "s5")
		v := member(t, h, id, "vera", api.RoleViewer)
		_, err := v.RequestLease(ctx, id, "run-v", "")
		wantCode(t, err, 403, api.CodeForbidden)
		mustLease(t, h.A, id, "run-a")
		for _, k := range []string{api.KindPrompt, api.KindAnswer, api.KindComment} {
			_, err := v.AppendEntry(ctx, id, 1, entry(k, "run-a", "viewer writes"))
			wantCode(t, err, 403, api.CodeForbidden)
		}
		_, err = v.ReleaseLease(ctx, id, "run-a")
		if err != nil {
			t.Fatal(err)
		}
		if st, err := h.A.LeaseState(ctx, id); err != nil || st.Lease == nil || st.Lease.RunID != "run-a" {
			t.Fatalf("a viewer's release ended the owner's lease: %+v, %v", st, err)
		}
		if page, err := v.Entries(ctx, id, 0, 0); err != nil || len(page.Entries) != 0 {
			t.Fatalf("after the viewer's attempts: %+v, %v", page, err)
		}
	})
}

// A commenter appends comments and nothing else, and cannot run.
func TestSharedCommenterOnlyComments(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		id := shareOf(t, h, "sc")
		c := member(t, h, id, "carl", api.RoleCommenter)
		_, err := c.RequestLease(ctx, id, "run-c", "")
		wantCode(t, err, 403, api.CodeForbidden)
		mustLease(t, h.A, id, "run-a")
		for _, k := range api.RunKinds {
			_, err := c.AppendEntry(ctx, id, 1, entry(k, "run-a", "commenter runs"))
			wantCode(t, err, 403, api.CodeForbidden)
		}
		if e := mustAppend(t, c, id, 1, entry(api.KindComment, "", "nice")); e.Actor != "carl" || e.Kind != api.KindComment {
			t.Fatalf("comment: %+v", e)
		}
		// Run kinds without the lease: 409 for the owner too.
		_, err = h.A.AppendEntry(ctx, id, 2, entry(api.KindPrompt, "run-other", "x"))
		wantCode(t, err, 409, api.CodeLeaseRequired)
		// A commenter turned editor may run; turned viewer, not even comment.
		if _, err := h.A.SetMember(ctx, id, "carl", api.RoleViewer, sealed("carl views")); err != nil {
			t.Fatal(err)
		}
		_, err = c.AppendEntry(ctx, id, 2, entry(api.KindComment, "", "again"))
		wantCode(t, err, 403, api.CodeForbidden)
	})
}

// Only the owner adds, changes and removes members; each change appends
// the owner's statement to the roster log, read in order with ?after=.
func TestSharedOnlyOwnerManagesMembers(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		id := shareOf(t, h, "sm")
		if _, err := h.A.SetMember(ctx, id, "bob", api.RoleEditor, sealed("2")); err != nil {
			t.Fatal(err)
		}
		h.addUser("carol")
		_, err := h.B.SetMember(ctx, id, "carol", api.RoleEditor, sealed("bob adds carol"))
		wantCode(t, err, 403, api.CodeForbidden)
		wantCode(t, h.B.RemoveMember(ctx, id, "alice", sealed("bob removes alice")), 403, api.CodeForbidden)
		_, err = h.A.SetMember(ctx, id, "carol", api.RoleOwner, sealed("x"))
		wantCode(t, err, 400, api.CodeBadRequest)
		_, err = h.A.SetMember(ctx, id, "alice", api.RoleViewer, sealed("x"))
		wantCode(t, err, 400, api.CodeBadRequest)
		_, err = h.A.SetMember(ctx, id, "nobody-of-that-name", api.RoleViewer, sealed("x"))
		wantCode(t, err, 400, api.CodeBadRequest)
		_, err = h.A.SetMember(ctx, id, "carol", api.RoleViewer, nil)
		wantCode(t, err, 400, api.CodeBadRequest)
		if _, err := h.A.SetMember(ctx, id, "carol", api.RoleCommenter, sealed("3")); err != nil {
			t.Fatal(err)
		}
		if err := h.A.RemoveMember(ctx, id, "bob", sealed("4")); err != nil {
			t.Fatal(err)
		}
		list, err := h.A.Members(ctx, id)
		if err != nil || len(list.Members) != 2 || list.RosterHead != 4 {
			t.Fatalf("members: %+v, %v", list, err)
		}
		roles := map[string]string{}
		for _, m := range list.Members {
			roles[m.Account] = m.Role
		}
		if roles["alice"] != api.RoleOwner || roles["carol"] != api.RoleCommenter {
			t.Fatalf("roles %v", roles)
		}
		page, err := h.A.Roster(ctx, id, 1)
		if err != nil || page.Head != 4 || len(page.Statements) != 3 {
			t.Fatalf("roster after 1: %+v, %v", page, err)
		}
		for i, st := range page.Statements {
			if st.Seq != int64(i+2) || st.Actor != "alice" || !bytes.Equal(st.Statement, sealed(fmt.Sprint(i+2))) {
				t.Fatalf("statement %d: %+v", i, st)
			}
		}
		// The refused changes appended nothing; the removed member reads nothing.
		_, err = h.B.Roster(ctx, id, 0)
		wantCode(t, err, 404, api.CodeNotFound)
	})
}

// The lease: one run at a time, a queue in order visible to all members,
// renewal by heartbeat, expiry of a lease not renewed (the queue's head
// gets it), release at a run's end.
func TestSharedLeaseExpiryAndQueueOrder(t *testing.T) {
	ttl := 30 * time.Second
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		id := shareOf(t, h, "sl")
		if _, err := h.A.SetMember(ctx, id, "bob", api.RoleEditor, sealed("bob")); err != nil {
			t.Fatal(err)
		}
		c := member(t, h, id, "carol", api.RoleEditor)
		v := member(t, h, id, "vera", api.RoleViewer)

		if st := mustLease(t, h.B, id, "rb"); !st.Granted {
			t.Fatalf("bob first: %+v", st)
		}
		if st := mustLease(t, c, id, "rc"); st.Granted || st.Position != 1 {
			t.Fatalf("carol second: %+v", st)
		}
		if st := mustLease(t, h.A, id, "ra"); st.Granted || st.Position != 2 {
			t.Fatalf("alice third: %+v", st)
		}
		// Asking again keeps one's place.
		if st := mustLease(t, c, id, "rc"); st.Position != 1 {
			t.Fatalf("carol asks again: %+v", st)
		}
		st, err := v.LeaseState(ctx, id)
		if err != nil || st.Lease == nil || st.Lease.Account != "bob" || len(st.Queue) != 2 ||
			st.Queue[0].Account != "carol" || st.Queue[1].Account != "alice" || st.Queue[1].Position != 2 {
			t.Fatalf("the viewer sees %+v, %v", st, err)
		}
		_, err = c.AppendEntry(ctx, id, 1, entry(api.KindPrompt, "rc", "carol jumps the queue"))
		wantCode(t, err, 409, api.CodeLeaseRequired)
		mustAppend(t, h.B, id, 1, entry(api.KindPrompt, "rb", "bob"))

		// Heartbeats keep it past the first life.
		h.clock.advance(ttl - time.Second)
		mustLease(t, h.B, id, "rb")
		h.clock.advance(ttl - time.Second)
		mustAppend(t, h.B, id, 2, entry(api.KindAnswer, "rb", "bob's answer"))

		// Bob's machine dies: no heartbeat; the lease expires, carol runs.
		h.clock.advance(ttl + time.Second)
		st, err = v.LeaseState(ctx, id)
		if err != nil || st.Lease == nil || st.Lease.RunID != "rc" || len(st.Queue) != 1 || st.Queue[0].RunID != "ra" || st.Queue[0].Position != 1 {
			t.Fatalf("after bob's lease expired: %+v, %v", st, err)
		}
		_, err = h.B.AppendEntry(ctx, id, 3, entry(api.KindAnswer, "rb", "too late"))
		wantCode(t, err, 409, api.CodeLeaseRequired)
		// Bob's run asks again: it queues behind alice.
		if st := mustLease(t, h.B, id, "rb"); st.Granted || st.Position != 2 {
			t.Fatalf("bob again: %+v", st)
		}
		mustAppend(t, c, id, 3, entry(api.KindPrompt, "rc", "carol"))
		// Carol's run ends: alice's turn.
		if st, err := c.ReleaseLease(ctx, id, "rc"); err != nil || st.Lease == nil || st.Lease.RunID != "ra" {
			t.Fatalf("after carol's release: %+v, %v", st, err)
		}
		// Carol cannot end alice's run; the owner can end bob's place.
		if st, err := c.ReleaseLease(ctx, id, "ra"); err != nil || st.Lease == nil || st.Lease.RunID != "ra" {
			t.Fatalf("carol ends alice's run: %+v, %v", st, err)
		}
		if st, err := h.A.ReleaseLease(ctx, id, "rb"); err != nil || len(st.Queue) != 0 {
			t.Fatalf("the owner takes bob out of the queue: %+v, %v", st, err)
		}
		// A run id is its member's.
		_, err = c.RequestLease(ctx, id, "ra", "")
		wantCode(t, err, 400, api.CodeBadRequest)
		// Removing a member ends its lease and its place in the queue.
		mustLease(t, c, id, "rc2")
		if err := h.A.RemoveMember(ctx, id, "alice", sealed("x")); err == nil {
			t.Fatal("the owner removed itself")
		}
		if _, err := h.A.ReleaseLease(ctx, id, "ra"); err != nil {
			t.Fatal(err)
		}
		if err := h.A.RemoveMember(ctx, id, "carol", sealed("carol out")); err != nil {
			t.Fatal(err)
		}
		if st, err := h.A.LeaseState(ctx, id); err != nil || st.Lease != nil || len(st.Queue) != 0 {
			t.Fatalf("after carol's removal: %+v, %v", st, err)
		}
	}, func(c *controlplane.Config) { c.LeaseTTL = ttl })
}

// Compare-and-append under concurrent appenders: every entry lands once,
// the seqs have no gap and no duplicate, a loser learns the head.
func TestSharedCompareAndAppendConflicts(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		id := shareOf(t, h, "cas")
		_, err := h.A.AppendEntry(ctx, id, 2, entry(api.KindComment, "", "a gap"))
		if ae := wantCode(t, err, 409, api.CodeConflict); ae.Head == nil || *ae.Head != 0 {
			t.Fatalf("conflict without the head: %+v", ae)
		}
		const writers, each = 4, 15
		clients := []*api.Client{h.A}
		for i := 1; i < writers; i++ {
			clients = append(clients, member(t, h, id, fmt.Sprintf("w%d", i), api.RoleCommenter))
		}
		var (
			wg        sync.WaitGroup
			conflicts sync.Map
		)
		for w, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				next := int64(1)
				for i := 0; i < each; {
					_, err := c.AppendEntry(context.Background(), id, next, entry(api.KindComment, "", fmt.Sprintf("w%d-%d", w, i)))
					var ae *api.Error
					switch {
					case err == nil:
						i++
						next++
					case asAPIError(err, &ae) && ae.Code == api.CodeConflict && ae.Head != nil:
						conflicts.Store(w, true)
						next = *ae.Head + 1
					default:
						t.Errorf("writer %d: %v", w, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		seen := map[string]bool{}
		var all []api.Entry
		for after := int64(0); ; {
			page, err := h.A.Entries(ctx, id, after, 7)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, page.Entries...)
			if !page.More {
				break
			}
			after = page.Entries[len(page.Entries)-1].Seq
		}
		if len(all) != writers*each {
			t.Fatalf("%d entries; want %d", len(all), writers*each)
		}
		for i, e := range all {
			if e.Seq != int64(i+1) {
				t.Fatalf("entry %d has seq %d", i, e.Seq)
			}
			if seen[string(e.Ciphertext)] {
				t.Fatalf("entry %q twice", e.Ciphertext)
			}
			seen[string(e.Ciphertext)] = true
		}
		_, err = h.A.AppendEntry(ctx, id, 5, entry(api.KindComment, "", "over an existing one"))
		if ae := wantCode(t, err, 409, api.CodeConflict); *ae.Head != writers*each {
			t.Fatalf("head %d", *ae.Head)
		}
	})
}

func asAPIError(err error, ae **api.Error) bool {
	e, ok := err.(*api.Error)
	*ae = e
	return ok
}

// Size limits: a ciphertext or a statement over its limit is 413; bad
// metadata is 400 naming the field.
func TestSharedLimits(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		id := shareOf(t, h, "big")
		big := entry(api.KindComment, "", "")
		big.Ciphertext = bytes.Repeat([]byte{7}, 1<<20+1)
		_, err := h.A.AppendEntry(ctx, id, 1, big)
		wantCode(t, err, 413, api.CodeTooLarge)
		big.Ciphertext = big.Ciphertext[:1<<20]
		mustAppend(t, h.A, id, 1, big)
		_, err = h.A.SetMember(ctx, id, "bob", api.RoleViewer, bytes.Repeat([]byte{1}, 64<<10+1))
		wantCode(t, err, 413, api.CodeTooLarge)
		for name, req := range map[string]api.AppendEntryRequest{
			"epoch":        {Epoch: 0, Kind: api.KindComment, AuthorDevice: "d", Ciphertext: []byte("x")},
			"kind":         {Epoch: 1, Kind: "telemetry", AuthorDevice: "d", Ciphertext: []byte("x")},
			"authorDevice": {Epoch: 1, Kind: api.KindComment, AuthorDevice: "a/b", Ciphertext: []byte("x")},
			"runId":        {Epoch: 1, Kind: api.KindPrompt, AuthorDevice: "d", Ciphertext: []byte("x")},
			"ciphertext":   {Epoch: 1, Kind: api.KindComment, AuthorDevice: "d"},
		} {
			_, err := h.A.AppendEntry(ctx, id, 2, req)
			if ae := wantCode(t, err, 400, api.CodeBadRequest); !strings.Contains(ae.Message, name) {
				t.Fatalf("%s: %s", name, ae.Message)
			}
		}
		for _, p := range []string{"entries/0", "entries/x", "entries/-1"} {
			if st, _, b := h.raw(http.MethodPut, "/v1/sessions/"+id+"/"+p, h.tokenA, []byte(`{}`)); st != 400 {
				t.Fatalf("PUT %s: %d %s", p, st, b)
			}
		}
		if st, _, b := h.raw(http.MethodGet, "/v1/sessions/"+id+"/entries?after=-1", h.tokenA, nil); st != 400 {
			t.Fatalf("after=-1: %d %s", st, b)
		}
		if st, hd, _ := h.raw(http.MethodPost, "/v1/sessions/"+id+"/entries/1", h.tokenA, nil); st != 405 || hd.Get("Allow") != "PUT" {
			t.Fatalf("POST an entry: %d %v", st, hd)
		}
		// A page of entries stays a few MiB: a big log comes in pages.
		for i := 2; i <= 12; i++ {
			mustAppend(t, h.A, id, int64(i), big)
		}
		page, err := h.A.Entries(ctx, id, 0, 0)
		if err != nil || !page.More || len(page.Entries) == 0 || len(page.Entries) >= 12 {
			t.Fatalf("a page of 12 MiB: %d entries, more %v, %v", len(page.Entries), page.More, err)
		}
	})
}

// Lease requests, releases, appends and membership changes at once, on
// one session: no store failure (no deadlock between them on
// PostgreSQL), one lease at a time, and every entry of a run was
// appended by the lease's holder.
func TestSharedConcurrentLeaseAndMembers(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		id := shareOf(t, h, "busy")
		eds := []*api.Client{member(t, h, id, "e1", api.RoleEditor), member(t, h, id, "e2", api.RoleEditor), member(t, h, id, "e3", api.RoleEditor)}
		h.addUser("flip")
		var wg sync.WaitGroup
		fail := func(who string, err error) {
			var ae *api.Error
			if !asAPIError(err, &ae) || ae.Status >= 500 {
				t.Errorf("%s: %v", who, err)
			}
		}
		for i, c := range eds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx := context.Background()
				run := fmt.Sprintf("run-e%d", i+1)
				for range 15 {
					st, err := c.RequestLease(ctx, id, run, "")
					if err != nil {
						fail(run, err)
						return
					}
					if st.Granted {
						page, err := c.Entries(ctx, id, 0, 1)
						if err != nil {
							fail(run, err)
							return
						}
						if _, err := c.AppendEntry(ctx, id, page.Head+1, entry(api.KindPrompt, run, run)); err != nil && api.ErrorCode(err) != api.CodeConflict {
							fail(run, err)
						}
						if _, err := c.ReleaseLease(ctx, id, run); err != nil {
							fail(run, err)
						}
					}
				}
				c.ReleaseLease(ctx, id, run)
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			for i := range 15 {
				role := []string{api.RoleEditor, api.RoleViewer, api.RoleCommenter}[i%3]
				if _, err := h.A.SetMember(ctx, id, "flip", role, sealed(role)); err != nil {
					fail("owner", err)
				}
				if i%5 == 4 {
					if err := h.A.RemoveMember(ctx, id, "flip", sealed("out")); err != nil {
						fail("owner", err)
					}
				}
			}
		}()
		wg.Wait()
		st, err := h.A.LeaseState(t.Context(), id)
		if err != nil || st.Lease != nil || len(st.Queue) != 0 {
			t.Fatalf("after every run released: %+v, %v", st, err)
		}
		page, err := h.A.Entries(t.Context(), id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entries {
			if string(e.Ciphertext) != string(sealed(e.RunID)) || "run-"+e.Actor != e.RunID {
				t.Fatalf("entry %d: run %s by %s", e.Seq, e.RunID, e.Actor)
			}
		}
		if len(page.Entries) == 0 {
			t.Fatal("no run ever got the lease")
		}
	})
}
