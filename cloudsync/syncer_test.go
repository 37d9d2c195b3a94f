package cloudsync_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/cloudsync"
	"mnote/cloudsync/cloudsynctest"
	"mnote/controlplane/api"
	"mnote/store"
)

func TestMain(m *testing.M) { acptest.Main(m) }

// env is one machine (a data folder) and one control plane account.
type env struct {
	t     *testing.T
	cp    *cloudsynctest.Server
	token string
	paths store.Paths
	dials atomic.Int64 // connections the syncer's HTTP client opened
}

func newEnv(t *testing.T) *env {
	dir := t.TempDir()
	e := &env{t: t, cp: cloudsynctest.New(t),
		paths: store.Paths{ConfigFile: filepath.Join(dir, "config", "config.json"), DataDir: filepath.Join(dir, "data")}}
	e.token = e.cp.AddUser("alice")
	return e
}

// client counts the connections it opens.
func (e *env) client() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		e.dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func (e *env) open(opts ...func(*cloudsync.Options)) *cloudsync.Syncer {
	e.t.Helper()
	o := cloudsync.Options{Paths: e.paths, HTTP: e.client(), Backoff: cloudsync.Backoff{Base: 5 * time.Millisecond, Max: 40 * time.Millisecond}}
	for _, f := range opts {
		f(&o)
	}
	s, err := cloudsync.Open(o)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { s.Close() })
	return s
}

