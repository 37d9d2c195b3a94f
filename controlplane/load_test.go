package controlplane_test

import (
	"fmt"
	"testing"
	"time"

	"mnote/controlplane/loadgen"
)

// TestLoadSmall is the CI-sized load run (the full one is
// bench/controlplane/run.sh): 20 concurrent clients, each its own user,
// each upserting 50 times over 10 sessions, against a real server; then
// every client must see exactly its 10 records at their final versions.
func TestLoadSmall(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		var tokens []string
		for i := range 20 {
			_, tok := h.addUser(fmt.Sprintf("load-%02d", i))
			tokens = append(tokens, tok)
		}
		cfg := loadgen.Config{BaseURL: h.srv.URL, Tokens: tokens, PutsPerClient: 50, SessionsPerClient: 10, Prefix: "small"}
		res, err := loadgen.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 20*50 {
			t.Fatalf("%d PUTs answered; want %d", res.Requests, 20*50)
		}
		if err := loadgen.Verify(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		// And after a restart: every 200 was committed.
		h.restart()
		cfg.BaseURL = h.srv.URL
		if err := loadgen.Verify(ctx, cfg); err != nil {
			t.Fatalf("after restart: %v", err)
		}
		t.Logf("%s: %v", h.kind, res)
	})
}

// BenchmarkPut measures one client's PUT round trip (new version of one
// session each time) against a real loopback server, for each store. The
// test PostgreSQL runs with fsync off, SQLite with synchronous=FULL: for
// a fair comparison under load see bench/controlplane (fsync on for both).
func BenchmarkPut(b *testing.B) {
	for _, kind := range storeKinds {
		b.Run(kind, func(b *testing.B) {
			h := newHarness(b, kind)
			r := rec("bench-put", 1)
			b.ResetTimer()
			start := time.Now()
			for i := 0; b.Loop(); i++ {
				r.Version = int64(i + 1)
				if _, err := h.A.PutSession(b.Context(), r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "puts/s")
		})
	}
}
