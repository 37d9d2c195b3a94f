package fanout

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// An append whose answer is lost after the server committed it (the
// server killed between its commit and its answer) is sent again on the
// next server, which answers conflict: the client reads that seq, finds
// its own bytes, and counts the entry once — neither a loss nor a
// second copy at the next seq.
func TestAppendWhoseAnswerWasLostIsFoundCommitted(t *testing.T) {
	st, err := controlplane.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tok, hash, err := controlplane.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.AddUser(t.Context(), "owner", hash, time.Now()); err != nil {
		t.Fatal(err)
	}
	real := httptest.NewServer(controlplane.NewServer(controlplane.Config{Store: st, Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(real.Close)

	// The first server passes requests on, but drops the answer to the
	// first append once the real server has given it: the connection
	// closes with no response.
	target, _ := url.Parse(real.URL)
	var dropped atomic.Bool
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodPut && strings.Contains(resp.Request.URL.Path, "/entries/") && dropped.CompareAndSwap(false, true) {
			io.Copy(io.Discard, resp.Body)
			panic(http.ErrAbortHandler)
		}
		return nil
	}
	flaky := httptest.NewServer(proxy)
	t.Cleanup(flaky.Close)

	r := &runner{
		cfg:     Config{Rate: 10, TurnEntries: 5},
		urls:    []string{flaky.URL, real.URL},
		apiHTTP: &http.Client{Timeout: 30 * time.Second},
	}
	ss := &session{id: "lost-answer", sent: map[int64]sent{}}
	c := newClient(r, ss, 0, "owner", tok, 0)
	ss.members = []*client{c}
	r.sessions = []*session{ss}
	a := c.apiAt(1)
	now := time.Now().UTC().Truncate(time.Second)
	if _, err := a.PutSession(t.Context(), api.SessionRecord{ID: ss.id, Version: 1, Runtime: "claude-code", Status: api.StatusIdle, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ShareSession(t.Context(), ss.id, blobOf("roster")); err != nil {
		t.Fatal(err)
	}
	if st, err := a.RequestLease(t.Context(), ss.id, "run-1", c.device); err != nil || !st.Granted {
		t.Fatalf("lease: %+v %v", st, err)
	}

	for range 2 {
		ok, err := c.append(t.Context(), "run-1", api.KindAnswer, 300)
		if err != nil || !ok {
			t.Fatalf("append: %v %v", ok, err)
		}
	}
	if !dropped.Load() || c.retries != 1 || c.recovered != 1 || c.inst.Load() != 1 {
		t.Fatalf("dropped %v, retries %d, recovered %d, on server %d", dropped.Load(), c.retries, c.recovered, c.inst.Load())
	}
	log, err := c.readLog(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || len(ss.sent) != 2 || ss.sent[1].timely || !ss.sent[2].timely {
		t.Fatalf("log of %d, sent %+v", len(log), ss.sent)
	}
	var res Result
	r.tally(&res, [][]api.Entry{log})
	if res.Corrupt != 0 || res.Appended != 2 {
		t.Fatalf("tally: %s", res)
	}
}
