package controlplane_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// Every /v1 call without a valid bearer token is 401 — missing, empty,
// another scheme, unknown, or revoked — and does nothing.
func TestUnauthorized(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		s := mustPut(t, h.A, rec("auth-1", 1))
		sh := mustShare(t, h.A, s.ID, snapshot("x"))
		revoked, hash, _ := controlplane.NewToken()
		if _, err := h.store.AddToken(ctx, h.userA.ID, hash, time.Now()); err != nil {
			t.Fatal(err)
		}
		mustPut(t, &api.Client{BaseURL: h.srv.URL, Token: revoked}, rec("auth-2", 1))
		if _, err := h.store.RevokeToken(ctx, hash, time.Now()); err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(rec(s.ID, 5))
		calls := []struct{ method, path string }{
			{"GET", "/v1/me"}, {"GET", "/v1/sessions"}, {"GET", "/v1/sessions/" + s.ID},
			{"PUT", "/v1/sessions/" + s.ID}, {"DELETE", "/v1/sessions/" + s.ID},
			{"POST", "/v1/shares"}, {"GET", "/v1/shares"}, {"DELETE", "/v1/shares/" + sh.ID},
			{"POST", "/v1/shares/" + sh.Token + "/copy"},
		}
		for _, c := range calls {
			for _, auth := range []string{"", "Bearer", "Bearer ", "Basic " + h.tokenA, "Bearer " + h.tokenA + "x", "Bearer mnote_AAAA", "Bearer " + revoked, h.tokenA} {
				req, _ := http.NewRequest(c.method, h.srv.URL+c.path, bytes.NewReader(body))
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var e api.ErrorBody
				json.NewDecoder(resp.Body).Decode(&e)
				resp.Body.Close()
				if resp.StatusCode != 401 || e.Error.Code != api.CodeUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("%s %s with Authorization %q: %d %+v; want 401 unauthorized", c.method, c.path, auth, resp.StatusCode, e)
				}
			}
		}
		if got, err := h.A.GetSession(ctx, s.ID); err != nil || got.Version != 1 {
			t.Fatalf("after the refused calls: %+v, %v", got, err)
		}
		_, err := (&api.Client{BaseURL: h.srv.URL, Token: revoked}).Me(ctx)
		wantCode(t, err, 401, api.CodeUnauthorized)
	}, func(c *controlplane.Config) { c.FailedAuthPerMinute = -1 }) // 72 bad tokens: TestFailedAuthRateLimit
}

// Bodies over the limits are 413, with or without a Content-Length, and
// store nothing.
func TestTooLarge(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		big := rec("big-1", 1)
		big.Title = strings.Repeat("x", 16<<10)
		b, _ := json.Marshal(big)
		st, _, out := h.raw(http.MethodPut, "/v1/sessions/big-1", h.tokenA, b)
		if st != 413 || !strings.Contains(string(out), api.CodeTooLarge) {
			t.Fatalf("17 KiB PUT: %d %s", st, out)
		}
		_, err := h.A.PutSession(ctx, big)
		wantCode(t, err, 413, api.CodeTooLarge)
		// Chunked: the server finds out while reading.
		req, _ := http.NewRequest(http.MethodPut, h.srv.URL+"/v1/sessions/big-1", io.MultiReader(bytes.NewReader(b), strings.NewReader("")))
		req.ContentLength = -1
		req.Header.Set("Authorization", "Bearer "+h.tokenA)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 413 {
			t.Fatalf("chunked 17 KiB PUT: %d", resp.StatusCode)
		}
		_, err = h.A.GetSession(ctx, "big-1")
		wantCode(t, err, 404, api.CodeNotFound)

		mustPut(t, h.A, rec("big-2", 1))
		snap := snapshot("huge")
		snap.Entries = append(snap.Entries, api.ShareEntry{Kind: api.EntryAssistant, Text: strings.Repeat("y", 5<<20)})
		_, err = h.A.CreateShare(ctx, api.CreateShareRequest{SessionID: "big-2", Snapshot: snap})
		wantCode(t, err, 413, api.CodeTooLarge)
		if shares, err := h.A.ListShares(ctx); err != nil || len(shares) != 0 {
			t.Fatalf("shares after a 413: %d, %v", len(shares), err)
		}
		// Just under the limit is fine.
		snap.Entries[len(snap.Entries)-1].Text = strings.Repeat("y", 4<<20)
		mustShare(t, h.A, "big-2", snap)
	})
}

