package controlplane

import (
	"context"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per key: a bearer token's id (Config.RatePerSecond),
// or a client address for failed authentications (clientNet). On
// PostgreSQL the buckets are in the database (rateTaker), shared by every
// server on it: N servers allow the rate once, not N times. Otherwise,
// and while the database does not answer, they live in this process.
type limiter struct {
	rate  rate.Limit
	burst int

	shared rateTaker // nil: in memory only
	prefix string    // of the shared buckets' keys: one table, two limits
	log    *slog.Logger

	sharedFailed atomic.Int64 // unix ns of the last failure logged

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// newLimiter returns nil (no limit) when perSecond <= 0.
func newLimiter(perSecond float64, burst int) *limiter {
	if perSecond <= 0 {
		return nil
	}
	if burst <= 0 {
		burst = max(1, int(math.Ceil(perSecond)))
	}
	return &limiter{rate: rate.Limit(perSecond), burst: burst, buckets: map[string]*bucket{}}
}

// rateTaker keeps token buckets shared by several servers.
type rateTaker interface {
	// take takes a token from key's bucket (burst tokens, refilled at
	// perSecond), or says how long until one is there.
	take(ctx context.Context, key string, perSecond float64, burst int, now time.Time) (bool, time.Duration, error)
	// sweep deletes the buckets of keys with prefix idle since then.
	sweep(ctx context.Context, prefix string, idleSince time.Time) error
}

// share makes l keep its buckets in r under keys prefix+key.
func (l *limiter) share(r rateTaker, prefix string, log *slog.Logger) {
	if l != nil && r != nil {
		if log == nil {
			log = slog.Default()
		}
		l.shared, l.prefix, l.log = r, prefix, log
	}
}

// allow takes one request from key's bucket. When the bucket is empty it
// returns false and how long until a request would be allowed.
func (l *limiter) allow(ctx context.Context, key string, now time.Time) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	if l.shared != nil {
		ok, wait, err := l.shared.take(ctx, l.prefix+key, float64(l.rate), l.burst, now)
		if err == nil {
			l.sweepShared(ctx, now)
			return ok, wait
		}
		// The database does not answer: limit in memory meanwhile (the
		// request itself will most likely fail too), and say so once a
		// minute.
		if last := l.sharedFailed.Load(); now.UnixNano()-last > int64(time.Minute) && l.sharedFailed.CompareAndSwap(last, now.UnixNano()) && ctx.Err() == nil {
			l.log.Warn("rate limit: the shared buckets do not answer; limiting per server meanwhile", "err", err)
		}
	}
	return l.allowLocal(key, now)
}

// sweepShared deletes, once a minute, the shared buckets idle long enough
// to be full again.
func (l *limiter) sweepShared(ctx context.Context, now time.Time) {
	l.mu.Lock()
	due := now.Sub(l.lastSweep) >= time.Minute
	if due {
		l.lastSweep = now
	}
	l.mu.Unlock()
	if !due {
		return
	}
	refill := time.Duration(float64(l.burst) / float64(l.rate) * float64(time.Second))
	if err := l.shared.sweep(context.WithoutCancel(ctx), l.prefix, now.Add(-refill)); err != nil {
		l.log.Warn("rate limit: sweep the shared buckets", "err", err)
	}
}

func (l *limiter) allowLocal(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.rate, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// sweep drops, once a minute, the buckets idle long enough to be full
// again: a new bucket behaves the same, and the map stays small.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	refill := time.Duration(float64(l.burst) / float64(l.rate) * float64(time.Second))
	for k, b := range l.buckets {
		if now.Sub(b.seen) > refill {
			delete(l.buckets, k)
		}
	}
}

// newFailedAuthLimiter is the limiter of failed authentications per
// client address (Config.FailedAuthPerMinute).
func newFailedAuthLimiter(perMinute int) *limiter {
	switch {
	case perMinute < 0:
		return nil
	case perMinute == 0:
		perMinute = DefaultFailedAuthPerMinute
	}
	return newLimiter(float64(perMinute)/60, perMinute)
}

// clientNet is the key of a request's client for the failed
// authentication limit: its IPv4 address, or its IPv6 /64 (one host has
// a whole /64 to pick addresses from).
func clientNet(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
