package cloudsync_test

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // to read sync.db

	"mnote/cloudsync"
	"mnote/controlplane/api"
	"mnote/store"
)

// The control plane gives a share's link once, when the share is made,
// and lists shares without links (it keeps only the token's hash). The
// client keeps the link of each share it published, so the owner can
// copy it again: after a restart, with sync off too. A share published
// on another machine of the account is listed without a link; links of
// shares revoked (here or elsewhere) are forgotten.
func TestShareLinksKeptByTheClient(t *testing.T) {
	e := newEnv(t)
	s := e.enabled()
	snap := api.ShareSnapshot{Title: "linked", Runtime: "test", CreatedAt: time.Now(), Entries: []api.ShareEntry{{Kind: "user", Text: "hi"}}}
	sh, err := s.Publish(t.Context(), snap, meta("l1", 1), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if sh.URL == "" || sh.Token == "" {
		t.Fatalf("the new share has no link: %+v", sh)
	}

	// The control plane's own list has no link, no token.
	alice := &api.Client{BaseURL: e.cp.Direct, Token: e.token}
	remote, err := alice.ListShares(t.Context())
	if err != nil || len(remote) != 1 || remote[0].ID != sh.ID {
		t.Fatalf("remote list %+v %v", remote, err)
	}
	if remote[0].URL != "" || remote[0].Token != "" {
		t.Fatalf("the control plane lists the share's link: %+v", remote[0])
	}

	// The client's list has it, after a restart, and with sync off.
	wantLinks := func(s *cloudsync.Syncer, want map[string]string) {
		t.Helper()
		list, err := s.Shares(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, x := range list {
			got[x.ID] = x.URL
		}
		if len(got) != len(want) {
			t.Fatalf("shares %v, want %v", got, want)
		}
		for id, u := range want {
			if got[id] != u {
				t.Fatalf("share %s has the link %q, want %q", id, got[id], u)
			}
		}
	}
	wantLinks(s, map[string]string{sh.ID: sh.URL})
	s.Close()
	s = e.open()
	wantLinks(s, map[string]string{sh.ID: sh.URL})
	if err := s.Disable(); err != nil {
		t.Fatal(err)
	}
	wantLinks(s, map[string]string{sh.ID: sh.URL})
	if err := s.Enable(t.Context()); err != nil {
		t.Fatal(err)
	}

	// Another machine of the account publishes: no link here for it.
	dir := t.TempDir()
	other := &env{t: t, cp: e.cp, token: e.token,
		paths: store.Paths{ConfigFile: filepath.Join(dir, "config", "config.json"), DataDir: filepath.Join(dir, "data")}}
	o := other.enabled()
	osh, err := o.Publish(t.Context(), snap, meta("l2", 1), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	wantLinks(s, map[string]string{sh.ID: sh.URL, osh.ID: ""})
	wantLinks(o, map[string]string{sh.ID: "", osh.ID: osh.URL})

	// Revoked on the other machine: the link kept here goes too.
	if err := o.Unshare(t.Context(), sh.ID); err != nil {
		t.Fatal(err)
	}
	wantLinks(s, map[string]string{osh.ID: ""})
	if n := keptLinks(t, e.paths); n != 0 {
		t.Fatalf("%d links kept after the share was revoked elsewhere", n)
	}
	if n := keptLinks(t, other.paths); n != 1 {
		t.Fatalf("the other machine keeps %d links, want 1", n)
	}
	// Revoked where it was made: its link goes at once.
	if err := o.Unshare(t.Context(), osh.ID); err != nil {
		t.Fatal(err)
	}
	if n := keptLinks(t, other.paths); n != 0 {
		t.Fatalf("%d links kept after the share was revoked", n)
	}
}

// keptLinks counts the rows of sync.db's share_links.
func keptLinks(t *testing.T, p store.Paths) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(p.DataDir, "sync.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM share_links").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
