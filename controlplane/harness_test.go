package controlplane_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// storeKinds are the stores every invariant runs against.
var storeKinds = []string{"sqlite", "postgres"}

// forEachStore runs fn as a subtest on a fresh SQLite file and on a fresh
// PostgreSQL database.
func forEachStore(t *testing.T, fn func(t *testing.T, h *harness), opts ...func(*controlplane.Config)) {
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			fn(t, newHarness(t, kind, opts...))
		})
	}
}

// newDB returns the --db URL of a new, empty store of kind.
func newDB(t testing.TB, kind string) string {
	t.Helper()
	switch kind {
	case "sqlite":
		return "sqlite:" + filepath.Join(t.TempDir(), "cp.db")
	case "postgres":
		return newPostgresDB(t)
	}
	t.Fatalf("unknown store kind %q", kind)
	return ""
}

// harness is a real control plane server (a loopback listener) on a real
// store, with two users, A and B.
type harness struct {
	t     testing.TB
	kind  string
	db    string
	opts  []func(*controlplane.Config)
	clock *clock
	logs  *syncBuffer

	store controlplane.Store
	srv   *httptest.Server

	A, B           *api.Client
	userA, userB   controlplane.User
	tokenA, tokenB string
}

func newHarness(t testing.TB, kind string, opts ...func(*controlplane.Config)) *harness {
	t.Helper()
	h := &harness{t: t, kind: kind, db: newDB(t, kind), opts: opts, clock: &clock{}, logs: &syncBuffer{}}
	h.start()
	t.Cleanup(h.stop)
	h.userA, h.tokenA = h.addUser("alice")
	h.userB, h.tokenB = h.addUser("bob")
	h.A = h.client(h.tokenA)
	h.B = h.client(h.tokenB)
	return h
}

func (h *harness) start() {
	h.t.Helper()
	st, err := controlplane.Open(context.Background(), h.db)
	if err != nil {
		h.t.Fatalf("open %s store: %v", h.kind, err)
	}
	cfg := controlplane.Config{
		Store:  st,
		Logger: slog.New(slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:    h.clock.now,
	}
	for _, o := range h.opts {
		o(&cfg)
	}
	h.store = st
	h.srv = httptest.NewServer(controlplane.NewServer(cfg))
	for _, c := range []*api.Client{h.A, h.B} {
		if c != nil {
			c.BaseURL = h.srv.URL
		}
	}
}

func (h *harness) stop() {
	if h.srv != nil {
		h.srv.Close()
		h.srv = nil
	}
	if h.store != nil {
		h.store.Close()
		h.store = nil
	}
}

// restart stops the server and closes the store, then opens both again
// on the same database: what survives is what was committed.
func (h *harness) restart() {
	h.t.Helper()
	h.stop()
	h.start()
}

func (h *harness) addUser(name string) (controlplane.User, string) {
	h.t.Helper()
	tok, hash, err := controlplane.NewToken()
	if err != nil {
		h.t.Fatal(err)
	}
	u, _, err := h.store.AddUser(context.Background(), name, hash, time.Now())
	if err != nil {
		h.t.Fatal(err)
	}
	return u, tok
}

func (h *harness) client(token string) *api.Client {
	return &api.Client{BaseURL: h.srv.URL, Token: token}
}

// raw sends one request as is and returns the status, headers and body.
func (h *harness) raw(method, path, token string, body []byte) (int, http.Header, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, h.srv.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("%s %s: read: %v", method, path, err)
	}
	return resp.StatusCode, resp.Header, b
}

// clock is the server's clock: real time plus an offset tests advance.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// rec returns a valid session record.
func rec(id string, version int64) api.SessionRecord {
	t := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return api.SessionRecord{
		ID: id, Version: version, Runtime: "claude-code", WorkspaceID: "9f86d081884c7d65",
		Title: "Notes cleanup", Status: api.StatusIdle, CreatedAt: t, UpdatedAt: t.Add(time.Duration(version) * time.Minute),
		Turns: int(version), Messages: 2 * int(version), ToolCalls: 1,
	}
}

// snapshot returns a share snapshot.
func snapshot(title string) api.ShareSnapshot {
	return api.ShareSnapshot{
		Title: title, Runtime: "claude-code", CreatedAt: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC),
		Entries: []api.ShareEntry{
			{Kind: api.EntryUser, Text: "Tidy up **todo.md**"},
			{Kind: api.EntryThought, Text: "The list has duplicates."},
			{Kind: api.EntryTool, Text: "- [ ] a\n- [ ] b", Title: "Edit todo.md", ToolKind: "edit", Status: "completed"},
			{Kind: api.EntryAssistant, Text: "Done: removed 3 duplicates."},
		},
	}
}

// mustPut stores r for c or fails the test.
func mustPut(t testing.TB, c *api.Client, r api.SessionRecord) api.SessionRecord {
	t.Helper()
	got, err := c.PutSession(context.Background(), r)
	if err != nil {
		t.Fatalf("put %s v%d: %v", r.ID, r.Version, err)
	}
	return got
}

func mustShare(t testing.TB, c *api.Client, sessionID string, snap api.ShareSnapshot) api.Share {
	t.Helper()
	sh, err := c.CreateShare(context.Background(), api.CreateShareRequest{SessionID: sessionID, Snapshot: snap})
	if err != nil {
		t.Fatalf("share %s: %v", sessionID, err)
	}
	return sh
}

// wantCode fails t unless err is an *api.Error with that status and code.
func wantCode(t testing.TB, err error, status int, code string) *api.Error {
	t.Helper()
	ae, ok := err.(*api.Error)
	if !ok {
		t.Fatalf("want %d %s, got %v (%T)", status, code, err, err)
	}
	if ae.Status != status || ae.Code != code {
		t.Fatalf("want %d %s, got %d %s: %s", status, code, ae.Status, ae.Code, ae.Message)
	}
	return ae
}

// path returns the path (and query) of a share URL.
func path(t testing.TB, u string) string {
	t.Helper()
	i := strings.Index(u, "/s/")
	if i < 0 {
		t.Fatalf("share URL %q has no /s/", u)
	}
	return u[i:]
}

func writeFile(p string, b []byte) error { return os.WriteFile(p, b, 0o600) }
