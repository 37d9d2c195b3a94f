package controlplane

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"mnote/controlplane/api"
)

// Calls that queue while the writer is busy share one transaction; one
// failing call in it fails alone; every success is committed (it is there
// after the store is reopened).
func TestGroupCommitBatchesAndIsolates(t *testing.T) {
	ctx := t.Context()
	db := "sqlite:" + filepath.Join(t.TempDir(), "gc.db")
	st, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*sqlStore)
	u, _, err := s.AddUser(ctx, "u", "hash", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `CREATE TRIGGER boom BEFORE INSERT ON sessions WHEN NEW.title = 'boom' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`); err != nil {
		t.Fatal(err)
	}
	// Hold the only writing connection so that every call queues.
	hold, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := api.SessionRecord{ID: fmt.Sprintf("gc-%02d", i), Version: 1, Status: api.StatusIdle, CreatedAt: time.Now(), UpdatedAt: time.Now()}
			if i == 17 {
				r.Title = "boom"
			}
			_, errs[i] = s.PutSession(ctx, u.ID, r)
		}()
	}
	// Wait until all but the leader (blocked in BEGIN) are queued.
	for {
		s.batch.mu.Lock()
		queued := len(s.batch.queue)
		s.batch.mu.Unlock()
		if queued == n-1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	hold.Rollback()
	wg.Wait()
	if got := s.batch.txs.Load(); got != 2 {
		t.Fatalf("%d transactions for %d queued calls; want 2 (the leader's, then all the others)", got, n)
	}
	for i, err := range errs {
		if i == 17 {
			if err == nil || errors.Is(err, ErrNotFound) {
				t.Fatalf("the failing call answered %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	st.Close()
	st, err = Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.ListSessions(context.Background(), u.ID, 1000, Cursor{})
	if err != nil || len(recs) != n-1 {
		t.Fatalf("after reopening: %d records, %v; want %d", len(recs), err, n-1)
	}
	for _, r := range recs {
		if r.ID == "gc-17" {
			t.Fatal("the failed call was stored")
		}
	}
}