// enabled opens a syncer set up for the account and turned on.
func (e *env) enabled(opts ...func(*cloudsync.Options)) *cloudsync.Syncer {
	e.t.Helper()
	s := e.open(opts...)
	if err := s.Configure(e.t.Context(), e.cp.URL, &e.token, false); err != nil {
		e.t.Fatal(err)
	}
	if err := s.Enable(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) remote(id string) (api.SessionRecord, error) {
	c := &api.Client{BaseURL: e.cp.Direct, Token: e.token}
	return c.GetSession(context.Background(), id)
}

func meta(id string, turns int) cloudsync.SessionMeta {
	return cloudsync.SessionMeta{ID: id, Runtime: "test", Workspace: "/w/" + id, Title: "title " + id, Status: "ready",
		CreatedMs: 1_700_000_000_000, UpdatedMs: 1_700_000_000_000 + int64(turns), Turns: turns, Messages: 2 * turns}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func status(t *testing.T, s *cloudsync.Syncer) cloudsync.Status {
	t.Helper()
	st, err := s.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Off by default: nothing is queued, sent or even created on disk, and
// the HTTP client never dials.
func TestOffByDefault(t *testing.T) {
	e := newEnv(t)
	s := e.open()
	ctx := t.Context()
	if st := status(t, s); st.Enabled || st.Configured || st.Pending != 0 {
		t.Fatalf("status %+v", st)
	}
	if err := s.Enqueue(ctx, meta("s1", 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.SyncNow(ctx); !errors.Is(err, cloudsync.ErrDisabled) {
		t.Fatalf("SyncNow: %v", err)
	}
	if err := s.Enable(ctx); !errors.Is(err, cloudsync.ErrNotConfigured) {
		t.Fatalf("Enable without settings: %v", err)
	}
	// Set up but still off.
	if err := s.Configure(ctx, e.cp.URL, &e.token, true); err != nil {
		t.Fatal(err)
	}
	s.Enqueue(ctx, meta("s1", 2))
	s.EnqueueDelete(ctx, "s1")
	if _, err := s.Publish(ctx, api.ShareSnapshot{}, meta("s1", 2), time.Time{}); !errors.Is(err, cloudsync.ErrDisabled) {
		t.Fatalf("Publish: %v", err)
	}
	if err := s.SyncNow(ctx); !errors.Is(err, cloudsync.ErrDisabled) {
		t.Fatalf("SyncNow: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.paths.DataDir, "sync.db")); !os.IsNotExist(err) {
		t.Errorf("sync.db exists while sync is off: %v", err)
	}
	if n := e.dials.Load(); n != 0 || e.cp.Conns() != 0 {
		t.Fatalf("%d dials, %d connections while off", n, e.cp.Conns())
	}
}

// The settings and the token are private files beside config.json; the
// token is not in the settings file and survives a restart.
func TestSettingsFiles(t *testing.T) {
	e := newEnv(t)
	s := e.open()
	if err := s.Configure(t.Context(), e.cp.URL+"/", &e.token, true); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(e.paths.ConfigFile)
	for _, name := range []string{"sync.json", "sync-token"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", name, fi.Mode(), err)
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v", fi.Mode())
	}
	b, _ := os.ReadFile(filepath.Join(dir, "sync.json"))
	if strings.Contains(string(b), e.token) || !strings.Contains(string(b), e.cp.URL) {
		t.Errorf("sync.json: %s", b)
	}
	s2 := e.open()
	if st := status(t, s2); !st.Configured || st.Enabled || !st.AllowTitles || st.URL != e.cp.URL {
		t.Errorf("after restart: %+v", st)
	}
	if err := s.Configure(t.Context(), "http://example.org", nil, false); err == nil {
		t.Error("plain http to another host accepted")
	}
}

// Many changes of a session while the control plane is unreachable leave
// one row; once it answers, the latest change is sent once, and the same
// record is never sent again.
func TestOutboxCoalescesAndSendsEachChangeOnce(t *testing.T) {
	e := newEnv(t)
	// After the first failure the worker waits an hour: only SyncNow
	// sends again, so nothing is in flight while the test changes things.
	s := e.enabled(func(o *cloudsync.Options) { o.Backoff = cloudsync.Backoff{Base: time.Hour, Max: time.Hour} })
	ctx := t.Context()
	e.cp.Inject(cloudsynctest.Fault{Method: "PUT", Status: 503, Count: 1 << 20})
	s.Enqueue(ctx, meta("a", 1))
	waitFor(t, "a failed attempt", func() bool { return e.cp.Count("PUT", "") > 0 })
	for turn := 1; turn <= 5; turn++ {
		for _, id := range []string{"a", "b"} {
			if err := s.Enqueue(ctx, meta(id, turn)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if st := status(t, s); st.Pending != 2 {
		t.Fatalf("pending %d, want 2 (one per session)", st.Pending)
	}
	e.cp.ClearFaults()
	if err := s.SyncNow(ctx); err != nil {
		t.Fatalf("SyncNow: %v", err)
	}
	if got := okPuts(e.cp); got != 2 {
		t.Fatalf("%d successful PUTs, want 2", got)
	}
	for _, id := range []string{"a", "b"} {
		rec, err := e.remote(id)
		if err != nil || rec.Turns != 5 || rec.Messages != 10 {
			t.Fatalf("remote %s: %+v %v", id, rec, err)
		}
	}
	// Unchanged records are not queued again.
	n := len(e.cp.Requests())
	for range 3 {
		s.Enqueue(ctx, meta("a", 5))
	}
	if err := s.SyncNow(ctx); err != nil {
		t.Fatal(err)
	}
	if st := status(t, s); st.Pending != 0 || len(e.cp.Requests()) != n || st.LastSync.IsZero() || st.LastError != "" {
		t.Fatalf("unchanged record sent again: %d requests (was %d), %+v", len(e.cp.Requests()), n, st)
	}
	// A change is sent, with a higher version.
	old, _ := e.remote("a")
	s.Enqueue(ctx, meta("a", 6))
	if err := s.SyncNow(ctx); err != nil {
		t.Fatal(err)
	}
	if rec, _ := e.remote("a"); rec.Turns != 6 || rec.Version <= old.Version {
		t.Fatalf("after a change: %+v (was version %d)", rec, old.Version)
	}
}

// okPuts counts the record uploads the control plane accepted.
func okPuts(cp *cloudsynctest.Server) int {
	n := 0
	for _, r := range cp.Requests() {
		if r.Method == "PUT" && r.Status == 200 {
			n++
		}
	}
	return n
}

// Failures are retried with backoff until the record is delivered; no
// timing is asserted, only that it gets there and how many tries it took.
func TestRetriesWithBackoff(t *testing.T) {
	e := newEnv(t)
	e.cp.Inject(cloudsynctest.Fault{Method: "PUT", Status: 503, Count: 3})
	s := e.enabled()
	if err := s.Enqueue(t.Context(), meta("r1", 1)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the record to arrive", func() bool { return okPuts(e.cp) == 1 })
	if n := e.cp.Count("PUT", "/v1/sessions/r1"); n != 4 {
		t.Fatalf("%d PUTs, want 3 failures and 1 success", n)
	}
	if _, err := e.remote("r1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the status to clear", func() bool { st := status(t, s); return st.Pending == 0 && st.LastError == "" })
}

// A network failure (nothing listening) is retried the same way.
func TestOfflineThenOnline(t *testing.T) {
	e := newEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + ln.Addr().String()
	ln.Close()
	s := e.open()
	if err := s.Configure(t.Context(), deadURL, &e.token, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Enable(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Enqueue(t.Context(), meta("o1", 1))
	if err := s.SyncNow(t.Context()); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Fatalf("SyncNow offline: %v", err)
	}
	if st := status(t, s); st.Pending != 1 || !strings.Contains(st.LastError, "cannot reach") {
		t.Fatalf("status offline: %+v", st)
	}
	if err := s.Configure(t.Context(), e.cp.URL, nil, false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the record after coming online", func() bool { _, err := e.remote("o1"); return err == nil })
}

// 429 holds everything back until its Retry-After, even SyncNow, without
// another request.
func TestRateLimitHonoursRetryAfter(t *testing.T) {
	e := newEnv(t)
	e.cp.Inject(cloudsynctest.Fault{Method: "PUT", Status: 429, RetryAfter: 3600})
	s := e.enabled()
	s.Enqueue(t.Context(), meta("l1", 1))
	err := s.SyncNow(t.Context())
	if err == nil {
		waitFor(t, "the 429", func() bool { return e.cp.Count("PUT", "") == 1 })
		err = s.SyncNow(t.Context())
	}
	if err == nil || !strings.Contains(err.Error(), "rate") {
		t.Fatalf("SyncNow after 429: %v", err)
	}
	n := len(e.cp.Requests())
	if err := s.SyncNow(t.Context()); err == nil || !strings.Contains(err.Error(), "rate limited") {
		t.Fatalf("SyncNow during the rate limit: %v", err)
	}
	if len(e.cp.Requests()) != n {
		t.Fatal("a request was sent during the rate limit")
	}
	st := status(t, s)
	if st.Pending != 1 || st.NextAttempt.Before(time.Now().Add(59*time.Minute)) {
		t.Fatalf("status %+v", st)
	}
}

// 409 stale: the control plane holds a newer version (sent from another
// copy of this data folder, say). The change is done; the next one gets a
// version above the server's and wins.
func TestStaleIsDone(t *testing.T) {
	e := newEnv(t)
	c := &api.Client{BaseURL: e.cp.Direct, Token: e.token}
	future := api.SessionRecord{ID: "st1", Version: 9_000_000_000_000, Runtime: "other", WorkspaceID: "ab", Status: "idle",
		CreatedAt: time.Now(), UpdatedAt: time.Now(), Turns: 42}
	if _, err := c.PutSession(t.Context(), future); err != nil {
		t.Fatal(err)
	}
	s := e.enabled()
	s.Enqueue(t.Context(), meta("st1", 1))
	if err := s.SyncNow(t.Context()); err != nil {
		t.Fatalf("SyncNow: %v", err)
	}
	if e.cp.Count("PUT", "/v1/sessions/st1") != 2 { // ours, refused as stale
		t.Fatalf("PUTs: %d", e.cp.Count("PUT", "/v1/sessions/st1"))
	}
	if rec, _ := e.remote("st1"); rec.Turns != 42 || status(t, s).Pending != 0 {
		t.Fatalf("after stale: %+v", rec)
	}
	s.Enqueue(t.Context(), meta("st1", 7))
	if err := s.SyncNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec, _ := e.remote("st1"); rec.Turns != 7 || rec.Version <= future.Version {
		t.Fatalf("the next change did not win: %+v", rec)
	}
}

// Records waiting when mnote stops are sent after it starts again.
func TestRestartWithPendingRows(t *testing.T) {
	e := newEnv(t)
	e.cp.Inject(cloudsynctest.Fault{Method: "PUT", Status: 500, Count: 1 << 20})
	s := e.enabled()
	for i := range 3 {
		s.Enqueue(t.Context(), meta(fmt.Sprintf("p%d", i), 1))
	}
	waitFor(t, "a failed attempt", func() bool { return e.cp.Count("PUT", "") > 0 })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e.cp.ClearFaults()
	s2 := e.open() // sync is on in the settings: the worker starts
	waitFor(t, "the records after the restart", func() bool {
		for i := range 3 {
			if _, err := e.remote(fmt.Sprintf("p%d", i)); err != nil {
				return false
			}
		}
		return true
	})
	waitFor(t, "an empty outbox", func() bool { return status(t, s2).Pending == 0 })
}

// Turning sync off cancels the request in flight and stops all traffic:
// afterwards nothing dials, whatever is queued or asked.
func TestDisableStopsAllTraffic(t *testing.T) {
	e := newEnv(t)
	e.cp.Inject(cloudsynctest.Fault{Method: "PUT", Hang: true})
	s := e.enabled()
	s.Enqueue(t.Context(), meta("d1", 1))
	select {
	case <-e.cp.Hung():
	case <-time.After(20 * time.Second):
		t.Fatal("the request never reached the server")
	}
	if err := s.Disable(); err != nil { // returns only once the worker is gone
		t.Fatal(err)
	}
	dials, conns := e.dials.Load(), e.cp.Conns()
	waitFor(t, "the hung request to be given up", func() bool {
		for _, r := range e.cp.Requests() {
			if r.Path == "/v1/sessions/d1" && r.Status == 0 {
				return true
			}
		}
		return false
	})
	ctx := t.Context()
	s.Enqueue(ctx, meta("d1", 2))
	s.Enqueue(ctx, meta("d2", 1))
	if err := s.SyncNow(ctx); !errors.Is(err, cloudsync.ErrDisabled) {
		t.Fatalf("SyncNow: %v", err)
	}
	if _, err := s.Publish(ctx, api.ShareSnapshot{}, meta("d1", 2), time.Time{}); !errors.Is(err, cloudsync.ErrDisabled) {
		t.Fatalf("Publish: %v", err)
	}
	if e.dials.Load() != dials || e.cp.Conns() != conns {
		t.Fatalf("traffic after Disable: dials %d→%d, connections %d→%d", dials, e.dials.Load(), conns, e.cp.Conns())
	}
	if st := status(t, s); st.Enabled || st.Pending != 1 {
		t.Fatalf("status %+v (the queued change stays for later)", st)
	}
	// On again: what waited is sent.
	if err := s.Enable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.SyncNow(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.remote("d1"); err != nil {
		t.Fatal(err)
	}
}

// Remove my data deletes this account's records and shares and nothing of
// another account's; the local state is forgotten and sync is off.
func TestRemoveMyData(t *testing.T) {
	e := newEnv(t)
	bobToken := e.cp.AddUser("bob")
	bob := &api.Client{BaseURL: e.cp.Direct, Token: bobToken}
	if _, err := bob.PutSession(t.Context(), api.SessionRecord{ID: "bob1", Version: 1, Runtime: "x", WorkspaceID: "ab", Status: "idle", CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	s := e.enabled()
	for i := range 3 {
		s.Enqueue(t.Context(), meta(fmt.Sprintf("m%d", i), 1))
	}
	if err := s.SyncNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Publish(t.Context(), api.ShareSnapshot{Title: "t", Runtime: "test", CreatedAt: time.Now(), Entries: []api.ShareEntry{{Kind: "user", Text: "hi"}}}, meta("m0", 1), time.Time{}); err != nil {
		t.Fatal(err)
	}
	removed, err := s.RemoveMyData(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if removed.Sessions != 3 || removed.Shares != 1 {
		t.Fatalf("removed %+v", removed)
	}
	alice := &api.Client{BaseURL: e.cp.Direct, Token: e.token}
	if page, _ := alice.ListSessions(t.Context(), 0, ""); len(page.Sessions) != 0 {
		t.Fatalf("left: %+v", page.Sessions)
	}
	if shares, _ := alice.ListShares(t.Context()); len(shares) != 0 {
		t.Fatalf("shares left: %+v", shares)
	}
	if page, _ := bob.ListSessions(t.Context(), 0, ""); len(page.Sessions) != 1 {
		t.Fatalf("bob's sessions: %+v", page.Sessions)
	}
	if st := status(t, s); st.Enabled || st.Pending != 0 || !st.LastSync.IsZero() || !st.Configured {
		t.Fatalf("status %+v", st)
	}
	// Turned on again, everything is sent afresh (nothing is remembered as sent).
	if err := s.Enable(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Enqueue(t.Context(), meta("m1", 1))
	if err := s.SyncNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.remote("m1"); err != nil {
		t.Fatal(err)
	}
}

// Publishing sends the session's record first, then the share; the share
// page shows it; revoking removes it. A snapshot holding the token is
// refused before anything is sent.
func TestPublishAndUnshare(t *testing.T) {
	e := newEnv(t)
	s := e.enabled()
	snap := api.ShareSnapshot{Title: "A shared session", Runtime: "test", CreatedAt: time.Now(),
		Entries: []api.ShareEntry{{Kind: "user", Text: "hello <b>there</b>"}, {Kind: "assistant", Text: "general kenobi"}}}
	sh, err := s.Publish(t.Context(), snap, meta("sh1", 1), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.remote("sh1"); err != nil {
		t.Fatalf("the record was not sent first: %v", err)
	}
	resp, err := http.Get(e.cp.Direct + "/s/" + sh.Token)
	if err != nil {
		t.Fatal(err)
	}
	page := readAll(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(page, "general kenobi") || !strings.Contains(page, "&lt;b&gt;there") {
		t.Fatalf("share page %d: %.300s", resp.StatusCode, page)
	}
	list, err := s.Shares(t.Context())
	if err != nil || len(list) != 1 || list[0].ID != sh.ID {
		t.Fatalf("shares %+v %v", list, err)
	}
	if err := s.Unshare(t.Context(), sh.ID); err != nil {
		t.Fatal(err)
	}
	if resp, _ := http.Get(e.cp.Direct + "/s/" + sh.Token); resp.StatusCode != 404 {
		t.Fatalf("revoked share answers %d", resp.StatusCode)
	}
	n := len(e.cp.Requests())
	snap.Entries = append(snap.Entries, api.ShareEntry{Kind: "assistant", Text: "the token is " + e.token})
	if _, err := s.Publish(t.Context(), snap, meta("sh1", 1), time.Time{}); err == nil || !strings.Contains(err.Error(), "sync token") {
		t.Fatalf("a snapshot with the token: %v", err)
	}
	if len(e.cp.Requests()) != n {
		t.Fatal("something was sent")
	}
}

// Titles go only when allowed; allowing or forbidding them later updates
// every record.
func TestTitlesOnlyWhenAllowed(t *testing.T) {
	e := newEnv(t)
	rows := &fakeLister{rows: []store.SessionRow{{ID: "t1", Title: "Weekly review", Workspace: "/w", Runtime: "test", CreatedMs: 1, UpdatedMs: 2, Turns: 1}}}
	s := e.enabled(func(o *cloudsync.Options) { o.Sessions = rows })
	if err := s.SyncNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec, err := e.remote("t1"); err != nil || rec.Title != "" {
		t.Fatalf("title sent while not allowed: %+v %v", rec, err)
	}
	if err := s.SetAllowTitles(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if err := s.SyncNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec, _ := e.remote("t1"); rec.Title != "Weekly review" {
		t.Fatalf("title not sent once allowed: %+v", rec)
	}
	if err := s.SetAllowTitles(t.Context(), false); err != nil {
		t.Fatal(err)
	}
	if err := s.SyncNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec, _ := e.remote("t1"); rec.Title != "" {
		t.Fatalf("title kept after forbidding: %+v", rec)
	}
}

type fakeLister struct{ rows []store.SessionRow }

func (f *fakeLister) ListSessions(context.Context, store.ListOptions) ([]store.SessionRow, error) {
	return f.rows, nil
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}