// Malformed JSON and bad fields are 400 with a message naming the
// problem, and store nothing.
func TestBadRequests(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		good := func(mod func(m map[string]any)) []byte {
			var m map[string]any
			b, _ := json.Marshal(rec("bad-1", 1))
			json.Unmarshal(b, &m)
			mod(m)
			b, _ = json.Marshal(m)
			return b
		}
		cases := []struct {
			name, path string
			body       []byte
			want       string // in the message
		}{
			{"malformed", "/v1/sessions/bad-1", []byte(`{"id":"bad-1",`), "malformed JSON"},
			{"syntax", "/v1/sessions/bad-1", []byte(`{"id":'bad-1'}`), "malformed JSON at byte"},
			{"two values", "/v1/sessions/bad-1", append(good(func(map[string]any) {}), []byte(` {}`)...), "single JSON value"},
			{"array", "/v1/sessions/bad-1", []byte(`[]`), "must be a JSON object"},
			{"empty", "/v1/sessions/bad-1", []byte(``), "empty"},
			{"not utf-8", "/v1/sessions/bad-1", []byte("{\"title\":\"\xff\xfe\"}"), "UTF-8"},
			{"unknown field", "/v1/sessions/bad-1", good(func(m map[string]any) { m["color"] = "red" }), `"color"`},
			{"version type", "/v1/sessions/bad-1", good(func(m map[string]any) { m["version"] = "2" }), `"version"`},
			{"version zero", "/v1/sessions/bad-1", good(func(m map[string]any) { m["version"] = 0 }), `"version"`},
			{"version fraction", "/v1/sessions/bad-1", good(func(m map[string]any) { m["version"] = 1.5 }), `"version"`},
			{"status", "/v1/sessions/bad-1", good(func(m map[string]any) { m["status"] = "sleeping" }), `"status"`},
			{"createdAt", "/v1/sessions/bad-1", good(func(m map[string]any) { m["createdAt"] = "yesterday" }), `"createdAt"`},
			{"updatedAt missing", "/v1/sessions/bad-1", good(func(m map[string]any) { delete(m, "updatedAt") }), `"updatedAt"`},
			{"workspace path", "/v1/sessions/bad-1", good(func(m map[string]any) { m["workspaceId"] = "/home/me/notes" }), `"workspaceId"`},
			{"negative turns", "/v1/sessions/bad-1", good(func(m map[string]any) { m["turns"] = -1 }), `"turns"`},
			{"id mismatch", "/v1/sessions/bad-1", good(func(m map[string]any) { m["id"] = "other" }), `"id"`},
			{"path id", "/v1/sessions/bad%20id", good(func(m map[string]any) { m["id"] = "" }), "session id"},
			{"long path id", "/v1/sessions/" + strings.Repeat("a", 65), good(func(m map[string]any) { m["id"] = "" }), "session id"},
			{"share no snapshot", "/v1/shares", []byte(`{"sessionId":"bad-1"}`), `"snapshot"`},
			{"share entry kind", "/v1/shares", []byte(`{"sessionId":"bad-1","snapshot":{"title":"t","runtime":"r","createdAt":"2026-01-01T00:00:00Z","entries":[{"kind":"html","text":"x"}]}}`), `entries[0].kind`},
			{"share entry field", "/v1/shares", []byte(`{"sessionId":"bad-1","snapshot":{"title":"t","runtime":"r","createdAt":"2026-01-01T00:00:00Z","entries":[{"kind":"user","text":"x","html":"<b>"}]}}`), `"html"`},
			{"share createdAt", "/v1/shares", []byte(`{"sessionId":"bad-1","snapshot":{"title":"t","runtime":"r","createdAt":12,"entries":[]}}`), `"createdAt"`},
			{"share expiresAt", "/v1/shares", []byte(`{"sessionId":"bad-1","snapshot":{"title":"t","runtime":"r","createdAt":"2026-01-01T00:00:00Z","entries":[]},"expiresAt":"soon"}`), `"expiresAt"`},
		}
		for _, c := range cases {
			method := http.MethodPut
			if c.path == "/v1/shares" {
				method = http.MethodPost
			}
			st, _, out := h.raw(method, c.path, h.tokenA, c.body)
			var e api.ErrorBody
			json.Unmarshal(out, &e)
			if st != 400 || e.Error.Code != api.CodeBadRequest || !strings.Contains(e.Error.Message, c.want) {
				t.Errorf("%s: %d %s; want 400 bad_request mentioning %s", c.name, st, out, c.want)
			}
		}
		if page, err := h.A.ListSessions(t.Context(), 0, ""); err != nil || len(page.Sessions) != 0 {
			t.Fatalf("bad requests stored %d sessions, %v", len(page.Sessions), err)
		}
		for _, q := range []string{"limit=0", "limit=-3", "limit=ten", "cursor=!!", "cursor=" + "bm90LWEtY3Vyc29y"} {
			if st, _, out := h.raw(http.MethodGet, "/v1/sessions?"+q, h.tokenA, nil); st != 400 {
				t.Errorf("list ?%s: %d %s; want 400", q, st, out)
			}
		}
		if st, hdr, out := h.raw(http.MethodPatch, "/v1/sessions/bad-1", h.tokenA, nil); st != 405 || hdr.Get("Allow") != "GET, PUT, DELETE" {
			t.Errorf("PATCH: %d %s, Allow %q", st, out, hdr.Get("Allow"))
		}
		if st, _, out := h.raw(http.MethodGet, "/v2/anything", h.tokenA, nil); st != 404 || !strings.Contains(string(out), api.CodeNotFound) {
			t.Errorf("unknown path: %d %s", st, out)
		}
	})
}

