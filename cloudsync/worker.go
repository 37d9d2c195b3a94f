package cloudsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"mnote/controlplane/api"
)

// Backoff is the retry schedule after failures: Base after the first,
// doubling up to Max, with "equal jitter" (half the delay fixed, half
// random) so that many clients do not retry in step.
type Backoff struct {
	Base, Max time.Duration
}

// DefaultBackoff retries after about 1 s, 2 s, 4 s … up to 5 minutes.
var DefaultBackoff = Backoff{Base: time.Second, Max: 5 * time.Minute}

// Delay is the wait after the n-th failure in a row (n ≥ 1); rnd in [0,1)
// picks the jitter: the result is in [d/2, d) for d = min(Base·2^(n-1), Max).
func (b Backoff) Delay(n int, rnd float64) time.Duration {
	d := b.Max
	if n < 1 {
		n = 1
	}
	if n <= 62 {
		if x := b.Base << (n - 1); x > 0 && x < b.Max && x>>(n-1) == b.Base {
			d = x
		}
	}
	return d/2 + time.Duration(rnd*float64(d/2))
}

func randFloat() float64 { return rand.Float64() }

// worker empties the outbox while sync is on: on a wake-up (Enqueue), on
// a timer (retries) and on SyncNow.
type worker struct {
	s      *Syncer
	cancel context.CancelFunc
	done   chan struct{}
	kick   chan struct{}
	now    chan chan error
}

func (s *Syncer) startWorker() *worker {
	ctx, cancel := context.WithCancel(context.Background())
	w := &worker{s: s, cancel: cancel, done: make(chan struct{}), kick: make(chan struct{}, 1), now: make(chan chan error)}
	w.wake() // send what is waiting from before
	go w.run(ctx)
	return w
}

// stop cancels the worker (and its request in flight) and waits for it.
// A nil worker is stopped already.
func (w *worker) stop() {
	if w == nil {
		return
	}
	w.cancel()
	<-w.done
}

func (w *worker) wake() {
	if w == nil {
		return
	}
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *worker) syncNow(ctx context.Context) error {
	reply := make(chan error, 1)
	select {
	case w.now <- reply:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.done:
		return ErrDisabled
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-w.done:
		return ErrDisabled
	}
}

