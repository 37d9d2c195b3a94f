package controlplane_test

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"mnote/controlplane/api"
	"mnote/controlplane/pgtest"
)

// adminDB opens a connection of the test's own to the harness's database,
// beside the server's.
func adminDB(t testing.TB, h *harness) *sql.DB {
	t.Helper()
	var (
		db  *sql.DB
		err error
	)
	if h.kind == "sqlite" {
		db, err = sql.Open("sqlite3", "file:"+strings.TrimPrefix(h.db, "sqlite:")+"?_busy_timeout=10000")
	} else {
		db, err = sql.Open("pgx", h.db)
	}
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// failureSQL returns the statements that make every insert and update of
// sessions and shares fail inside the store (a trigger raising an error),
// and those that undo it.
func failureSQL(kind string) (on, off []string) {
	if kind == "sqlite" {
		for _, tbl := range []string{"sessions", "shares"} {
			for _, op := range []string{"INSERT", "UPDATE"} {
				name := "fail_" + strings.ToLower(op) + "_" + tbl
				on = append(on, fmt.Sprintf("CREATE TRIGGER %s BEFORE %s ON %s BEGIN SELECT RAISE(ABORT, 'injected failure'); END", name, op, tbl))
				off = append(off, "DROP TRIGGER "+name)
			}
		}
		return on, off
	}
	on = append(on, `CREATE OR REPLACE FUNCTION fail_writes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`)
	for _, tbl := range []string{"sessions", "shares"} {
		on = append(on, fmt.Sprintf("CREATE TRIGGER fail_writes BEFORE INSERT OR UPDATE ON %s FOR EACH ROW EXECUTE FUNCTION fail_writes()", tbl))
		off = append(off, "DROP TRIGGER fail_writes ON "+tbl)
	}
	return on, off
}

// setFailures turns the injected failure on or off.
func setFailures(db *sql.DB, kind string, fail bool) error {
	on, off := failureSQL(kind)
	qs := off
	if fail {
		qs = on
	}
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// failWrites makes the store fail every write until heal is called: a
// real failure of the store, behind a server that keeps running.
func failWrites(t testing.TB, h *harness, db *sql.DB) (heal func()) {
	t.Helper()
	if err := setFailures(db, h.kind, true); err != nil {
		t.Fatalf("inject a failure: %v", err)
	}
	return func() {
		t.Helper()
		if err := setFailures(db, h.kind, false); err != nil {
			t.Fatalf("heal: %v", err)
		}
	}
}

// Invariant 7: a store failure answers 500, nothing is accepted and then
// lost, nothing refused is stored anyway, a later write is really stored,
// and an accepted write survives a restart.
func TestInvariant7StoreFailureLosesNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		v1 := mustPut(t, h.A, rec("a-durable", 1))
		share := mustShare(t, h.A, v1.ID, snapshot("before"))
		db := adminDB(t, h)

		heal := failWrites(t, h, db)
		_, err := h.A.PutSession(ctx, rec(v1.ID, 2))
		wantCode(t, err, 500, api.CodeInternal)
		_, err = h.A.PutSession(ctx, rec("a-never", 1))
		wantCode(t, err, 500, api.CodeInternal)
		_, err = h.A.CreateShare(ctx, api.CreateShareRequest{SessionID: v1.ID, Snapshot: snapshot("during")})
		wantCode(t, err, 500, api.CodeInternal)
		_, err = h.B.CopyShare(ctx, share.Token)
		wantCode(t, err, 500, api.CodeInternal)
		// Reads still work and show nothing of the refused writes.
		if got, err := h.A.GetSession(ctx, v1.ID); err != nil || got.Version != 1 {
			t.Fatalf("during the failure: %+v, %v; want version 1", got, err)
		}
		if !strings.Contains(h.logs.String(), "injected failure") {
			t.Fatal("the store failure was not logged")
		}
		heal()

		for _, id := range []string{"a-never"} {
			_, err := h.A.GetSession(ctx, id)
			wantCode(t, err, 404, api.CodeNotFound)
		}
		if page, err := h.B.ListSessions(ctx, 0, ""); err != nil || len(page.Sessions) != 0 {
			t.Fatalf("B has %d sessions after a refused copy, %v", len(page.Sessions), err)
		}
		if shares, err := h.A.ListShares(ctx); err != nil || len(shares) != 1 {
			t.Fatalf("A has %d shares after a refused share, %v", len(shares), err)
		}
		v2 := mustPut(t, h.A, rec(v1.ID, 2))
		copied, err := h.B.CopyShare(ctx, share.Token)
		if err != nil {
			t.Fatal(err)
		}

		h.restart()
		for _, want := range []struct {
			c   *api.Client
			rec api.SessionRecord
		}{{h.A, v2}, {h.B, copied.Session}} {
			got, err := want.c.GetSession(ctx, want.rec.ID)
			if err != nil || got != want.rec {
				t.Fatalf("after restart: %+v, %v; want %+v", got, err, want.rec)
			}
		}
	})
}