// Versions: higher replaces, equal changes nothing, lower is 409 stale
// with the stored record.
func TestVersionRules(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		first := mustPut(t, h.A, rec("ver-1", 1))
		if first != rec("ver-1", 1) {
			t.Fatalf("stored %+v; want what was sent", first)
		}
		v3 := rec("ver-1", 3)
		v3.Title = "third"
		v3.Status = api.StatusEnded
		got := mustPut(t, h.A, v3)
		if got != v3 {
			t.Fatalf("v3 stored as %+v", got)
		}
		same := rec("ver-1", 3)
		same.Title = "a different third"
		if got := mustPut(t, h.A, same); got != v3 {
			t.Fatalf("equal version changed the record: %+v", got)
		}
		_, err := h.A.PutSession(ctx, rec("ver-1", 2))
		ae := wantCode(t, err, 409, api.CodeStale)
		if ae.Session == nil || *ae.Session != v3 {
			t.Fatalf("stale answer carries %+v; want %+v", ae.Session, v3)
		}
		// The id may be left out of the body.
		b, _ := json.Marshal(rec("ver-1", 4))
		var m map[string]any
		json.Unmarshal(b, &m)
		delete(m, "id")
		delete(m, "title")
		b, _ = json.Marshal(m)
		if st, _, out := h.raw(http.MethodPut, "/v1/sessions/ver-1", h.tokenA, b); st != 200 || strings.Contains(string(out), `"title"`) {
			t.Fatalf("PUT without id and title: %d %s", st, out)
		}
		// Nanosecond times and other zones come back as the same instant.
		odd := rec("ver-2", 1)
		odd.UpdatedAt = time.Date(2026, 5, 6, 7, 8, 9, 123456789, time.FixedZone("X", 5*3600+1800))
		got = mustPut(t, h.A, odd)
		if !got.UpdatedAt.Equal(odd.UpdatedAt) || got.UpdatedAt.Location() != time.UTC {
			t.Fatalf("updatedAt %v; want %v in UTC", got.UpdatedAt, odd.UpdatedAt)
		}
		if err := h.A.DeleteSession(ctx, "ver-1"); err != nil {
			t.Fatal(err)
		}
		wantCode(t, h.A.DeleteSession(ctx, "ver-1"), 404, api.CodeNotFound)
		// A deleted id can be used again, from version 1.
		mustPut(t, h.A, rec("ver-1", 1))
	})
}

