package controlplane_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// A title or runtime with NUL, other control characters and a lone
// surrogate (JSON "\ud800") is stored normalized, the same on SQLite and
// on PostgreSQL (which refuses NUL in TEXT: a 500 on every retry before),
// and GET returns exactly what api.SessionRecord.Normalize makes of it.
func TestInvalidTextIsNormalized(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		r := rec("nul-1", 1)
		b, _ := json.Marshal(r)
		body := strings.Replace(string(b), `"title":"Notes cleanup"`, `"title":"a\u0000b\u0001c\ud800d\te\u007f"`, 1)
		body = strings.Replace(body, `"runtime":"claude-code"`, `"runtime":"claude\u0000code"`, 1)
		st, _, out := h.raw(http.MethodPut, "/v1/sessions/nul-1", h.tokenA, []byte(body))
		if st != 200 {
			t.Fatalf("PUT with NUL: %d %s", st, out)
		}
		got, err := h.A.GetSession(t.Context(), "nul-1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != "abc\uFFFDd\te" || got.Runtime != "claudecode" {
			t.Fatalf("stored title %q runtime %q", got.Title, got.Runtime)
		}
		want := r
		want.Title, want.Runtime = "a\x00b\x01c\uFFFDd\te\x7f", "claude\x00code" // as encoding/json decodes the body
		if want = want.Normalize(); got.Title != want.Title || got.Runtime != want.Runtime {
			t.Fatalf("the server's normalization is not api.Normalize: %q vs %q", got.Title, want.Title)
		}
		// A title over the limit is cut on a character boundary, as the
		// client cuts it.
		long := rec("long-1", 1)
		long.Title = strings.Repeat("é", 600) // 1200 bytes
		if got := mustPut(t, h.A, long); len(got.Title) != 1024 || got.Title != long.Normalize().Title {
			t.Fatalf("long title stored as %d bytes", len(got.Title))
		}

		// A share's snapshot is the client's JSON: copying one whose
		// title holds a NUL makes a session with the title normalized.
		mustPut(t, h.A, rec("nul-2", 1))
		snap, _ := json.Marshal(snapshot("x"))
		req := `{"sessionId":"nul-2","snapshot":` + strings.Replace(string(snap), `"title":"x"`, `"title":"sh\u0000are"`, 1) + `}`
		st, _, out = h.raw(http.MethodPost, "/v1/shares", h.tokenA, []byte(req))
		if st != 201 {
			t.Fatalf("share: %d %s", st, out)
		}
		var sh api.Share
		json.Unmarshal(out, &sh)
		cp, err := h.B.CopyShare(t.Context(), sh.Token)
		if err != nil {
			t.Fatalf("copy a share with a NUL title: %v", err)
		}
		if cp.Session.Title != "share" {
			t.Fatalf("copied title %q", cp.Session.Title)
		}
	})
}

// failingText is a real store whose PutSession first has PostgreSQL
// refuse a value (a NUL in text), as the store would for input the
// decoder let through.
type failingText struct {
	controlplane.Store
	pg *sql.DB
}

func (f failingText) PutSession(ctx context.Context, user string, r api.SessionRecord) (api.SessionRecord, error) {
	var s string
	if err := f.pg.QueryRowContext(ctx, "SELECT $1::text", "a\x00b").Scan(&s); err != nil {
		return api.SessionRecord{}, err
	}
	return f.Store.PutSession(ctx, user, r)
}

// What the store still refuses as a value is the client's 400 with the
// store's reason, not a 500 (which the client retries for ever).
func TestStoreDataErrorIs400(t *testing.T) {
	db := newPostgresDB(t)
	pg, err := sql.Open("pgx", db)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	h := &harness{t: t, kind: "postgres", db: db, clock: &clock{}, logs: &syncBuffer{},
		opts: []func(*controlplane.Config){func(c *controlplane.Config) { c.Store = failingText{Store: c.Store, pg: pg} }}}
	h.start()
	t.Cleanup(h.stop)
	h.userA, h.tokenA = h.addUser("carol")
	h.A = h.client(h.tokenA)
	_, err = h.A.PutSession(t.Context(), rec("x-1", 1))
	ae := wantCode(t, err, 400, api.CodeBadRequest)
	if !strings.Contains(ae.Message, "invalid byte sequence") {
		t.Fatalf("message %q does not say why", ae.Message)
	}
}

// Requests with a missing or bad token are limited per client address:
// after the bucket is used up they get 429 with Retry-After, while a good
// token from the same address still works (a hostile page sending junk
// tokens from the user's machine cannot lock the user out), another
// address is not affected, and the bucket refills with time.
func TestFailedAuthRateLimit(t *testing.T) {
	h := newHarness(t, "sqlite", func(c *controlplane.Config) { c.FailedAuthPerMinute = 3 })
	// Loopback is all of 127/8 on Linux: 127.0.0.2 is another client.
	from := func(ip string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	}
	do := func(c *http.Client, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, h.srv.URL+"/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}
	local := from("127.0.0.1")
	for i := range 3 {
		if st, _ := do(local, "mnote_guess"); st != 401 {
			t.Fatalf("bad token %d: %d, want 401", i, st)
		}
	}
	st, retry := do(local, "mnote_guess")
	if st != 429 || retry == "" || retry == "0" {
		t.Fatalf("4th bad token: %d Retry-After %q, want 429 with Retry-After", st, retry)
	}
	if st, _ := do(local, h.tokenA); st != 200 {
		t.Fatalf("good token after the bad ones: %d, want 200", st)
	}
	if st, _ := do(from("127.0.0.2"), "mnote_guess"); st != 401 {
		t.Fatalf("bad token from another address: %d, want 401", st)
	}
	h.clock.advance(time.Minute)
	if st, _ := do(local, "mnote_guess"); st != 401 {
		t.Fatalf("bad token a minute later: %d, want 401", st)
	}
}
