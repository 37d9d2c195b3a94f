package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/cloudsync/cloudsynctest"
	"mnote/controlplane/api"
)

// mnote sync, end to end: the real binary against a real control plane
// on loopback.
func TestSyncCommands(t *testing.T) {
	h := newHarness(t)
	cp := cloudsynctest.New(t)
	token := cp.AddUser("alice")
	remote := &api.Client{BaseURL: cp.Direct, Token: token}
	var outputs strings.Builder
	sync := func(stdin string, args ...string) run {
		t.Helper()
		r := h.runIn(stdin, args...)
		outputs.WriteString(r.stdout + r.stderr)
		return r
	}
	expect := func(r run, code int, want string) {
		t.Helper()
		if r.code != code || !strings.Contains(r.stdout+r.stderr, want) {
			t.Fatalf("exit %d (want %d), want %q in:\n%s%s", r.code, code, want, r.stdout, r.stderr)
		}
	}
	remoteCount := func() int {
		t.Helper()
		page, err := remote.ListSessions(context.Background(), 0, "")
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Sessions)
	}

	expect(sync("", "sync", "status"), 0, "off (not set up")
	expect(sync("", "sync", "on"), 2, "not set up")
	expect(sync("", "sync"), 2, "usage: mnote sync")
	expect(sync("", "sync", "frobnicate"), 2, "unknown command")
	var ids []string
	for _, text := range []string{"first", "second"} {
		r := h.run("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(`{"message":"`+text+` answer"}`))
		ids = append(ids, r.last()["sessionId"].(string))
	}

	expect(sync("not-a-token\n", "sync", "set", "--url", cp.URL, "--token-stdin"), 3, "did not accept the token")
	expect(sync(token+"\n", "sync", "set", "--url", cp.URL, "--token-stdin"), 0, "Signed in to "+cp.URL+" as alice")
	expect(sync("", "sync", "set", "--url", "http://example.org", "--token-stdin"), 2, "--token-stdin")
	expect(sync("x\n", "sync", "set", "--url", "http://example.org", "--token-stdin"), 2, "plain http")
	if n := remoteCount(); n != 0 {
		t.Fatalf("%d records sent before sync was turned on", n)
	}
	expect(sync("", "sync", "now"), 3, "sync is off")

	expect(sync("", "sync", "on"), 0, "Synced; 0 records waiting")
	if n := remoteCount(); n != 2 {
		t.Fatalf("%d records after sync on, want 2", n)
	}
	rec, err := remote.GetSession(context.Background(), ids[0])
	if err != nil || rec.Title != "" || rec.Turns != 1 || rec.Runtime == "" {
		t.Fatalf("record %+v %v", rec, err)
	}
	h.run("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(`{"message":"third answer"}`))
	expect(sync("", "sync", "now"), 0, "Synced")
	if n := remoteCount(); n != 3 {
		t.Fatalf("%d records after sync now, want 3", n)
	}
	r := sync("", "sync", "status", "--json")
	var st struct {
		Enabled  bool   `json:"enabled"`
		Pending  int    `json:"pending"`
		LastSync string `json:"lastSync"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || !st.Enabled || st.Pending != 0 || st.LastSync == "" {
		t.Fatalf("status: %s %v", r.stdout, err)
	}
	expect(sync("", "sync", "status"), 0, "Sync:          on")

	// Titles, once allowed.
	expect(sync(token+"\n", "sync", "set", "--url", cp.URL, "--token-stdin", "--allow-titles"), 0, "Signed in")
	expect(sync("", "sync", "now"), 0, "Synced")
	if rec, _ := remote.GetSession(context.Background(), ids[0]); rec.Title == "" {
		t.Fatal("no title once titles are allowed")
	}

	// A share: published redacted, listed, shown, revoked.
	r = sync("", "sync", "share", "--expires", "1h", ids[1])
	expect(r, 0, "/s/")
	shareURL := strings.TrimSpace(r.stdout)
	page := httpGet(t, strings.Replace(shareURL, cp.URL, cp.Direct, 1))
	if !strings.Contains(page, "second answer") || strings.Contains(page, h.ws) {
		t.Fatalf("share page: %.400s", page)
	}
	shares, err := remote.ListShares(context.Background())
	if err != nil || len(shares) != 1 {
		t.Fatalf("shares %+v %v", shares, err)
	}
	expect(sync("", "sync", "shares"), 0, shares[0].ID)
	if shares[0].URL != "" {
		t.Fatalf("the control plane lists the share's link: %s", shares[0].URL)
	}
	expect(sync("", "sync", "shares"), 0, shareURL) // kept by the client
	expect(sync("", "sync", "unshare", shares[0].ID), 0, "revoked")
	expect(sync("", "sync", "shares"), 0, "No shares")

	// Off: nothing more is sent.
	expect(sync("", "sync", "off"), 0, "Sync is off")
	n := len(cp.Requests())
	h.run("prompt", "--json", "--agent-cmd", h.agent, acptest.Steps(`{"message":"fourth answer"}`))
	expect(sync("", "sync", "now"), 3, "sync is off")
	expect(sync("", "sync", "status"), 0, "Sync:          off")
	if len(cp.Requests()) != n {
		t.Fatal("requests were sent while sync was off")
	}

	// Remove my data.
	expect(sync("", "sync", "remove-data"), 0, "Deleted 3 session records and 0 shares")
	if n := remoteCount(); n != 0 {
		t.Fatalf("%d records left", n)
	}

	// The token is kept private and never printed.
	fi, err := os.Stat(filepath.Join(h.home, "sync-token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	if strings.Contains(outputs.String(), token) {
		t.Fatal("the token was printed")
	}
	// Nowhere on disk but its own file: not in logs, settings, the
	// outbox, the index or transcripts.
	filepath.WalkDir(h.home, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "sync-token" {
			return nil
		}
		if b, _ := os.ReadFile(path); strings.Contains(string(b), token) {
			t.Errorf("the token is in %s", path)
		}
		return nil
	})
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}
