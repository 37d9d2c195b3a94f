package controlplane

import (
	"math"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per key: a bearer token's id (Config.RatePerSecond),
// or a client address for failed authentications (clientNet). It lives in one server
// process: with N servers behind a load balancer a token can make up to N
// times the rate.
type limiter struct {
	rate  rate.Limit
	burst int

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

// allow takes one request from key's bucket. When the bucket is empty it
// returns false and how long until a request would be allowed.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
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
