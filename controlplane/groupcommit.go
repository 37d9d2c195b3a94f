package controlplane

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"mnote/controlplane/api"
)

// putBatcher is group commit for PutSession on SQLite. With
// synchronous=FULL every commit waits for an fsync, and SQLite has one
// writer: one transaction per PUT caps a server at a few hundred PUTs a
// second however many clients wait. Instead, the PUTs that arrive while a
// transaction runs are queued and the next transaction runs them all, one
// savepoint each, and commits once.
//
// Nothing is answered before its commit: a call returns success only once
// the transaction holding it committed, and when a commit fails every call
// in it fails. A call whose own statement fails is rolled back to its
// savepoint and fails alone.
//
// (PostgreSQL needs none of this: its backends commit concurrently and
// share WAL flushes.)
type putBatcher struct {
	s *sqlStore

	mu      sync.Mutex
	queue   []*putCall
	leading bool // a goroutine is running batches

	txs atomic.Int64 // transactions run, for tests
}

// maxBatch bounds one transaction (and so the latency of its first call).
const maxBatch = 256

type putCall struct {
	ctx    context.Context
	userID string
	rec    api.SessionRecord
	done   chan struct{}
	out    api.SessionRecord
	err    error
}

func (b *putBatcher) put(ctx context.Context, userID string, rec api.SessionRecord) (api.SessionRecord, error) {
	c := &putCall{ctx: ctx, userID: userID, rec: rec, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, c)
	lead := !b.leading
	b.leading = true
	b.mu.Unlock()
	if lead {
		b.lead()
	}
	select {
	case <-c.done:
		return c.out, c.err
	case <-ctx.Done():
		// The call may still run (and commit) later: the client gets no
		// answer, so nothing is reported as saved that was not, and a
		// retry of the same version is answered 200 either way.
		return api.SessionRecord{}, ctx.Err()
	}
}

// lead runs one batch, then hands the queue to a new goroutine if more
// calls arrived meanwhile, so the caller that led returns at once.
func (b *putBatcher) lead() {
	b.mu.Lock()
	batch := b.queue
	if len(batch) > maxBatch {
		batch, b.queue = batch[:maxBatch:maxBatch], batch[maxBatch:]
	} else {
		b.queue = nil
	}
	b.mu.Unlock()

	b.run(batch)

	b.mu.Lock()
	more := len(b.queue) > 0
	if !more {
		b.leading = false
	}
	b.mu.Unlock()
	if more {
		go b.lead()
	}
}

func (b *putBatcher) run(batch []*putCall) {
	defer func() {
		for _, c := range batch {
			close(c.done)
		}
	}()
	// failAll fails every call that was going to succeed; answers
	// about the record (not found, stale) stand.
	failAll := func(err error) {
		for _, c := range batch {
			if c.err == nil {
				c.out, c.err = api.SessionRecord{}, err
			}
		}
	}
	// Not a caller's context: the batch serves many callers.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := b.s
	b.txs.Add(1)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		failAll(s.err("put session: begin", err))
		return
	}
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.err = err // gone before its turn: not run at all
			continue
		}
		if _, err := tx.ExecContext(ctx, "SAVEPOINT put"); err != nil {
			tx.Rollback()
			failAll(s.err("put session: savepoint", err))
			return
		}
		c.out, c.err = s.putOn(ctx, tx, c.userID, c.rec)
		if c.err != nil && !isResult(c.err) {
			// Undo this call only. If SQLite rolled the whole
			// transaction back (disk full, I/O error), the savepoint is
			// gone too: fail the batch, including the calls not run.
			if _, err := tx.ExecContext(ctx, "ROLLBACK TO put"); err != nil {
				tx.Rollback()
				failAll(c.err) // the calls before, and those not run
				return
			}
		}
		if _, err := tx.ExecContext(ctx, "RELEASE put"); err != nil {
			tx.Rollback()
			failAll(s.err("put session: release savepoint", err))
			return
		}
	}
	if err := tx.Commit(); err != nil {
		failAll(s.err("put session: commit", err))
	}
}

// isResult reports whether err is an answer about the record (not found,
// stale) rather than a failure: those stand whatever the commit does.
func isResult(err error) bool {
	var stale *StaleError
	return errors.Is(err, ErrNotFound) || errors.As(err, &stale)
}
