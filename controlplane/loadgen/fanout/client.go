package fanout

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"mnote/controlplane/api"
)

// client is one member: a live stream on one server, and its turns.
type client struct {
	r      *runner
	sess   *session
	member int
	name   string
	token  string
	device string
	inst   atomic.Int32 // the server it talks to now
	rng    *rand.Rand   // the turn goroutine's only

	ready     chan struct{}
	readyOnce sync.Once
	leaseCh   chan struct{} // a lease event came (at most one pending)

	mu     sync.Mutex
	got    map[int64]received
	last   int64
	holder string // the run holding the lease, as the stream last said

	dups, reconnects                          int // the stream goroutine's
	retries, recovered, leaseLost, turnsTaken int // the turn goroutine's
	bytes                                     int64
}

type received struct {
	hash [32]byte
	at   time.Time
}

func newClient(r *runner, ss *session, member int, name, token string, inst int) *client {
	c := &client{
		r: r, sess: ss, member: member, name: name, token: token, device: fmt.Sprintf("dev-%d", member),
		rng:   rand.New(rand.NewChaCha8(sha256.Sum256([]byte(name)))),
		ready: make(chan struct{}), leaseCh: make(chan struct{}, 1), got: map[int64]received{},
	}
	c.inst.Store(int32(inst))
	return c
}

func (c *client) apiAt(inst int) *api.Client {
	return &api.Client{BaseURL: c.r.urls[inst], Token: c.token, HTTP: c.r.apiHTTP}
}

// api is the client of the server it talks to now.
func (c *client) api() *api.Client { return c.apiAt(int(c.inst.Load())) }

// failover moves to the next server after a transport error on server
// from (once, however many goroutines saw it).
func (c *client) failover(from int32) {
	c.inst.CompareAndSwap(from, (from+1)%int32(len(c.r.urls)))
}

func (c *client) lastSeq() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// stream keeps the live stream open until ctx ends: after a break it
// opens it again, on the next server if this one is gone, with after =
// the last seq it received.
func (c *client) stream(ctx context.Context) {
	backoff := 20 * time.Millisecond
	for ctx.Err() == nil {
		inst := c.inst.Load()
		cl := c.apiAt(int(inst))
		cl.HTTP = c.r.liveHTTP
		ls, err := cl.Live(ctx, c.sess.id, c.lastSeq(), c.device)
		if err != nil {
			var ae *api.Error
			if !errors.As(err, &ae) {
				c.failover(inst)
			}
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 20 * time.Millisecond
		err = c.read(ls)
		ls.Close()
		if ctx.Err() != nil {
			return
		}
		c.reconnects++
		var ae *api.Error
		if !errors.As(err, &ae) {
			c.failover(inst) // the server went away (EOF after a shutdown, or a reset)
		}
	}
}

func (c *client) read(ls *api.LiveStream) error {
	for {
		ev, err := ls.Next()
		if err != nil {
			return err
		}
		now := time.Now()
		switch ev.Type {
		case api.EventEntry:
			h := sha256.Sum256(ev.Entry.Ciphertext)
			c.mu.Lock()
			if _, ok := c.got[ev.Entry.Seq]; ok {
				c.dups++
			} else {
				c.got[ev.Entry.Seq] = received{hash: h, at: now}
			}
			c.last = max(c.last, ev.Entry.Seq)
			c.mu.Unlock()
		case api.EventReady:
			c.readyOnce.Do(func() { close(c.ready) })
		case api.EventLease:
			c.mu.Lock()
			c.holder = ""
			if ev.Lease.Lease != nil {
				c.holder = ev.Lease.Lease.RunID
			}
			c.mu.Unlock()
			select {
			case c.leaseCh <- struct{}{}:
			default:
			}
		case api.EventRevoked:
			return errors.New("revoked")
		}
	}
}

// call runs f against the current server, and again on the next one
// after a transport error (not after an answer: that is f's result).
func call[T any](ctx context.Context, c *client, f func(*api.Client) (T, error)) (T, error) {
	var (
		v   T
		err error
	)
	for range 50 {
		inst := c.inst.Load()
		v, err = f(c.apiAt(int(inst)))
		var ae *api.Error
		if err == nil || errors.As(err, &ae) || ctx.Err() != nil {
			return v, err
		}
		c.failover(inst)
		time.Sleep(20 * time.Millisecond)
	}
	return v, err
}

// turns asks for the lease, waits for it (the stream tells), appends a
// turn, releases, and asks again, until deadline.
func (c *client) turns(ctx context.Context, deadline time.Time) error {
	id := c.sess.id
	for turn := 0; time.Now().Before(deadline); turn++ {
		run := fmt.Sprintf("run-%s-%d", c.name, turn)
		st, err := call(ctx, c, func(a *api.Client) (api.LeaseState, error) { return a.RequestLease(ctx, id, run, c.device) })
		if err != nil {
			return fmt.Errorf("request the lease: %w", err)
		}
		for granted := st.Granted; !granted; {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-c.leaseCh:
				c.mu.Lock()
				granted = c.holder == run
				c.mu.Unlock()
			case <-time.After(time.Until(deadline)):
				// Time is up: leave the queue.
				if _, err := call(ctx, c, func(a *api.Client) (api.LeaseState, error) { return a.ReleaseLease(ctx, id, run) }); err != nil {
					return fmt.Errorf("leave the queue: %w", err)
				}
				return nil
			case <-time.After(2 * time.Second):
				// The stream may be reconnecting: ask (a queued run asking
				// again keeps its place).
				st, err := call(ctx, c, func(a *api.Client) (api.LeaseState, error) { return a.RequestLease(ctx, id, run, c.device) })
				if err != nil {
					return fmt.Errorf("request the lease again: %w", err)
				}
				granted = st.Granted
			}
		}
		c.turnsTaken++
		if err := c.turn(ctx, run, deadline); err != nil {
			return err
		}
		if _, err := call(ctx, c, func(a *api.Client) (api.LeaseState, error) { return a.ReleaseLease(ctx, id, run) }); err != nil {
			return fmt.Errorf("release the lease: %w", err)
		}
	}
	return nil
}

