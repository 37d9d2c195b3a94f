package controlplane_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// Invariant 1: A's sessions are invisible to B — list, get, delete,
// share, copy — and B's 404 for A's session reads exactly like the 404 for
// a session that does not exist.
func TestInvariant1SessionsArePrivate(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		orig := mustPut(t, h.A, rec("a-private-1", 3))
		share := mustShare(t, h.A, orig.ID, snapshot("A's share"))

		page, err := h.B.ListSessions(ctx, 0, "")
		if err != nil || len(page.Sessions) != 0 {
			t.Fatalf("B lists %v, %v; want nothing", page.Sessions, err)
		}
		_, err = h.B.GetSession(ctx, orig.ID)
		wantCode(t, err, 404, api.CodeNotFound)
		wantCode(t, h.B.DeleteSession(ctx, orig.ID), 404, api.CodeNotFound)
		_, err = h.B.CreateShare(ctx, api.CreateShareRequest{SessionID: orig.ID, Snapshot: snapshot("stolen")})
		wantCode(t, err, 404, api.CodeNotFound)
		shares, err := h.B.ListShares(ctx)
		if err != nil || len(shares) != 0 {
			t.Fatalf("B lists shares %v, %v; want none", shares, err)
		}
		wantCode(t, h.B.DeleteShare(ctx, share.ID), 404, api.CodeNotFound)
		// Copy takes a share's URL token: a session id or a share id
		// copies nothing.
		for _, notToken := range []string{orig.ID, share.ID} {
			_, err = h.B.CopyShare(ctx, notToken)
			wantCode(t, err, 404, api.CodeNotFound)
		}

		// The same answer for A's session and for no session at all.
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			st1, _, b1 := h.raw(m, "/v1/sessions/"+orig.ID, h.tokenB, nil)
			st2, _, b2 := h.raw(m, "/v1/sessions/no-such-session", h.tokenB, nil)
			if st1 != 404 || st1 != st2 || !bytes.Equal(b1, b2) {
				t.Fatalf("%s: A's session answers %d %s, a missing one %d %s", m, st1, b1, st2, b2)
			}
		}

		// A still has everything.
		got, err := h.A.GetSession(ctx, orig.ID)
		if err != nil || !reflect.DeepEqual(got, orig) {
			t.Fatalf("A's session after B's attempts: %+v, %v; want %+v", got, err, orig)
		}
		if shares, err := h.A.ListShares(ctx); err != nil || len(shares) != 1 || shares[0].ID != share.ID {
			t.Fatalf("A's shares after B's attempts: %+v, %v", shares, err)
		}
	})
}

// Invariant 2: B cannot overwrite A's session by reusing its id, with any
// version, and learns nothing more than from a 404.
func TestInvariant2NoOverwriteByReusedID(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		orig := mustPut(t, h.A, rec("shared-id-1", 2))
		for _, v := range []int64{1, 2, 3, 1 << 40} {
			evil := rec(orig.ID, v)
			evil.Title = "B was here"
			_, err := h.B.PutSession(ctx, evil)
			ae := wantCode(t, err, 404, api.CodeNotFound)
			if ae.Session != nil {
				t.Fatalf("B's failed PUT v%d reveals a record: %+v", v, ae.Session)
			}
		}
		got, err := h.A.GetSession(ctx, orig.ID)
		if err != nil || !reflect.DeepEqual(got, orig) {
			t.Fatalf("A's session: %+v, %v; want %+v", got, err, orig)
		}
		if page, err := h.B.ListSessions(ctx, 0, ""); err != nil || len(page.Sessions) != 0 {
			t.Fatalf("B lists %+v, %v", page.Sessions, err)
		}
		// A keeps writing as usual.
		mustPut(t, h.A, rec(orig.ID, 3))
	})
}

