package fanout

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"

	"slices"
	"sync"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// Config describes a run.
type Config struct {
	// Server is the mnote-controlplane binary; DB the PostgreSQL URL all
	// servers share (a fresh database: accounts and sessions are made
	// with Prefix).
	Server, DB string
	// Instances servers (≥ 1); Sessions shared sessions of Members
	// members each; each member is a client with its own live stream,
	// on server (client number mod Instances).
	Instances, Sessions, Members int
	// Duration of the turns; Rate appends a second per session while a
	// member holds the lease; TurnEntries appends per turn (then the
	// member releases the lease and the next in the queue gets it).
	Duration    time.Duration
	Rate        float64
	TurnEntries int
	// Kill: SIGKILL the last server at half Duration (needs Instances ≥ 2).
	Kill bool
	// Prefix names the run's accounts and sessions.
	Prefix string
	// Dir holds the servers' logs (kept on failure).
	Dir string
	// Settle bounds the wait, after the turns, for every stream to hold
	// the whole log (default 30 s).
	Settle time.Duration
	// Progress, when set, gets a line now and then.
	Progress func(format string, args ...any)
}

// Result is what a run measured.
type Result struct {
	Instances, Clients, Sessions int
	Appended                     int           // entries accepted by the servers
	Delivered                    int           // (entry, member) pairs received, each once
	Expected                     int           // entries in the logs x members
	Lost, Duplicated, Corrupt    int           // must all be 0
	P50, P99, Max                time.Duration // fan-out latency: append accepted → received by another member
	Samples                      int           // latencies measured
	Reconnects                   int           // live streams re-opened after a break
	Retries                      int           // appends sent again after a transport error
	Recovered                    int           // of those, found committed by the try whose answer was lost
	LeaseLost                    int           // turns cut short by a lost lease (lease_required)
	Turns                        int           // turns taken
	Bytes                        int64         // ciphertext bytes appended
	Elapsed                      time.Duration // the turns' wall time
	Killed                       bool
	KilledClients                int // clients whose stream was on the killed server
}

// AppendRate is the accepted appends per second.
func (r Result) AppendRate() float64 { return perSecond(r.Appended, r.Elapsed) }

// DeliveryRate is the deliveries per second.
func (r Result) DeliveryRate() float64 { return perSecond(r.Delivered, r.Elapsed) }

