package registry_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mnote/acp/registry"
)

func TestSourceRefreshCacheOffline(t *testing.T) {
	icon, err := os.ReadFile("testdata/opencode.svg")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	index := `{"version":"1.0.0","agents":[
		{"id":"opencode","name":"OpenCode","version":"1.1.53","description":"d","license":"MIT","icon":"./opencode.svg",
		 "distribution":{"binary":{"linux-x86_64":{"archive":"./oc.tar.gz","cmd":"./opencode","args":["acp"]}}}},
		{"id":"evil","name":"Evil","version":"1.0.0","description":"d","icon":"./evil.svg","distribution":{"npx":{"package":"evil@1.0.0"}}},
		{"id":"huge","name":"Huge","version":"1.0.0","description":"d","icon":"./huge.svg","distribution":{"npx":{"package":"huge@1.0.0"}}}
	],"extensions":[]}`
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/registry.json", func(w http.ResponseWriter, r *http.Request) { hits.Add(1); w.Write([]byte(index)) })
	mux.HandleFunc("/v1/opencode.svg", func(w http.ResponseWriter, r *http.Request) { w.Write(icon) })
	mux.HandleFunc("/v1/evil.svg", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html><script>alert(1)</script>")) })
	mux.HandleFunc("/v1/huge.svg", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<svg>" + strings.Repeat(" ", 1<<20))) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	day := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	src := &registry.Source{URL: srv.URL + "/v1/registry.json", Dir: dir, Now: func() time.Time { return day }}
	if _, err := src.Cached(); !errors.Is(err, registry.ErrNoCache) {
		t.Fatalf("Cached before any fetch: %v", err)
	}
	if hits.Load() != 0 {
		t.Fatal("Cached used the network")
	}
	l, err := src.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if l.Offline || !l.FetchedAt.Equal(day) || len(l.Agents) != 3 {
		t.Fatalf("listing %+v", l)
	}
	oc, _ := l.Find("opencode")
	if oc.Icon != srv.URL+"/v1/opencode.svg" || oc.Distribution.Binary["linux-x86_64"].Archive != srv.URL+"/v1/oc.tar.gz" {
		t.Errorf("relative URLs: %+v", oc)
	}
	if b, err := src.Icon("opencode"); err != nil || string(b) != string(icon) {
		t.Errorf("icon: %v %q", err, b)
	}
	for _, id := range []string{"evil", "huge", "../opencode", "missing"} {
		if _, err := src.Icon(id); err == nil {
			t.Errorf("icon of %s kept", id)
		}
	}

	srv.Close() // offline from now on
	l2, err := src.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !l2.Offline || l2.FetchError == "" || !l2.FetchedAt.Equal(day) || len(l2.Agents) != 3 {
		t.Errorf("offline listing %+v", l2)
	}
	c, err := (&registry.Source{Dir: dir}).Cached()
	if err != nil || !c.FetchedAt.Equal(day) || c.URL != srv.URL+"/v1/registry.json" || len(c.Agents) != 3 {
		t.Errorf("cached %+v %v", c, err)
	}
	if _, err := (&registry.Source{URL: srv.URL + "/v1/registry.json", Dir: t.TempDir()}).Refresh(t.Context()); err == nil {
		t.Error("offline without a cache: no error")
	}
}

func TestSourceRefusesBadIndex(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>oops")) }))
	defer srv.Close()
	dir := t.TempDir()
	if _, err := (&registry.Source{URL: srv.URL, Dir: dir}).Refresh(t.Context()); err == nil {
		t.Fatal("a page that is not an index was accepted")
	}
	if _, err := os.Stat(dir + "/registry.json"); err == nil {
		t.Error("the bad index was kept")
	}
}
