package cloudsync_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/cloudsync"
	"mnote/cloudsync/cloudsynctest"
	"mnote/controlplane/pgtest"
)

// A title with NUL, control characters and invalid UTF-8 syncs,
// normalized exactly as the control plane normalizes it, on the SQLite
// store and on PostgreSQL (which refuses NUL in text); the next pass
// sends nothing more (what the client hashed is what was stored).
func TestInvalidTitleSyncs(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t)
			if kind == "postgres" {
				pg := pgtest.StartForTest(t)
				db, err := pg.CreateDB(t.Context(), "sync_nul")
				if err != nil {
					t.Fatal(err)
				}
				e.cp = cloudsynctest.NewOn(t, db)
				e.token = e.cp.AddUser("alice")
			}
			s := e.open()
			if err := s.Configure(t.Context(), e.cp.URL, &e.token, true); err != nil {
				t.Fatal(err)
			}
			if err := s.Enable(t.Context()); err != nil {
				t.Fatal(err)
			}
			m := meta("nul1", 1)
			m.Title = "a\x00b\x01c \xff d\x7f"
			m.Runtime = "agent\x00x"
			if err := s.Enqueue(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			if err := s.SyncNow(t.Context()); err != nil {
				t.Fatalf("SyncNow: %v", err)
			}
			got, err := e.remote("nul1")
			if err != nil {
				t.Fatal(err)
			}
			if got.Title != "abc \uFFFD d" || got.Runtime != "agentx" {
				t.Fatalf("stored title %q runtime %q", got.Title, got.Runtime)
			}
			if st := status(t, s); st.Pending != 0 || st.Parked != 0 || st.LastError != "" {
				t.Fatalf("status %+v", st)
			}
			puts := e.cp.Count("PUT", "/v1/sessions/nul1")
			if err := s.Enqueue(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			if err := s.SyncNow(t.Context()); err != nil {
				t.Fatal(err)
			}
			if n := e.cp.Count("PUT", "/v1/sessions/nul1"); n != puts {
				t.Fatalf("the unchanged record was sent again (%d PUTs, was %d)", n, puts)
			}
		})
	}
}

