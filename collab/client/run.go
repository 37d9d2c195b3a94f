package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"mnote/collab/keys"
	"mnote/collab/projection"
	"mnote/collab/roster"
	"mnote/controlplane/api"
)

// Run statuses, the text of a run's closing status entry.
const (
	RunEnded  = "ended"
	RunFailed = "failed"
)

// flushEvery coalesces a run's streamed text: about ten appends a second.
const flushEvery = 100 * time.Millisecond

// RunEvents report a run's waiting.
type RunEvents struct {
	// Queued is called with the run's place in the queue while another
	// run holds the session (1: next).
	Queued func(position int)
	// Granted is called once the run holds the lease.
	Granted func()
}

// Run is one turn of this account in a shared session: it holds the
// session's lease and appends the run's projection to the log. Feed it
// with Add (or a Projector), end it with Finish.
type Run struct {
	c     *Client
	v     *view
	ID    string
	turn  int
	key   keys.EpochKey
	epoch uint64

	send sync.Mutex // held while appending: head, and appends in order
	head int64

	mu      sync.Mutex         // what waits to be appended, err, renewed
	waiting []projection.Entry // not appended yet, in the order they came
	toolAt  map[string]int     // a tool call's place in waiting
	planAt  int                // the plan's place in waiting, or -1
	err     error              // the first control-plane failure: the run failed
	stop    chan struct{}
	done    chan struct{}
	renewed time.Time
	ttl     time.Duration
}

// StartRun waits for the session's lease and appends the prompt's
// projection entry: from then on the run is the session's one turn. A
// viewer or commenter is refused by the server (ErrRole); a control
// plane that cannot be reached fails the run before it starts, and the
// caller keeps the prompt.
func (c *Client) StartRun(ctx context.Context, id string, prompt projection.Entry, ev RunEvents) (*Run, error) {
	v, err := c.view(ctx, id)
	if err != nil {
		return nil, err
	}
	if v.role != roster.Owner && v.role != roster.Editor {
		return nil, fmt.Errorf("%s: %w (%s)", id, ErrRole, v.role)
	}
	for account, err := range v.blocked {
		if account != c.account {
			return nil, err
		}
	}
	if v.roster.Owner == c.account {
		// A member removed a device since the key was wrapped: a new
		// epoch first. Members whose first device came after they were
		// added get the key now.
		if gone := c.goneDevices(v, v.roster.Epoch); len(gone) > 0 {
			if err := c.newEpoch(ctx, id); err != nil {
				return nil, err
			}
			if v, err = c.view(ctx, id); err != nil {
				return nil, err
			}
		}
		if err := c.wrapKeys(ctx, v); err != nil {
			return nil, err
		}
	}
	key, err := c.epochKey(ctx, v, v.roster.Epoch)
	if err != nil {
		return nil, err
	}
	r := &Run{c: c, v: v, ID: newRunID(), turn: prompt.Turn, key: key, epoch: v.roster.Epoch,
		toolAt: map[string]int{}, planAt: -1, stop: make(chan struct{}), done: make(chan struct{})}
	last := -1
	for {
		st, err := c.api.RequestLease(ctx, id, r.ID, c.dev.ID())
		if err != nil {
			if isStatus(err, api.CodeForbidden) {
				return nil, fmt.Errorf("%s: %w: %w", id, ErrRole, err)
			}
			c.api.ReleaseLease(context.WithoutCancel(ctx), id, r.ID) //nolint:errcheck // out of the queue if it can
			return nil, fmt.Errorf("the lease of %s: %w", id, err)
		}
		if st.Granted {
			r.renewed = c.now()
			if st.Lease != nil {
				r.ttl = st.Lease.ExpiresAt.Sub(st.Lease.GrantedAt)
			}
			break
		}
		if st.Position != last && ev.Queued != nil {
			ev.Queued(st.Position)
		}
		last = st.Position
		select {
		case <-ctx.Done():
			c.api.ReleaseLease(context.WithoutCancel(ctx), id, r.ID) //nolint:errcheck // out of the queue if it can
			return nil, ctx.Err()
		case <-time.After(c.poll):
		}
	}
	if ev.Granted != nil {
		ev.Granted()
	}
	sh, err := c.api.SharedSession(ctx, id)
	if err == nil {
		r.head = sh.Head
		err = r.append(ctx, prompt)
	}
	if err != nil {
		c.api.ReleaseLease(context.WithoutCancel(ctx), id, r.ID) //nolint:errcheck // the run failed
		return nil, fmt.Errorf("shared session %s: %w", id, err)
	}
	go r.loop()
	return r, nil
}

func newRunID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "run-" + hex.EncodeToString(b)
}

// append seals e and appends it at the log's head + 1 (again after a
// conflict: a comment may have come in between).
func (r *Run) append(ctx context.Context, e projection.Entry) error {
	pt, err := json.Marshal(e)
	if err != nil {
		return err
	}
	for range 20 {
		seq := r.head + 1
		h := keys.Header{SessionID: r.v.id, Epoch: r.epoch, Seq: uint64(seq), AuthorDevice: r.c.dev.ID(), Kind: e.Kind}
		blob, err := keys.Seal(r.key, h, pt, r.c.dev)
		if err != nil {
			return err
		}
		_, err = r.c.api.AppendEntry(ctx, r.v.id, seq, api.AppendEntryRequest{Epoch: int64(r.epoch), Kind: e.Kind, RunID: r.ID,
			AuthorDevice: r.c.dev.ID(), Ciphertext: blob})
		var ae *api.Error
		if errors.As(err, &ae) && ae.Code == api.CodeConflict && ae.Head != nil {
			r.head = *ae.Head
			continue
		}
		if err != nil {
			return err
		}
		r.head = seq
		return nil
	}
	return fmt.Errorf("append to %s: the log kept moving", r.v.id)
}

