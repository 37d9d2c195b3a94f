package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"mnote/controlplane/api"
)

// Config describes a run.
type Config struct {
	BaseURL string
	// Tokens: one client per token; each token must be a different user.
	Tokens []string
	// PutsPerClient PUTs per client, spread over SessionsPerClient ids
	// (0: PutsPerClient/5, so each id gets 5 versions).
	PutsPerClient     int
	SessionsPerClient int
	// Prefix starts every session id (ids are global: use a new prefix
	// for each run against one store).
	Prefix string
	// HTTP is the client to use; nil: one with a connection per client.
	HTTP *http.Client
}

func (c *Config) sessions() int {
	if c.SessionsPerClient > 0 {
		return min(c.SessionsPerClient, c.PutsPerClient)
	}
	return max(1, c.PutsPerClient/5)
}

func (c *Config) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = len(c.Tokens) + 8
	tr.MaxIdleConnsPerHost = len(c.Tokens) + 8
	return &http.Client{Transport: tr, Timeout: 2 * time.Minute}
}

// id is session j of client i.
func (c *Config) id(client, j int) string {
	return fmt.Sprintf("%s-c%04d-s%05d", c.Prefix, client, j)
}

// finalVersion is the version session j must hold after the run.
func (c *Config) finalVersion(j int) int64 {
	s := c.sessions()
	n := c.PutsPerClient / s
	if j < c.PutsPerClient%s {
		n++
	}
	return int64(n)
}

// Result is what a run measured.
type Result struct {
	Requests   int           // PUTs answered 200
	Retries    int           // 429 answers waited out
	Elapsed    time.Duration // wall time of the whole run
	P50, P99   time.Duration // latency of one PUT
	Max        time.Duration
	Throughput float64 // PUTs per second
}

func (r Result) String() string {
	return fmt.Sprintf("%d PUTs in %.2f s: %.0f/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d retries after 429)",
		r.Requests, r.Elapsed.Seconds(), r.Throughput, ms(r.P50), ms(r.P99), ms(r.Max), r.Retries)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Run sends the PUTs, all clients at once. It fails on the first answer
// that is not a success (after waiting out 429s), and on a 200 that does
// not echo the version sent.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if len(cfg.Tokens) == 0 || cfg.PutsPerClient <= 0 || cfg.Prefix == "" {
		return Result{}, errors.New("loadgen: need tokens, PutsPerClient > 0 and a Prefix")
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hc := cfg.httpClient()
	lat := make([][]time.Duration, len(cfg.Tokens))
	retries := make([]int, len(cfg.Tokens))
	base := time.Now().UTC().Truncate(time.Second)
	var wg sync.WaitGroup
	start := time.Now()
	for i, tok := range cfg.Tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := &api.Client{BaseURL: cfg.BaseURL, Token: tok, HTTP: hc}
			lat[i] = make([]time.Duration, 0, cfg.PutsPerClient)
			s := cfg.sessions()
			for k := 0; k < cfg.PutsPerClient; k++ {
				j, v := k%s, int64(k/s+1)
				rec := api.SessionRecord{
					ID: cfg.id(i, j), Version: v, Runtime: "loadgen", WorkspaceID: "0123abcd",
					Status: api.StatusIdle, CreatedAt: base, UpdatedAt: base.Add(time.Duration(k) * time.Millisecond),
					Turns: int(v), Messages: 2 * int(v),
				}
				for {
					t0 := time.Now()
					got, err := cl.PutSession(ctx, rec)
					d := time.Since(t0)
					var ae *api.Error
					if errors.As(err, &ae) && ae.Code == api.CodeRateLimited {
						retries[i]++
						select {
						case <-time.After(max(ae.RetryAfter, 10*time.Millisecond)):
							continue
						case <-ctx.Done():
							return
						}
					}
					if err != nil {
						cancel(fmt.Errorf("client %d, put %d (%s v%d): %w", i, k, rec.ID, v, err))
						return
					}
					if got.Version != v || got.ID != rec.ID {
						cancel(fmt.Errorf("client %d: put %s v%d answered %s v%d", i, rec.ID, v, got.ID, got.Version))
						return
					}
					lat[i] = append(lat[i], d)
					break
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := context.Cause(ctx); err != nil {
		return Result{}, fmt.Errorf("loadgen: %w", err)
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	res := Result{Requests: len(all), Elapsed: elapsed, Throughput: float64(len(all)) / elapsed.Seconds()}
	for _, n := range retries {
		res.Retries += n
	}
	if len(all) > 0 {
		res.P50 = all[len(all)*50/100]
		res.P99 = all[min(len(all)-1, len(all)*99/100)]
		res.Max = all[len(all)-1]
	}
	return res, nil
}

// Verify lists every client's sessions through the API and checks that
// each client sees exactly its own SessionsPerClient records, each once,
// each at its final version: no write lost, none duplicated, none leaked
// to another user.
func Verify(ctx context.Context, cfg Config) error {
	hc := cfg.httpClient()
	s := cfg.sessions()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		sem  = make(chan struct{}, 16)
	)
	for i, tok := range cfg.Tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := verifyClient(ctx, cfg, &api.Client{BaseURL: cfg.BaseURL, Token: tok, HTTP: hc}, i, s); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return fmt.Errorf("loadgen: verify: %d of %d clients wrong; first: %w", len(errs), len(cfg.Tokens), errs[0])
	}
	return nil
}

func verifyClient(ctx context.Context, cfg Config, cl *api.Client, i, s int) error {
	seen := map[string]api.SessionRecord{}
	cursor := ""
	for {
		page, err := cl.ListSessions(ctx, 1000, cursor)
		if err != nil {
			return fmt.Errorf("client %d: list: %w", i, err)
		}
		for _, r := range page.Sessions {
			if _, dup := seen[r.ID]; dup {
				return fmt.Errorf("client %d: session %s listed twice", i, r.ID)
			}
			seen[r.ID] = r
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if len(seen) != s {
		return fmt.Errorf("client %d: %d sessions listed, want %d", i, len(seen), s)
	}
	for j := range s {
		id := cfg.id(i, j)
		r, ok := seen[id]
		if !ok {
			return fmt.Errorf("client %d: session %s missing (lost write or another user's record listed)", i, id)
		}
		if want := cfg.finalVersion(j); r.Version != want || int64(r.Turns) != want {
			return fmt.Errorf("client %d: session %s holds version %d (turns %d), want %d", i, id, r.Version, r.Turns, want)
		}
	}
	return nil
}
