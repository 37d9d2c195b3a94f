package controlplane_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"mnote/controlplane/pgtest"
)

func TestMain(m *testing.M) {
	// Store failures are logged at error level on purpose in some tests;
	// keep the output to warnings and worse.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	code := m.Run()
	if sharedPG.srv != nil {
		sharedPG.srv.Close()
	}
	os.Exit(code)
}

// sharedPG is one PostgreSQL server for the whole test binary, started on
// first use; each test gets a database of its own in it.
var sharedPG struct {
	once sync.Once
	srv  *pgtest.Server
	err  error
	n    atomic.Int64
}

// requirePostgres skips t when PostgreSQL is not installed, or fails it
// when MNOTE_REQUIRE_POSTGRES=1 (make test sets it).
func requirePostgres(t testing.TB) { t.Helper(); pgtest.Require(t) }

// newPostgresDB returns the URL of a new, empty database on the shared
// server.
func newPostgresDB(t testing.TB) string {
	t.Helper()
	requirePostgres(t)
	sharedPG.once.Do(func() {
		sharedPG.srv, sharedPG.err = pgtest.Start(context.Background(), pgtest.Options{})
	})
	if sharedPG.err != nil {
		t.Fatalf("start PostgreSQL: %v", sharedPG.err)
	}
	url, err := sharedPG.srv.CreateDB(t.Context(), fmt.Sprintf("cp_%d", sharedPG.n.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	return url
}