// hostile entry texts: none of them may become markup on the page.
var hostile = []string{
	`<script>alert("x")</script>`,
	`<img src=x onerror="alert(1)">`,
	`</pre><script src="https://evil.example/x.js"></script>`,
	`<a href="javascript:alert(1)">click</a>`,
	"```html\n<iframe src=\"https://evil.example\"></iframe>\n```",
}

// Invariant 3: a share is the snapshot as sent (stored byte for byte, not
// the live session), its page escapes everything and forbids scripts by
// CSP, and a viewer can read it and do nothing else.
func TestInvariant3ShareIsReadOnlySnapshot(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		s := mustPut(t, h.A, rec("a-shared", 1))
		snap := snapshot(`Title </title><script>alert(2)</script>`)
		for _, x := range hostile {
			snap.Entries = append(snap.Entries,
				api.ShareEntry{Kind: api.EntryAssistant, Text: x},
				api.ShareEntry{Kind: api.EntryTool, Text: x, Title: x, ToolKind: x, Status: x})
		}
		// Odd but valid JSON layout, to check "byte for byte".
		snapJSON, _ := json.MarshalIndent(snap, "", "   ")
		body := []byte(`{"sessionId": "` + s.ID + `",` + "\n\t" + `"snapshot":  ` + string(snapJSON) + "\n}\n")
		st, _, out := h.raw(http.MethodPost, "/v1/shares", h.tokenA, body)
		if st != http.StatusCreated {
			t.Fatalf("create share: %d %s", st, out)
		}
		var share api.Share
		if err := json.Unmarshal(out, &share); err != nil {
			t.Fatal(err)
		}
		if share.Token == share.ID || len(share.Token) < 22 || !strings.HasSuffix(share.URL, "/s/"+share.Token) {
			t.Fatalf("share id %q, token %q, url %q: want an unguessable token distinct from the id, in the URL", share.ID, share.Token, share.URL)
		}
		stored, err := h.store.ShareByTokenHash(ctx, controlplane.HashToken(share.Token), time.Now())
		if err != nil || !bytes.Equal(stored.Snapshot, snapJSON) {
			t.Fatalf("stored snapshot (%d bytes) differs from the one sent (%d bytes); err %v", len(stored.Snapshot), len(snapJSON), err)
		}

		// The session changes afterwards; the share does not.
		later := rec(s.ID, 2)
		later.Title = "renamed later"
		mustPut(t, h.A, later)

		// The page: no token needed.
		st, hdr, page := h.raw(http.MethodGet, path(t, share.URL), "", nil)
		if st != 200 {
			t.Fatalf("page: %d %s", st, page)
		}
		// No source of any kind but inline CSS, data: images and the page's
		// one script, by its hash.
		if got := hdr.Get("Content-Security-Policy"); !regexp.MustCompile(`^default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-[A-Za-z0-9+/]{43}='$`).MatchString(got) {
			t.Fatalf("CSP %q", got)
		}
		if ct := hdr.Get("Content-Type"); ct != "text/html; charset=utf-8" || hdr.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("content type %q, nosniff %q", ct, hdr.Get("X-Content-Type-Options"))
		}
		lower := strings.ToLower(string(page))
		// The page's own script (its times), and no other.
		if strings.Count(lower, "<script") != 1 || !strings.Contains(lower, "\n<script>\nfor (const e of document.queryselectorall(\"time[datetime]\"))") {
			t.Fatalf("page has other scripts than its own:\n%s", page)
		}
		lower = strings.Replace(lower, "<script", "", 1)
		for _, bad := range []string{"<script", "<img", "<iframe", "<a ", "<link", "<object", "<embed", "<form", "renamed later"} {
			if strings.Contains(lower, bad) {
				t.Fatalf("page contains %q:\n%s", bad, page)
			}
		}
		// Every real tag of the page is ours: none loads or runs anything.
		for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(string(page), -1) {
			if regexp.MustCompile(`(?i)\s(src|href|on[a-z]+|action|formaction|srcdoc)\s*=`).MatchString(tag) {
				t.Fatalf("page has the tag %s", tag)
			}
		}
		for _, want := range []string{"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;", "&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;", "Tidy up <strong>todo.md</strong>"} {
			if !strings.Contains(string(page), want) {
				t.Fatalf("page lacks the escaped text %q:\n%s", want, page)
			}
		}
		if st, hdr, b := h.raw(http.MethodHead, path(t, share.URL), "", nil); st != 200 || len(b) != 0 || hdr.Get("Content-Security-Policy") == "" {
			t.Fatalf("HEAD: %d, %d bytes, CSP %q", st, len(b), hdr.Get("Content-Security-Policy"))
		}

		// A viewer can do nothing but read: no other method on /s/…,
		// with or without a token, and copy needs a valid token.
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
			for _, tok := range []string{"", h.tokenA, h.tokenB} {
				if st, _, b := h.raw(m, path(t, share.URL), tok, []byte(`{"snapshot":{"title":"defaced"}}`)); st != http.StatusMethodNotAllowed {
					t.Fatalf("%s %s: %d %s; want 405", m, share.URL, st, b)
				}
			}
		}
		for _, tok := range []string{"", "mnote_not-a-real-token"} {
			if st, _, b := h.raw(http.MethodPost, "/v1/shares/"+share.Token+"/copy", tok, nil); st != http.StatusUnauthorized {
				t.Fatalf("copy with token %q: %d %s; want 401", tok, st, b)
			}
		}
		again, err := h.store.ShareByTokenHash(ctx, controlplane.HashToken(share.Token), time.Now())
		if err != nil || !bytes.Equal(again.Snapshot, snapJSON) {
			t.Fatalf("share changed after the viewer's attempts: %v", err)
		}

		// Copy hands back the same snapshot.
		res, err := h.B.CopyShare(ctx, share.Token)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Snapshot, snap) {
			t.Fatalf("copy's snapshot differs:\n%+v\nwant\n%+v", res.Snapshot, snap)
		}
	})
}