// Pagination: newest updatedAt first (ties by id), every record exactly
// once across pages, stable under ties; limit default 100, capped at 1000.
func TestListPagination(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var want []string
		for i := range 130 {
			r := rec(fmt.Sprintf("p-%03d", i), 1)
			r.UpdatedAt = base.Add(time.Duration(i/3) * time.Second) // groups of 3 share a time
			mustPut(t, h.A, r)
			want = append(want, r.ID)
		}
		mustPut(t, h.B, rec("b-not-listed", 1))
		slices.SortFunc(want, func(a, b string) int { return strings.Compare(b, a) }) // ids rise with time here
		var got []string
		cursor := ""
		pages := 0
		for {
			page, err := h.A.ListSessions(ctx, 7, cursor)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if len(page.Sessions) > 7 {
				t.Fatalf("page of %d with limit 7", len(page.Sessions))
			}
			for _, s := range page.Sessions {
				got = append(got, s.ID)
			}
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
		}
		if !slices.Equal(got, want) || pages != 19 {
			t.Fatalf("%d pages listed %v\nwant %v", pages, got, want)
		}
		page, err := h.A.ListSessions(ctx, 0, "")
		if err != nil || len(page.Sessions) != 100 || page.NextCursor == "" {
			t.Fatalf("default page: %d sessions, cursor %q, %v; want 100 and a cursor", len(page.Sessions), page.NextCursor, err)
		}
		page, err = h.A.ListSessions(ctx, 5000, "")
		if err != nil || len(page.Sessions) != 130 || page.NextCursor != "" {
			t.Fatalf("limit 5000: %d sessions, cursor %q, %v", len(page.Sessions), page.NextCursor, err)
		}
	})
}

// A burst over a token's limit is 429 with Retry-After; other tokens are
// not affected.
func TestRateLimit(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		for i := range 3 {
			if _, err := h.A.Me(ctx); err != nil {
				t.Fatalf("request %d of the burst: %v", i+1, err)
			}
		}
		_, err := h.A.PutSession(ctx, rec("rl-1", 1))
		ae := wantCode(t, err, 429, api.CodeRateLimited)
		if ae.RetryAfter < time.Second {
			t.Fatalf("Retry-After %v; want >= 1 s", ae.RetryAfter)
		}
		if _, err := h.B.Me(ctx); err != nil {
			t.Fatalf("B limited by A's burst: %v", err)
		}
		// The refused PUT stored nothing (B cannot see A's anyway; ask
		// the store).
		if _, err := h.store.GetSession(ctx, h.userA.ID, "rl-1"); !errors.Is(err, controlplane.ErrNotFound) {
			t.Fatalf("a 429 PUT stored something: %v", err)
		}
		// The share page is not rate limited by tokens.
		if st, _, _ := h.raw(http.MethodGet, "/s/"+strings.Repeat("b", 43), "", nil); st != 404 {
			t.Fatalf("page: %d", st)
		}
	}, func(c *controlplane.Config) { c.RatePerSecond, c.Burst = 0.001, 3 })
}