// A record the control plane refuses for good (400) is parked with the
// refusal — shown by Status — and the records after it are sent in the
// same pass. It is not sent again unchanged; its next change is, and
// replaces it.
func TestRefusedRecordIsParked(t *testing.T) {
	e := newEnv(t)
	s := e.enabled()
	ctx := t.Context()
	e.cp.Inject(cloudsynctest.Fault{Method: "PUT", PathPrefix: "/v1/sessions/a-bad", Status: 400})
	for _, id := range []string{"a-bad", "b-ok", "c-ok"} {
		if err := s.Enqueue(ctx, meta(id, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SyncNow(ctx); err != nil {
		t.Fatalf("SyncNow: %v", err)
	}
	for _, id := range []string{"b-ok", "c-ok"} {
		if _, err := e.remote(id); err != nil {
			t.Fatalf("%s after a refused record: %v", id, err)
		}
	}
	st := status(t, s)
	if st.Pending != 0 || st.Parked != 1 || len(st.ParkedRecords) != 1 {
		t.Fatalf("status %+v", st)
	}
	p := st.ParkedRecords[0]
	if p.SessionID != "a-bad" || p.Op != "put" || !strings.Contains(p.Error, "400") || p.ParkedAt.IsZero() ||
		!strings.Contains(st.LastError, "a-bad") {
		t.Fatalf("parked %+v, last error %q", p, st.LastError)
	}
	// The same content again: not sent (it would be refused again).
	puts := e.cp.Count("PUT", "/v1/sessions/a-bad")
	if err := s.Enqueue(ctx, meta("a-bad", 1)); err != nil {
		t.Fatal(err)
	}
	if err := s.SyncNow(ctx); err != nil {
		t.Fatal(err)
	}
	if n := e.cp.Count("PUT", "/v1/sessions/a-bad"); n != puts {
		t.Fatalf("the refused record was sent again unchanged")
	}
	// Its next change is sent, and clears it.
	if err := s.Enqueue(ctx, meta("a-bad", 2)); err != nil {
		t.Fatal(err)
	}
	if err := s.SyncNow(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := e.remote("a-bad"); err != nil || got.Turns != 2 {
		t.Fatalf("the next change: %+v, %v", got, err)
	}
	if st := status(t, s); st.Parked != 0 || st.Pending != 0 {
		t.Fatalf("status after the next change %+v", st)
	}
}

// A parked record survives a restart and waits again when the URL or
// token changes: another control plane may take it.
func TestParkedRecordRetriedOnNewSettings(t *testing.T) {
	e := newEnv(t)
	s := e.enabled()
	ctx := t.Context()
	e.cp.Inject(cloudsynctest.Fault{Method: "PUT", PathPrefix: "/v1/sessions/p1", Status: 400})
	s.Enqueue(ctx, meta("p1", 1))
	if err := s.SyncNow(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = e.open()
	if st := status(t, s); st.Parked != 1 {
		t.Fatalf("after a restart: %+v", st)
	}
	other := e.cp.AddUser("alice2")
	if err := s.Configure(ctx, e.cp.URL, &other, false); err != nil {
		t.Fatal(err)
	}
	e.token = other
	if err := s.SyncNow(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.remote("p1"); err != nil {
		t.Fatalf("parked record after a new token: %v", err)
	}
	if st := status(t, s); st.Parked != 0 {
		t.Fatalf("status %+v", st)
	}
}

// The workspace id is keyed with a random salt of this user's, kept in a
// 0600 file beside config.json (made only once sync is on) and the same
// across restarts: not the plain SHA-256 of the path, which anyone who
// guesses the path could confirm.
func TestWorkspaceIDIsSalted(t *testing.T) {
	e := newEnv(t)
	saltFile := filepath.Join(filepath.Dir(e.paths.ConfigFile), "sync-salt")
	off := e.open()
	off.Enqueue(t.Context(), meta("w1", 1))
	if _, err := os.Stat(saltFile); !os.IsNotExist(err) {
		t.Fatalf("salt file made while sync is off: %v", err)
	}
	off.Close()

	s := e.enabled()
	s.Enqueue(t.Context(), meta("w1", 1))
	if err := s.SyncNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	first, err := e.remote("w1")
	if err != nil {
		t.Fatal(err)
	}
	plain := sha256.Sum256([]byte("/w/w1"))
	if first.WorkspaceID == "" || first.WorkspaceID == hex.EncodeToString(plain[:]) {
		t.Fatalf("workspace id %q is the plain hash of the path", first.WorkspaceID)
	}
	if fi, err := os.Stat(saltFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("salt file: %v %v", fi, err)
	}
	s.Close()

	again := e.open()
	again.Enqueue(t.Context(), meta("w1", 2))
	if err := again.SyncNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	second, err := e.remote("w1")
	if err != nil || second.Turns != 2 {
		t.Fatalf("after a restart: %+v, %v", second, err)
	}
	if second.WorkspaceID != first.WorkspaceID {
		t.Fatalf("workspace id changed across a restart: %s then %s", first.WorkspaceID, second.WorkspaceID)
	}
	want := cloudsync.WorkspaceID(readSalt(t, saltFile), "/w/w1")
	if first.WorkspaceID != want || first.WorkspaceID == cloudsync.WorkspaceID([]byte("another user's salt"), "/w/w1") {
		t.Fatalf("workspace id %s, want the HMAC with the saved salt %s (and another salt giving another id)", first.WorkspaceID, want)
	}
}

func readSalt(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	salt, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(salt) != 32 {
		t.Fatalf("salt file %q: %v", b, err)
	}
	return salt
}

// The control plane's words reach Status (and the terminal of `mnote
// sync status`) without control characters and cut to a bounded length,
// whatever a hostile server sends.
func TestRefusalTextIsCleaned(t *testing.T) {
	e := newEnv(t)
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":"bad_request","message":"\u001b]0;pwned\u0007\u001b[2J%s"}}`, strings.Repeat("x", 100_000))
	}))
	defer hostile.Close()
	s := e.open()
	if err := s.Configure(t.Context(), hostile.URL, &e.token, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Enable(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Enqueue(t.Context(), meta("h1", 1))
	if err := s.SyncNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := status(t, s)
	if st.Parked != 1 {
		t.Fatalf("status %+v", st)
	}
	for _, msg := range []string{st.LastError, st.ParkedRecords[0].Error} {
		if strings.ContainsAny(msg, "\x1b\x07") || len(msg) > 1024 || !strings.Contains(msg, "]0;pwned") {
			t.Fatalf("kept error (%d bytes): %.80q", len(msg), msg)
		}
	}
}