func (w *worker) run(ctx context.Context) {
	defer close(w.done)
	for {
		var timer *time.Timer
		var fire <-chan time.Time
		if d, ok := w.s.nextWait(ctx); ok {
			timer = time.NewTimer(d)
			fire = timer.C
		}
		select {
		case <-ctx.Done():
		case <-w.kick:
			w.s.pass(ctx, false)
		case <-fire:
			w.s.pass(ctx, false)
		case reply := <-w.now:
			reply <- w.s.pass(ctx, true)
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// nextWait is how long until the worker should try again: ok false when
// nothing waits (it sleeps until woken).
func (s *Syncer) nextWait(ctx context.Context) (time.Duration, bool) {
	s.mu.Lock()
	ob := s.ob
	s.mu.Unlock()
	if ob == nil {
		return 0, false
	}
	n, err := ob.pending(ctx)
	if err != nil || n == 0 {
		return 0, false
	}
	kv, err := ob.getState(ctx)
	if err != nil {
		return s.opt.Backoff.Max, true
	}
	until := time.UnixMilli(max(stateInt(kv, stRetryAt), stateInt(kv, stRateLimitEnd)))
	return max(0, until.Sub(s.now())), true
}

// rateLimitedError is returned by a pass during the server's Retry-After.
type rateLimitedError struct{ until time.Time }

func (e *rateLimitedError) Is(target error) bool { return target == ErrRateLimited }

func (e *rateLimitedError) Error() string {
	return fmt.Sprintf("the control plane asked to wait (rate limited) until %s", e.until.Local().Format("15:04:05"))
}

// batch is how many rows a pass reads at a time.
const batch = 64

// pass sends what waits in the outbox. Without force it does nothing
// during the backoff after failures; nothing is sent during a rate limit.
// The first failure that leaves records waiting (network, 5xx, 401, 429 …)
// ends the pass and is returned. A record refused for good is parked
// (Status.ParkedRecords, and the last error) and the pass goes on with the
// others: one bad record never holds the rest back.
func (s *Syncer) pass(ctx context.Context, force bool) error {
	s.mu.Lock()
	ob := s.ob
	c, err := s.clientLocked()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if ob == nil {
		return ErrDisabled
	}
	kv, err := ob.getState(ctx)
	if err != nil {
		return err
	}
	now := s.now()
	if end := time.UnixMilli(stateInt(kv, stRateLimitEnd)); now.Before(end) {
		return &rateLimitedError{until: end}
	}
	if !force && now.Before(time.UnixMilli(stateInt(kv, stRetryAt))) {
		return nil
	}
	failures := int(stateInt(kv, stFailures))
	var parkErr string
	seen := map[string]bool{} // each change once a pass, whatever happens
	for {
		items, err := ob.next(ctx, batch)
		if err != nil {
			return s.failed(ctx, ob, failures+1, 0, err)
		}
		fresh := items[:0]
		for _, it := range items {
			key := it.SessionID + "\x00" + it.Op + "\x00" + strconv.FormatInt(it.Version, 10)
			if !seen[key] {
				seen[key] = true
				fresh = append(fresh, it)
			}
		}
		if len(fresh) == 0 {
			break
		}
		sent := false
		for _, it := range fresh {
			res := s.send(ctx, c, ob, it)
			switch {
			case res.canceled:
				return ctx.Err()
			case res.parked != nil:
				parkErr = res.parked.Error()
				s.log.Warn("sync: the control plane refused a record; it is parked and the others go on", "session", it.SessionID, "err", res.parked)
			case res.err != nil:
				ob.failed(ctx, it, res.err.Error())
				return s.failed(ctx, ob, failures+1, res.retryAfter, res.err)
			default:
				sent = true
			}
		}
		kv := map[string]string{stFailures: "0", stRetryAt: "0", stRateLimitEnd: "0", stLastError: shownError(parkErr)}
		if sent {
			kv[stLastSync] = msString(s.now())
		}
		if err := ob.setState(ctx, kv); err != nil {
			return err
		}
		failures = 0
	}
	return nil
}

// failed records the n-th failure in a row and when to try again.
func (s *Syncer) failed(ctx context.Context, ob *outbox, n int, retryAfter time.Duration, cause error) error {
	now := s.now()
	delay := s.opt.Backoff.Delay(n, s.rand())
	kv := map[string]string{stFailures: strconv.Itoa(n), stLastError: shownError(cause.Error())}
	if retryAfter > 0 {
		kv[stRateLimitEnd] = msString(now.Add(retryAfter))
		delay = max(delay, retryAfter)
	}
	kv[stRetryAt] = msString(now.Add(delay))
	if err := ob.setState(ctx, kv); err != nil {
		return errors.Join(cause, err)
	}
	s.log.Warn("sync: sending failed; will retry", "failures", n, "retryIn", delay.Round(time.Millisecond), "err", cause)
	return cause
}

// sendResult is what became of one row.
type sendResult struct {
	err        error         // a failure to retry later
	retryAfter time.Duration // the server's Retry-After with err
	parked     error         // the server will never take it: why (the row is parked)
	canceled   bool          // sync was turned off meanwhile
}

// send sends one row and records the outcome in the outbox.
func (s *Syncer) send(ctx context.Context, c *api.Client, ob *outbox, it item) sendResult {
	var err error
	switch it.Op {
	case opPut:
		var rec api.SessionRecord
		if err := json.Unmarshal(it.Payload, &rec); err != nil {
			return s.park(ctx, ob, it, fmt.Errorf("session %s: the queued record is unreadable: %w", it.SessionID, err))
		}
		// Queued by an older mnote, it may hold what the control plane
		// cannot store: normalize as it does.
		rec = rec.Normalize()
		var got api.SessionRecord
		got, err = c.PutSession(ctx, rec)
		if err == nil {
			return s.record(ob.done(ctx, it, got.Version, recordHash(got)))
		}
	case opDelete:
		err = c.DeleteSession(ctx, it.SessionID)
		if err == nil || api.IsNotFound(err) {
			return s.record(ob.done(ctx, it, 0, ""))
		}
	default:
		return s.park(ctx, ob, it, fmt.Errorf("session %s: unknown outbox operation %q", it.SessionID, it.Op))
	}
	if ctx.Err() != nil {
		return sendResult{canceled: true}
	}
	var ae *api.Error
	if !errors.As(err, &ae) {
		return sendResult{err: explain(err)} // network: retry
	}
	switch {
	case ae.Status == http.StatusConflict && ae.Session != nil:
		// The control plane holds a newer version: this change is
		// superseded. Later changes get a version above it.
		return s.record(ob.done(ctx, it, ae.Session.Version, recordHash(*ae.Session)))
	case ae.Status == http.StatusTooManyRequests:
		return sendResult{err: explain(ae), retryAfter: max(ae.RetryAfter, time.Second)}
	case ae.Status >= 500, ae.Status == http.StatusUnauthorized, ae.Status == http.StatusForbidden,
		ae.Status == http.StatusRequestTimeout, ae.Status == http.StatusConflict:
		return sendResult{err: explain(ae)}
	default: // 400, 404 (the id is another account's), 413, …: retrying cannot help
		return s.park(ctx, ob, it, fmt.Errorf("session %s: %w", it.SessionID, ae))
	}
}

// maxShownError bounds an error kept for Status.
const maxShownError = 1024

// shownError is an error message as kept for Status (and printed by
// `mnote sync status`): it holds the control plane's own words, so a
// hostile or broken server could send anything — control characters
// (terminal escapes) are taken out and the length is cut.
func shownError(msg string) string { return api.CleanText(msg, maxShownError) }

// park parks a row the control plane will never take, with why.
func (s *Syncer) park(ctx context.Context, ob *outbox, it item, why error) sendResult {
	if err := ob.park(ctx, it, shownError(why.Error()), s.now().UnixMilli()); err != nil {
		return sendResult{err: err}
	}
	return sendResult{parked: why}
}

func (s *Syncer) record(err error) sendResult {
	if err != nil {
		return sendResult{err: err}
	}
	return sendResult{}
}