// The access log has a line per request with route, status and user, and
// never a bearer token, a share token, or anything from a body.
func TestAccessLogKeepsSecretsOut(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		r := rec("log-1", 1)
		r.Title = "secret-title-text"
		mustPut(t, h.A, r)
		snap := snapshot("secret-snapshot-title")
		sh := mustShare(t, h.A, r.ID, snap)
		h.raw(http.MethodGet, path(t, sh.URL), "", nil)
		if _, err := h.B.CopyShare(ctx, sh.Token); err != nil {
			t.Fatal(err)
		}
		h.raw(http.MethodGet, "/v1/me", "wrong-token-value", nil)
		h.raw(http.MethodGet, "/v1/sessions?cursor=secret-cursor", h.tokenA, nil)
		logs := h.logs.String()
		for _, secret := range []string{h.tokenA, h.tokenB, sh.Token, "wrong-token-value", "secret-title-text", "secret-snapshot-title", "Tidy up", "secret-cursor"} {
			if strings.Contains(logs, secret) {
				t.Fatalf("the log holds %q:\n%s", secret, logs)
			}
		}
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("log line %q: %v", l, err)
			}
			if m["msg"] == "request" {
				lines = append(lines, m)
			}
		}
		if len(lines) != 6 {
			t.Fatalf("%d request lines; want 6:\n%s", len(lines), logs)
		}
		if l := lines[2]; l["route"] != "GET /s/{token}" || l["status"] != float64(200) || l["user"] != nil {
			t.Fatalf("page line %v", l)
		}
		if l := lines[0]; l["route"] != "PUT /v1/sessions/{id}" || l["user"] != h.userA.ID || l["method"] != "PUT" {
			t.Fatalf("PUT line %v", l)
		}
		if l := lines[4]; l["status"] != float64(401) {
			t.Fatalf("401 line %v", l)
		}
	})
}

// /healthz answers 200 while the store answers; /v1/me names the token's
// user.
func TestHealthzAndMe(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		if st, _, b := h.raw(http.MethodGet, "/healthz", "", nil); st != 200 {
			t.Fatalf("healthz: %d %s", st, b)
		}
		me, err := h.B.Me(t.Context())
		if err != nil || me.ID != h.userB.ID || me.Name != "bob" {
			t.Fatalf("me: %+v, %v", me, err)
		}
	})
}

// Opening a store again (a second server, a restart) finds the schema in
// place; two servers migrating one new database at once both succeed.
func TestMigrationsAreIdempotentAndConcurrent(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			db := newDB(t, kind)
			errs := make(chan error, 4)
			for range 4 {
				go func() {
					st, err := controlplane.Open(context.Background(), db)
					if err == nil {
						err = st.Ping(context.Background())
						st.Close()
					}
					errs <- err
				}()
			}
			for range 4 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// Open refuses what is not a database, with an error that says so.
func TestOpenErrors(t *testing.T) {
	ctx := t.Context()
	if _, err := controlplane.Open(ctx, ""); err == nil || !strings.Contains(err.Error(), "--db") {
		t.Fatalf("empty: %v", err)
	}
	if _, err := controlplane.Open(ctx, "sqlite:"+t.TempDir()+"/missing/dir/x.db"); err == nil || !strings.Contains(err.Error(), "folder") {
		t.Fatalf("missing folder: %v", err)
	}
	p := t.TempDir() + "/not-a-db"
	if err := writeFile(p, bytes.Repeat([]byte("not sqlite "), 1000)); err != nil {
		t.Fatal(err)
	}
	if _, err := controlplane.Open(ctx, p); err == nil {
		t.Fatal("opened a text file as a database")
	}
	if _, err := controlplane.Open(ctx, "postgres://nobody:secret-pw@127.0.0.1:1/x?connect_timeout=2"); err == nil || strings.Contains(err.Error(), "secret-pw") {
		t.Fatalf("unreachable PostgreSQL: %v (must fail without showing the password)", err)
	}
}