// Invariant 7 under load: writers keep going while the store fails on and
// off. Every session must end at exactly the highest version that was
// answered 200 — no accepted write lost, no refused one stored — before
// and after a restart.
func TestInvariant7FailuresUnderConcurrentWrites(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		db := adminDB(t, h)
		const writers, versions = 8, 40
		acked := make([]int64, writers)
		var wg sync.WaitGroup
		errs := make(chan error, writers+1)
		stop := make(chan struct{})
		var n500 int64
		var mu sync.Mutex
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for v := int64(1); v <= versions; v++ {
					_, err := h.A.PutSession(ctx, rec(fmt.Sprintf("load-%d", w), v))
					var ae *api.Error
					switch {
					case err == nil:
						acked[w] = v
					case errors.As(err, &ae) && ae.Status == 500:
						mu.Lock()
						n500++
						mu.Unlock()
					default:
						errs <- err
						return
					}
				}
			}()
		}
		var toggler sync.WaitGroup
		toggler.Add(1)
		go func() {
			defer toggler.Done()
			for {
				for _, fail := range []bool{true, false} {
					if err := setFailures(db, h.kind, fail); err != nil {
						errs <- err
						return
					}
					time.Sleep(3 * time.Millisecond)
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
		wg.Wait()
		close(stop)
		toggler.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		check := func(when string) {
			t.Helper()
			for w := range writers {
				id := fmt.Sprintf("load-%d", w)
				got, err := h.A.GetSession(ctx, id)
				if acked[w] == 0 {
					wantCode(t, err, 404, api.CodeNotFound)
					continue
				}
				if err != nil || got.Version != acked[w] {
					t.Fatalf("%s: %s holds version %d (%v); the last version answered 200 was %d", when, id, got.Version, err, acked[w])
				}
			}
		}
		check("after the run")
		h.restart()
		check("after a restart")
		t.Logf("%d writers x %d versions: %d answered 500", writers, versions, n500)
	})
}

// A SQLite store closed under a running server: every call answers 500
// (no panic, no false success); a new server on the file has every
// accepted write.
func TestStoreClosedUnderServer(t *testing.T) {
	h := newHarness(t, "sqlite")
	ctx := t.Context()
	v1 := mustPut(t, h.A, rec("closed-1", 1))
	h.store.Close()
	_, err := h.A.PutSession(ctx, rec(v1.ID, 2))
	wantCode(t, err, 500, api.CodeInternal)
	_, err = h.A.GetSession(ctx, v1.ID)
	wantCode(t, err, 500, api.CodeInternal)
	if st, _, _ := h.raw(http.MethodGet, "/healthz", "", nil); st != http.StatusServiceUnavailable {
		t.Fatalf("healthz with a closed store: %d", st)
	}
	h.restart()
	if got, err := h.A.GetSession(ctx, v1.ID); err != nil || got != v1 {
		t.Fatalf("after restart: %+v, %v; want %+v", got, err, v1)
	}
	mustPut(t, h.A, rec(v1.ID, 2))
}

// PostgreSQL stopped under a running server: 500s (and 503 on /healthz)
// while it is down; once it is back the same server stores writes again
// and nothing accepted before is lost.
func TestPostgresDownAndBack(t *testing.T) {
	requirePostgres(t)
	ctx := t.Context()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	url, err := pg.CreateDB(ctx, "down_and_back")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, kind: "postgres", db: url, clock: &clock{}, logs: &syncBuffer{}}
	h.start()
	t.Cleanup(h.stop)
	h.userA, h.tokenA = h.addUser("alice")
	h.A = h.client(h.tokenA)

	v1 := mustPut(t, h.A, rec("pg-1", 1))
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, err = h.A.PutSession(ctx, rec(v1.ID, 2))
		wantCode(t, err, 500, api.CodeInternal)
		_, err = h.A.GetSession(ctx, v1.ID)
		wantCode(t, err, 500, api.CodeInternal)
	}
	if st, _, _ := h.raw(http.MethodGet, "/healthz", "", nil); st != http.StatusServiceUnavailable {
		t.Fatalf("healthz with PostgreSQL down: %d", st)
	}
	if err := pg.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := h.A.GetSession(ctx, v1.ID)
	if err != nil || got != v1 {
		t.Fatalf("after PostgreSQL came back: %+v, %v; want %+v", got, err, v1)
	}
	v2 := mustPut(t, h.A, rec(v1.ID, 2))
	h.restart()
	if got, err := h.A.GetSession(ctx, v1.ID); err != nil || got != v2 {
		t.Fatalf("after a server restart: %+v, %v; want %+v", got, err, v2)
	}
}

// One failing write among many concurrent ones (on SQLite they share a
// group commit) fails alone: the others are answered 200 and are stored,
// the failed one is not — before and after a restart.
func TestOneFailingWriteFailsAlone(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ctx := t.Context()
		db := adminDB(t, h)
		q := []string{`CREATE TRIGGER boom BEFORE INSERT ON sessions WHEN NEW.title = 'boom' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`}
		if h.kind == "postgres" {
			q = []string{
				`CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.title = 'boom' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`,
				`CREATE TRIGGER boom BEFORE INSERT ON sessions FOR EACH ROW EXECUTE FUNCTION boom()`,
			}
		}
		for _, s := range q {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		const n = 60
		status := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rec(fmt.Sprintf("mixed-%02d", i), 1)
				if i%5 == 0 {
					r.Title = "boom"
				}
				_, err := h.A.PutSession(ctx, r)
				var ae *api.Error
				switch {
				case err == nil:
					status[i] = 200
				case errors.As(err, &ae):
					status[i] = ae.Status
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		check := func(when string) {
			t.Helper()
			for i := range n {
				want := 200
				if i%5 == 0 {
					want = 500
				}
				if status[i] != want {
					t.Fatalf("PUT %d answered %d; want %d", i, status[i], want)
				}
				_, err := h.A.GetSession(ctx, fmt.Sprintf("mixed-%02d", i))
				if stored := err == nil; stored != (want == 200) {
					t.Fatalf("%s: PUT %d answered %d, stored %v (%v)", when, i, status[i], stored, err)
				}
			}
		}
		check("after the run")
		h.restart()
		check("after a restart")
	})
}