// Invariant 4: copying a share makes a new session of the copier's:
// a new id, version 1, copiedFrom = the share id, the runtime as a label,
// nothing of the source's binding (no workspace, not the source's id).
func TestInvariant4CopyIsNewSessionOfCopier(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		src := mustPut(t, h.A, rec("a-source", 4))
		share := mustShare(t, h.A, src.ID, snapshot("to copy"))

		res, err := h.B.CopyShare(ctx, share.Token)
		if err != nil {
			t.Fatal(err)
		}
		c := res.Session
		if c.ID == src.ID || c.ID == "" || len(c.ID) > 64 || c.Version != 1 || c.CopiedFrom != share.ID {
			t.Fatalf("copy: %+v; want a new id, version 1, copiedFrom %s", c, share.ID)
		}
		if c.Runtime != "claude-code" || c.WorkspaceID != "" || c.Status != api.StatusIdle || c.Title != "to copy" {
			t.Fatalf("copy: %+v; want the runtime as a label, no workspace, idle, the snapshot's title", c)
		}
		if c.Turns != 1 || c.Messages != 2 || c.ToolCalls != 1 {
			t.Fatalf("copy counts %d/%d/%d; want those of the snapshot 1/2/1", c.Turns, c.Messages, c.ToolCalls)
		}
		got, err := h.B.GetSession(ctx, c.ID)
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Fatalf("B's copy: %+v, %v; want %+v", got, err, c)
		}
		_, err = h.A.GetSession(ctx, c.ID)
		wantCode(t, err, 404, api.CodeNotFound)
		_, err = h.A.PutSession(ctx, rec(c.ID, 9))
		wantCode(t, err, 404, api.CodeNotFound)
		if got, err := h.A.GetSession(ctx, src.ID); err != nil || !reflect.DeepEqual(got, src) {
			t.Fatalf("A's source after the copy: %+v, %v", got, err)
		}

		// B owns it: B's next version is accepted and copiedFrom stays
		// the server's (a PUT cannot change it).
		next := rec(c.ID, 2)
		next.CopiedFrom = "forged"
		put := mustPut(t, h.B, next)
		if put.CopiedFrom != share.ID || put.Version != 2 {
			t.Fatalf("B's PUT of the copy: %+v; want version 2, copiedFrom %s", put, share.ID)
		}
		// A second copy is another session.
		res2, err := h.B.CopyShare(ctx, share.Token)
		if err != nil || res2.Session.ID == c.ID {
			t.Fatalf("second copy: %+v, %v; want another id", res2.Session, err)
		}
		page, err := h.B.ListSessions(ctx, 0, "")
		if err != nil || len(page.Sessions) != 2 {
			t.Fatalf("B lists %d sessions, %v; want its 2 copies", len(page.Sessions), err)
		}
	})
}

