package controlplane_test

import (
	"net/http"
	"testing"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// On PostgreSQL the rate limits hold across the servers on the database:
// a token's burst taken partly through one server and partly through
// another is used up once, and so is an address's allowance of failed
// authentications; the buckets refill with time for all servers.
func TestRateLimitSharedAcrossServers(t *testing.T) {
	limits := func(c *controlplane.Config) { c.RatePerSecond, c.Burst, c.FailedAuthPerMinute = 0.001, 3, 3 }
	h := newHarness(t, "postgres", limits)
	other := &harness{t: t, kind: h.kind, db: h.db, clock: h.clock, logs: &syncBuffer{}, opts: h.opts}
	other.start()
	t.Cleanup(other.stop)
	a2 := &api.Client{BaseURL: other.srv.URL, Token: h.tokenA}
	ctx := t.Context()

	for i, c := range []*api.Client{h.A, a2, h.A} {
		if _, err := c.Me(ctx); err != nil {
			t.Fatalf("request %d of the burst: %v", i+1, err)
		}
	}
	for _, c := range []*api.Client{a2, h.A} {
		_, err := c.Me(ctx)
		if ae := wantCode(t, err, 429, api.CodeRateLimited); ae.RetryAfter < time.Second {
			t.Fatalf("Retry-After %v", ae.RetryAfter)
		}
	}
	if _, err := (&api.Client{BaseURL: other.srv.URL, Token: h.tokenB}).Me(ctx); err != nil {
		t.Fatalf("B limited by A's burst: %v", err)
	}

	bad := func(srv string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv+"/v1/me", nil)
		req.Header.Set("Authorization", "Bearer mnote_guess")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i, srv := range []string{h.srv.URL, other.srv.URL, h.srv.URL} {
		if st := bad(srv); st != 401 {
			t.Fatalf("bad token %d: %d", i+1, st)
		}
	}
	if st := bad(other.srv.URL); st != 429 {
		t.Fatalf("4th bad token, through the other server: %d, want 429", st)
	}

	h.clock.advance(time.Hour)
	if _, err := a2.Me(ctx); err != nil {
		t.Fatalf("an hour later: %v", err)
	}
	if st := bad(h.srv.URL); st != 401 {
		t.Fatalf("a bad token an hour later: %d", st)
	}
}