func perSecond(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// OK reports whether nothing was lost, duplicated or corrupted.
func (r Result) OK() bool { return r.Lost == 0 && r.Duplicated == 0 && r.Corrupt == 0 }

func (r Result) String() string {
	return fmt.Sprintf("%d servers, %d clients: %d appended (%.0f/s), %d/%d delivered, lost %d, duplicated %d, corrupt %d, "+
		"fan-out p50 %.1f ms p99 %.1f ms max %.1f ms, %d reconnects, %d retries",
		r.Instances, r.Clients, r.Appended, r.AppendRate(), r.Delivered, r.Expected, r.Lost, r.Duplicated, r.Corrupt,
		ms(r.P50), ms(r.P99), ms(r.Max), r.Reconnects, r.Retries)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (c *Config) defaults() error {
	if c.Instances < 1 || c.Sessions < 1 || c.Members < 2 {
		return errors.New("fanout: need at least 1 instance, 1 session and 2 members")
	}
	if c.Kill && c.Instances < 2 {
		return errors.New("fanout: killing a server needs at least 2")
	}
	if c.Server == "" || c.DB == "" || c.Dir == "" {
		return errors.New("fanout: Server, DB and Dir are required")
	}
	if c.Rate <= 0 {
		c.Rate = 10
	}
	if c.TurnEntries <= 0 {
		c.TurnEntries = 20
	}
	if c.Duration <= 0 {
		c.Duration = 20 * time.Second
	}
	if c.Settle <= 0 {
		c.Settle = 30 * time.Second
	}
	if c.Prefix == "" {
		c.Prefix = "fan"
	}
	if c.Progress == nil {
		c.Progress = func(string, ...any) {}
	}
	return nil
}

// runner is one run's shared state.
type runner struct {
	cfg      Config
	urls     []string
	apiHTTP  *http.Client // with a timeout
	liveHTTP *http.Client // without: streams run for the whole test
	sessions []*session
	clients  []*client
}

// session is one shared session: its id, members, and what its
// appenders had accepted.
type session struct {
	id      string
	members []*client

	mu   sync.Mutex
	head int64
	sent map[int64]sent
}

type sent struct {
	hash   [32]byte
	at     time.Time // when the append was accepted
	by     int       // member index
	timely bool      // at is the accepted answer's time (not a later look-up)
}

// Run runs the test: starts the servers, makes the accounts and sessions,
// takes the turns (killing a server midway if asked), waits for every
// stream to catch up, and checks every client's record against the logs.
// An error is a failure to run; losses are in the Result (see OK).
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.defaults(); err != nil {
		return Result{}, err
	}
	tokens, err := addUsers(ctx, cfg)
	if err != nil {
		return Result{}, err
	}
	cl, err := startCluster(ctx, cfg.Server, cfg.DB, cfg.Dir, cfg.Instances, 10*time.Second)
	if err != nil {
		return Result{}, err
	}
	defer cl.stop()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	n := cfg.Sessions * cfg.Members
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 4*n, 4*n
	r := &runner{
		cfg: cfg, urls: cl.urls,
		apiHTTP:  &http.Client{Transport: tr, Timeout: 30 * time.Second},
		liveHTTP: &http.Client{Transport: tr},
	}
	if err := r.setup(ctx, tokens); err != nil {
		return Result{}, err
	}
	res, err := r.run(ctx, cl)
	if err != nil {
		return res, err
	}
	if err := cl.stop(); err != nil {
		return res, err
	}
	return res, nil
}

func (c *Config) account(s, m int) string { return fmt.Sprintf("%s-s%03d-m%d", c.Prefix, s, m) }

// addUsers makes the accounts straight in the store, as `user add` does.
func addUsers(ctx context.Context, cfg Config) ([]string, error) {
	st, err := controlplane.Open(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	tokens := make([]string, 0, cfg.Sessions*cfg.Members)
	for s := range cfg.Sessions {
		for m := range cfg.Members {
			tok, hash, err := controlplane.NewToken()
			if err != nil {
				return nil, err
			}
			if _, _, err := st.AddUser(ctx, cfg.account(s, m), hash, time.Now()); err != nil {
				return nil, fmt.Errorf("add user %s: %w", cfg.account(s, m), err)
			}
			tokens = append(tokens, tok)
		}
	}
	return tokens, nil
}

// setup shares one session per group of members: member 0 owns it and
// makes the others editors, through the first server.
func (r *runner) setup(ctx context.Context, tokens []string) error {
	cfg := r.cfg
	for s := range cfg.Sessions {
		ss := &session{id: fmt.Sprintf("%s-session-%03d", cfg.Prefix, s), sent: map[int64]sent{}}
		for m := range cfg.Members {
			g := len(r.clients)
			c := newClient(r, ss, m, cfg.account(s, m), tokens[g], g%cfg.Instances)
			ss.members = append(ss.members, c)
			r.clients = append(r.clients, c)
		}
		r.sessions = append(r.sessions, ss)
		owner := ss.members[0].apiAt(0)
		now := time.Now().UTC().Truncate(time.Second)
		rec := api.SessionRecord{ID: ss.id, Version: 1, Runtime: "claude-code", Title: "fan-out " + ss.id,
			Status: api.StatusIdle, CreatedAt: now, UpdatedAt: now}
		if _, err := owner.PutSession(ctx, rec); err != nil {
			return fmt.Errorf("put session %s: %w", ss.id, err)
		}
		if _, err := owner.ShareSession(ctx, ss.id, blobOf("roster: owner "+ss.id)); err != nil {
			return fmt.Errorf("share %s: %w", ss.id, err)
		}
		for _, m := range ss.members[1:] {
			if _, err := owner.SetMember(ctx, ss.id, m.name, api.RoleEditor, blobOf("roster: editor "+m.name)); err != nil {
				return fmt.Errorf("member %s of %s: %w", m.name, ss.id, err)
			}
		}
	}
	return nil
}

// blobOf stands for a signed statement (opaque to the server).
func blobOf(s string) []byte { return append([]byte("\x00sealed\xff"), s...) }

func (r *runner) run(ctx context.Context, cl *cluster) (Result, error) {
	cfg := r.cfg
	res := Result{Instances: cfg.Instances, Clients: len(r.clients), Sessions: cfg.Sessions}
	liveCtx, stopLive := context.WithCancel(ctx)
	defer stopLive()
	var streams sync.WaitGroup
	for _, c := range r.clients {
		streams.Go(func() { c.stream(liveCtx) })
	}
	// Every stream open and replayed before the first turn.
	for _, c := range r.clients {
		select {
		case <-c.ready:
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(cfg.Settle):
			return res, fmt.Errorf("the live stream of %s did not open in %s (logs: %s)", c.name, cfg.Settle, cfg.Dir)
		}
	}
	cfg.Progress("%d streams open on %d server(s); turns for %s", len(r.clients), cfg.Instances, cfg.Duration)
	start := time.Now()
	deadline := start.Add(cfg.Duration)
	var turns sync.WaitGroup
	errs := make(chan error, len(r.clients))
	for _, c := range r.clients {
		turns.Go(func() {
			if err := c.turns(ctx, deadline); err != nil {
				errs <- fmt.Errorf("%s: %w", c.name, err)
			}
		})
	}
	if cfg.Kill {
		victim := cfg.Instances - 1
		select {
		case <-time.After(cfg.Duration / 2):
			for _, c := range r.clients {
				if c.inst.Load() == int32(victim) {
					res.KilledClients++
				}
			}
			cfg.Progress("SIGKILL server %d (%s) with %d streams on it", victim, r.urls[victim], res.KilledClients)
			cl.procs[victim].kill()
			res.Killed = true
		case <-ctx.Done():
		}
	}
	turns.Wait()
	res.Elapsed = time.Since(start)
	close(errs)
	for err := range errs {
		return res, err
	}
	// The logs as the store holds them, then every stream up to their heads.
	logs := make([][]api.Entry, len(r.sessions))
	for i, ss := range r.sessions {
		var err error
		if logs[i], err = ss.members[0].readLog(ctx); err != nil {
			return res, fmt.Errorf("read the log of %s: %w", ss.id, err)
		}
	}
	cfg.Progress("turns done in %.1f s; waiting for every stream to hold the whole log", res.Elapsed.Seconds())
	settle := time.Now().Add(cfg.Settle)
	for i, ss := range r.sessions {
		head := int64(len(logs[i]))
		for _, c := range ss.members {
			for c.lastSeq() < head && time.Now().Before(settle) && ctx.Err() == nil {
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	stopLive()
	streams.Wait()
	r.tally(&res, logs)
	return res, ctx.Err()
}

// tally compares every client's record with the logs.
func (r *runner) tally(res *Result, logs [][]api.Entry) {
	var lat []time.Duration
	for i, ss := range r.sessions {
		log := logs[i]
		for k, e := range log {
			h := sha256.Sum256(e.Ciphertext)
			s, ok := ss.sent[e.Seq]
			if e.Seq != int64(k+1) || !ok || s.hash != h {
				res.Corrupt++ // a gap, an entry nobody sent, or other bytes
			}
		}
		for seq := range ss.sent {
			if seq < 1 || seq > int64(len(log)) {
				res.Lost++ // accepted, then not in the log
			}
		}
		res.Appended += len(ss.sent)
		res.Expected += len(log) * len(ss.members)
		for _, c := range ss.members {
			res.Reconnects += c.reconnects
			res.Retries += c.retries
			res.Recovered += c.recovered
			res.LeaseLost += c.leaseLost
			res.Turns += c.turnsTaken
			res.Bytes += c.bytes
			res.Duplicated += c.dups
			for seq, got := range c.got {
				if seq < 1 || seq > int64(len(log)) || got.hash != sha256.Sum256(log[seq-1].Ciphertext) {
					res.Corrupt++
				}
			}
			for _, e := range log {
				got, ok := c.got[e.Seq]
				if !ok {
					res.Lost++
					continue
				}
				res.Delivered++
				if s := ss.sent[e.Seq]; s.timely && s.by != c.member {
					lat = append(lat, max(0, got.at.Sub(s.at)))
				}
			}
		}
	}
	slices.Sort(lat)
	res.Samples = len(lat)
	if len(lat) > 0 {
		res.P50 = lat[len(lat)/2]
		res.P99 = lat[min(len(lat)-1, len(lat)*99/100)]
		res.Max = lat[len(lat)-1]
	}
}