// turn appends up to TurnEntries entries at Rate a second, like a run
// streaming its prompt, thoughts, tool calls and answer.
func (c *client) turn(ctx context.Context, run string, deadline time.Time) error {
	cfg := c.r.cfg
	tick := time.NewTicker(time.Duration(float64(time.Second) / cfg.Rate))
	defer tick.Stop()
	for k := 0; k < cfg.TurnEntries && time.Now().Before(deadline); k++ {
		kind, size := c.pick(k, cfg.TurnEntries)
		ok, err := c.append(ctx, run, kind, size)
		if err != nil {
			return err
		}
		if !ok {
			c.leaseLost++
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// pick gives entry k of a turn of n its kind and ciphertext size: a
// prompt, thoughts and answer chunks of a few hundred bytes, now and
// then a tool call's output of several KiB, a status at the end. Sizes
// include the AEAD's nonce and tag.
func (c *client) pick(k, n int) (string, int) {
	const seal = 24 + 16
	switch {
	case k == 0:
		return api.KindPrompt, seal + 100 + c.rng.IntN(1900)
	case k == n-1:
		return api.KindStatus, seal + 32 + c.rng.IntN(32)
	}
	switch p := c.rng.IntN(100); {
	case p < 10:
		return api.KindTool, seal + 500 + c.rng.IntN(15500)
	case p < 30:
		return api.KindThought, seal + 100 + c.rng.IntN(900)
	default:
		return api.KindAnswer, seal + 50 + c.rng.IntN(550)
	}
}

// append appends one entry by compare and append. After a transport
// error it sends again on the next server; an answer of conflict then
// means either another entry took the seq or the first try was committed
// after all: it reads the entry at that seq to tell. false: the lease was
// lost.
func (c *client) append(ctx context.Context, run, kind string, size int) (bool, error) {
	blob := make([]byte, size)
	for i := range blob {
		blob[i] = byte(c.rng.Uint32())
	}
	h := sha256.Sum256(blob)
	req := api.AppendEntryRequest{Epoch: 1, Kind: kind, RunID: run, AuthorDevice: c.device, Ciphertext: blob}
	ss := c.sess
	ss.mu.Lock()
	seq := ss.head + 1
	ss.mu.Unlock()
	uncertain := false
	for attempt := 0; attempt < 100; attempt++ {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		inst := c.inst.Load()
		_, err := c.apiAt(int(inst)).AppendEntry(ctx, ss.id, seq, req)
		if err == nil {
			c.accepted(seq, h, len(blob), !uncertain)
			return true, nil
		}
		var ae *api.Error
		switch {
		case !errors.As(err, &ae):
			uncertain = true
			c.retries++
			c.failover(inst)
			time.Sleep(20 * time.Millisecond)
		case ae.Code == api.CodeConflict && ae.Head != nil:
			if uncertain && *ae.Head >= seq {
				mine, err := c.entryIs(ctx, seq, h)
				if err != nil {
					return false, err
				}
				if mine {
					c.recovered++
					c.accepted(seq, h, len(blob), false)
					return true, nil
				}
			}
			uncertain = false
			seq = *ae.Head + 1
		case ae.Code == api.CodeLeaseRequired:
			return false, nil
		default:
			return false, fmt.Errorf("append %s at %d: %w", kind, seq, err)
		}
	}
	return false, fmt.Errorf("append %s at %d: no answer after 100 tries", kind, seq)
}

func (c *client) accepted(seq int64, h [32]byte, n int, timely bool) {
	at := time.Now()
	ss := c.sess
	ss.mu.Lock()
	ss.sent[seq] = sent{hash: h, at: at, by: c.member, timely: timely}
	ss.head = max(ss.head, seq)
	ss.mu.Unlock()
	c.bytes += int64(n)
}

// entryIs reports whether the log's entry at seq has hash h.
func (c *client) entryIs(ctx context.Context, seq int64, h [32]byte) (bool, error) {
	page, err := call(ctx, c, func(a *api.Client) (api.EntryPage, error) { return a.Entries(ctx, c.sess.id, seq-1, 1) })
	if err != nil {
		return false, fmt.Errorf("read entry %d: %w", seq, err)
	}
	return len(page.Entries) == 1 && page.Entries[0].Seq == seq && sha256.Sum256(page.Entries[0].Ciphertext) == h, nil
}

// readLog reads the whole log, page by page.
func (c *client) readLog(ctx context.Context) ([]api.Entry, error) {
	var out []api.Entry
	for {
		page, err := call(ctx, c, func(a *api.Client) (api.EntryPage, error) {
			return a.Entries(ctx, c.sess.id, int64(len(out)), 0)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, page.Entries...)
		if !page.More || len(page.Entries) == 0 {
			return out, nil
		}
	}
}