// Add queues one projection entry of the run: an answer's text is
// appended (as the new text since the last append) at most about ten
// times a second; a tool call's latest title, kind and status and the
// latest plan go with the next append. What waits keeps the order it came
// in — text after a tool call stays after it — with a tool call's or the
// plan's later states taking its first place. It does not wait for the
// network (the agent's stream is not held up), except for the rare other
// kinds.
func (r *Run) Add(e projection.Entry) {
	r.mu.Lock()
	e.Turn = r.turn
	switch e.Kind {
	case projection.KindAnswer:
		if n := len(r.waiting); n > 0 && r.waiting[n-1].Kind == projection.KindAnswer {
			r.waiting[n-1].Text += e.Text
		} else {
			r.waiting = append(r.waiting, e)
		}
	case projection.KindTool:
		if e.Tool != nil {
			t := *e.Tool
			e.Tool = &t
			if i, ok := r.toolAt[t.ToolCallID]; ok {
				r.waiting[i] = e
			} else {
				r.toolAt[t.ToolCallID] = len(r.waiting)
				r.waiting = append(r.waiting, e)
			}
		}
	case projection.KindPlan:
		if r.planAt >= 0 {
			r.waiting[r.planAt] = e
		} else {
			r.planAt = len(r.waiting)
			r.waiting = append(r.waiting, e)
		}
	default:
		r.mu.Unlock()
		r.flush(context.Background(), &e)
		return
	}
	r.mu.Unlock()
}

// takeLocked takes what waits, in order.
func (r *Run) takeLocked() []projection.Entry {
	batch := r.waiting
	r.waiting, r.toolAt, r.planAt = nil, map[string]int{}, -1
	return batch
}

// flush appends what waits, then extra if given, one append at a time
// (send keeps them in order), outside the lock Add takes.
func (r *Run) flush(ctx context.Context, extra *projection.Entry) {
	r.send.Lock()
	defer r.send.Unlock()
	r.mu.Lock()
	batch := r.takeLocked()
	failed := r.err != nil
	r.mu.Unlock()
	if extra != nil {
		batch = append(batch, *extra)
	}
	if failed {
		return
	}
	for _, e := range batch {
		if err := r.append(ctx, e); err != nil {
			r.fail(fmt.Errorf("shared session %s: %w", r.v.id, err))
			return
		}
	}
}

// fail records the run's first control-plane failure.
func (r *Run) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// loop flushes and heartbeats the lease until Finish.
func (r *Run) loop() {
	defer close(r.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		r.flush(context.Background(), nil)
		r.mu.Lock()
		renew := r.err == nil && (r.ttl <= 0 || r.c.now().Sub(r.renewed) > r.ttl/3)
		r.mu.Unlock()
		if !renew {
			continue
		}
		st, err := r.c.api.RequestLease(context.Background(), r.v.id, r.ID, r.c.dev.ID())
		switch {
		case err != nil:
			r.fail(fmt.Errorf("the lease of %s: %w", r.v.id, err))
		case !st.Granted:
			r.fail(fmt.Errorf("the lease of %s: %w", r.v.id, errors.New("lost to another run")))
		default:
			r.mu.Lock()
			r.renewed = r.c.now()
			r.mu.Unlock()
		}
	}
}

// Watch calls cancel once the run cannot be shared any more (a
// control-plane failure: the turn must fail visibly, never go on
// unshared), or returns when ctx ends.
func (r *Run) Watch(ctx context.Context, cancel context.CancelFunc) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
			if r.Err() != nil {
				cancel()
				return
			}
		}
	}
}

// Err is the run's control-plane failure, if any: the run must be shown
// failed (the prompt kept), not go on locally.
func (r *Run) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Finish appends what waits and the run's closing status (RunEnded, or
// RunFailed after the agent's failure), then releases the lease. Its
// error is the run's control-plane failure, if any.
func (r *Run) Finish(ctx context.Context, status string) error {
	close(r.stop)
	<-r.done
	r.flush(ctx, &projection.Entry{Kind: api.KindStatus, Turn: r.turn, Text: status})
	err := r.Err()
	if _, rerr := r.c.api.ReleaseLease(context.WithoutCancel(ctx), r.v.id, r.ID); rerr != nil && err == nil {
		err = fmt.Errorf("the lease of %s: %w", r.v.id, rerr)
	}
	return err
}

// Head is the seq of the run's last append.
func (r *Run) Head() int64 {
	r.send.Lock()
	defer r.send.Unlock()
	return r.head
}

// Comment appends a member's comment to the session's log (commenters,
// editors and the owner; no lease is needed) and returns its seq.
func (c *Client) Comment(ctx context.Context, id, text string) (int64, error) {
	v, err := c.view(ctx, id)
	if err != nil {
		return 0, err
	}
	if !allowed(v.role, api.KindComment) {
		return 0, fmt.Errorf("%s: %w (%s)", id, ErrRole, v.role)
	}
	key, err := c.epochKey(ctx, v, v.roster.Epoch)
	if err != nil {
		return 0, err
	}
	sh, err := c.api.SharedSession(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("shared session %s: %w", id, err)
	}
	r := &Run{c: c, v: v, key: key, epoch: v.roster.Epoch, head: sh.Head}
	if err := r.append(ctx, projection.Comment(text)); err != nil {
		if isStatus(err, api.CodeForbidden) {
			return 0, fmt.Errorf("%s: %w: %w", id, ErrRole, err)
		}
		return 0, fmt.Errorf("shared session %s: %w", id, err)
	}
	return r.head, nil
}