// Invariant 5: a revoked or expired share is gone: its page is 404, it
// cannot be copied, it is not listed, and deleting its session takes its
// shares along.
func TestInvariant5RevokedOrExpiredShareIsGone(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		s := mustPut(t, h.A, rec("a-gone", 1))
		revoked := mustShare(t, h.A, s.ID, snapshot("revoked"))
		exp, err := h.A.CreateShare(ctx, api.CreateShareRequest{SessionID: s.ID, Snapshot: snapshot("expiring"), ExpiresAt: h.clock.now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if exp.ExpiresAt.IsZero() {
			t.Fatalf("share %+v: expiresAt lost", exp)
		}
		gone := func(sh api.Share, why string) {
			t.Helper()
			if st, hdr, b := h.raw(http.MethodGet, path(t, sh.URL), "", nil); st != 404 || hdr.Get("Content-Security-Policy") != controlplane.PageCSP || strings.Contains(string(b), sh.ID) {
				t.Fatalf("%s share page: %d (CSP %q)", why, st, hdr.Get("Content-Security-Policy"))
			}
			_, err := h.B.CopyShare(ctx, sh.Token)
			wantCode(t, err, 404, api.CodeNotFound)
			list, err := h.A.ListShares(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range list {
				if x.ID == sh.ID {
					t.Fatalf("%s share still listed", why)
				}
			}
		}
		live := func(sh api.Share) {
			t.Helper()
			if st, _, _ := h.raw(http.MethodGet, path(t, sh.URL), "", nil); st != 200 {
				t.Fatalf("share %s: page %d; want 200", sh.ID, st)
			}
		}
		live(revoked)
		live(exp)

		if err := h.A.DeleteShare(ctx, revoked.ID); err != nil {
			t.Fatal(err)
		}
		gone(revoked, "revoked")
		wantCode(t, h.A.DeleteShare(ctx, revoked.ID), 404, api.CodeNotFound)
		live(exp)

		h.clock.advance(2 * time.Hour)
		gone(exp, "expired")
		if n, err := h.store.PurgeExpired(ctx, h.clock.now()); err != nil || n != 1 {
			t.Fatalf("purge: %d, %v; want 1 share purged", n, err)
		}
		gone(exp, "purged")

		// Deleting the session deletes its shares.
		other := mustShare(t, h.A, s.ID, snapshot("with its session"))
		live(other)
		if err := h.A.DeleteSession(ctx, s.ID); err != nil {
			t.Fatal(err)
		}
		gone(other, "deleted session's")
		// Expiry in the past is refused at creation.
		mustPut(t, h.A, rec("a-gone-2", 1))
		_, err = h.A.CreateShare(ctx, api.CreateShareRequest{SessionID: "a-gone-2", Snapshot: snapshot("x"), ExpiresAt: h.clock.now().Add(-time.Minute)})
		wantCode(t, err, 400, api.CodeBadRequest)
	})
}

// Invariant 6: a body that names a user is refused (400, unknown field)
// and never acts as that user; headers naming a user are ignored.
func TestInvariant6UserComesFromTokenOnly(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		bSession := mustPut(t, h.B, rec("b-own", 1))
		for _, field := range []string{"owner", "userId", "user", "user_id", "ownerId"} {
			for _, who := range []string{h.userB.ID, h.userB.Name, h.userA.ID} {
				r := rec("named-"+strings.ToLower(field), 1)
				b, _ := json.Marshal(r)
				b = append(b[:len(b)-1], []byte(`,"`+field+`":"`+who+`"}`)...)
				st, _, out := h.raw(http.MethodPut, "/v1/sessions/"+r.ID, h.tokenA, b)
				var e api.ErrorBody
				json.Unmarshal(out, &e)
				if st != 400 || e.Error.Code != api.CodeBadRequest || !strings.Contains(e.Error.Message, `"`+field+`"`) {
					t.Fatalf("PUT with %q: %d %s; want 400 naming the field", field, st, out)
				}
				// A's own share of B's session, B named in the body.
				sb, _ := json.Marshal(map[string]any{"sessionId": bSession.ID, "snapshot": snapshot("x"), field: who})
				if st, _, out := h.raw(http.MethodPost, "/v1/shares", h.tokenA, sb); st != 400 {
					t.Fatalf("POST share with %q: %d %s; want 400", field, st, out)
				}
			}
		}
		if st, _, out := h.raw(http.MethodPost, "/v1/shares/"+strings.Repeat("a", 43)+"/copy", h.tokenA, []byte(`{"userId":"`+h.userB.ID+`"}`)); st != 400 {
			t.Fatalf("copy with a userId body: %d %s; want 400", st, out)
		}
		// Nothing was stored for anyone.
		for _, c := range []*api.Client{h.A, h.B} {
			page, err := c.ListSessions(ctx, 0, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range page.Sessions {
				if strings.HasPrefix(s.ID, "named-") {
					t.Fatalf("a refused PUT stored %s", s.ID)
				}
			}
		}
		// Without the field, A's share of B's session is 404, and headers
		// naming B change nothing.
		_, err := h.A.CreateShare(ctx, api.CreateShareRequest{SessionID: bSession.ID, Snapshot: snapshot("x")})
		wantCode(t, err, 404, api.CodeNotFound)
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+h.tokenA)
		for _, hd := range []string{"X-User", "X-User-Id", "X-Forwarded-User", "X-Remote-User"} {
			req.Header.Set(hd, h.userB.ID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var me api.Me
		json.NewDecoder(resp.Body).Decode(&me)
		resp.Body.Close()
		if me.ID != h.userA.ID || me.Name != "alice" {
			t.Fatalf("me with user headers: %+v; want alice %s", me, h.userA.ID)
		}
		if _, err := h.B.GetSession(ctx, bSession.ID); err != nil {
			t.Fatal(err)
		}
	})
}

// TestMultipleServersOneStore: two servers, each with its own connection
// to one database (two processes behind a load balancer), see each other's
// writes at once and keep the version rules between them.
func TestMultipleServersOneStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		other := &harness{t: t, kind: h.kind, db: h.db, clock: h.clock, logs: &syncBuffer{}}
		other.start()
		t.Cleanup(other.stop)
		a2 := &api.Client{BaseURL: other.srv.URL, Token: h.tokenA}

		mustPut(t, h.A, rec("lb-1", 1))
		mustPut(t, a2, rec("lb-1", 2))
		_, err := h.A.PutSession(ctx, rec("lb-1", 1))
		ae := wantCode(t, err, 409, api.CodeStale)
		if ae.Session == nil || ae.Session.Version != 2 {
			t.Fatalf("stale answer %+v; want the stored version 2", ae.Session)
		}
		sh := mustShare(t, a2, "lb-1", snapshot("via 2"))
		if st, _, _ := h.raw(http.MethodGet, path(t, sh.URL), "", nil); st != 200 {
			t.Fatalf("share made on server 2, page on server 1: %d", st)
		}
		if got, err := h.A.GetSession(context.Background(), "lb-1"); err != nil || got.Version != 2 {
			t.Fatalf("server 1 reads %+v, %v", got, err)
		}
	})
}
