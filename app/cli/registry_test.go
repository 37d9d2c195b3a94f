package cli_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"mnote/acp/acptest"
	"mnote/acp/registry"
)

// fakeRegistry serves an ACP Registry index on loopback whose one agent
// is the test agent, as a tar.gz for this platform.
type fakeRegistry struct {
	mu      sync.Mutex
	version string
	srv     *httptest.Server
	tgz     []byte
}

func newFakeRegistry(t *testing.T, agentBin string) *fakeRegistry {
	t.Helper()
	bin, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "test-agent/bin/testagent", Mode: 0o755, Size: int64(len(bin)), Typeflag: tar.TypeReg})
	tw.Write(bin)
	tw.Close()
	zw.Close()
	f := &fakeRegistry{version: "0.1.0", tgz: buf.Bytes()}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		v := f.version
		f.mu.Unlock()
		switch {
		case r.URL.Path == "/registry.json":
			fmt.Fprintf(w, `{"version":"1.0.0","agents":[
				{"id":"test-agent","name":"Test Agent","version":%q,"description":"mnote's scriptable test agent","license":"MIT",
				 "icon":"./test-agent.svg","distribution":{"binary":{%q:{"archive":"./dl/%s/test-agent.tar.gz","cmd":"./test-agent/bin/testagent"}}}},
				{"id":"node-only","name":"Node Only","version":"1.0.0","description":"an npm agent","distribution":{"npx":{"package":"node-only@1.0.0"}}},
				{"id":"Bad","name":"Bad","version":"1.0.0","description":"x","distribution":{"npx":{"package":"bad"}}}
			],"extensions":[]}`, v, registry.ThisPlatform(), v)
		case r.URL.Path == "/test-agent.svg":
			w.Write([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6" fill="currentColor"/></svg>`))
		case strings.HasSuffix(r.URL.Path, "/test-agent.tar.gz"):
			w.Write(f.tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func TestAgentsFromRegistry(t *testing.T) {
	if registry.ThisPlatform() == "" {
		t.Skip("the registry has no binaries for this platform")
	}
	h := newHarness(t)
	reg := newFakeRegistry(t, h.agent)
	// No npm on the PATH: the npm agent says what to install.
	base := []string{"MNOTE_HOME=" + h.home, "PATH=/nonexistent", "HOME=" + h.home, "MNOTE_REGISTRY_URL=" + reg.srv.URL + "/registry.json"}
	h.env = append(base, "LANG=C.UTF-8")

	r := h.run("agents", "--registry", "--offline")
	if r.code == 0 || !strings.Contains(r.stderr, "never fetched") {
		t.Fatalf("offline before a fetch: %d %s", r.code, r.stderr)
	}
	r = h.run("agents", "--registry")
	if r.code != 0 || !strings.Contains(r.stdout, "ACP Registry (fetched ") || !strings.Contains(r.stdout, "not installed (binary)") ||
		!strings.Contains(r.stderr, `"Bad" skipped`) {
		t.Fatalf("--registry: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// (/usr/local/bin is searched whatever PATH says.)
	if _, err := os.Stat("/usr/local/bin/npm"); err != nil {
		if !strings.Contains(r.stdout, "needs npm") {
			t.Errorf("the npm agent without npm: %s", r.stdout)
		}
		r = h.run("agents", "--install", "node-only")
		if r.code == 0 || !strings.Contains(r.stderr, "install Node.js (npm) first, then run mnote agents --install node-only again") {
			t.Errorf("npm agent without npm: %d %s", r.code, r.stderr)
		}
	}
	r = h.run("agents", "--install", "nope")
	if r.code == 0 || !strings.Contains(r.stderr, "mnote agents --registry lists them") {
		t.Errorf("unknown id: %d %s", r.code, r.stderr)
	}

	r = h.run("agents", "--install", "test-agent")
	if r.code != 0 || !strings.Contains(r.stdout, "Installed Test Agent 0.1.0 as agent test-agent") || !strings.Contains(r.stderr, "downloading") {
		t.Fatalf("--install: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = h.run("agents")
	if r.code != 0 || !strings.Contains(r.stdout, "detected (ACP Registry 0.1.0)") {
		t.Errorf("agents: %s", r.stdout)
	}
	r = h.run("agents", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"registry": {`) || !strings.Contains(r.stdout, `"id": "test-agent"`) {
		t.Errorf("agents --json: %s", r.stdout)
	}
	p := h.run("prompt", "--json", "--agent", "test-agent", acptest.Steps(`{"message":"installed from the registry"}`))
	if p.code != 0 || p.text() != "installed from the registry" {
		t.Fatalf("prompt: %d %q %s", p.code, p.text(), p.stderr)
	}

	// A newer version: marked, then installed in place.
	reg.mu.Lock()
	reg.version = "0.2.0"
	reg.mu.Unlock()
	r = h.run("agents", "--registry", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"update": true`) || !strings.Contains(r.stdout, `"installed": "0.1.0"`) {
		t.Errorf("--registry --json: %s", r.stdout)
	}
	h.env = append(base, "LC_ALL=zh_CN.UTF-8")
	r = h.run("agents", "--registry")
	if !strings.Contains(r.stdout, "可更新 0.1.0 → 0.2.0（已安装为 test-agent）") || !strings.Contains(r.stdout, "ACP Registry（获取于 ") {
		t.Errorf("zh-CN --registry: %s", r.stdout)
	}
	h.env = append(base, "LANG=C.UTF-8")
	r = h.run("agents", "--install", "test-agent")
	if r.code != 0 || !strings.Contains(r.stdout, "Test Agent 0.2.0") {
		t.Fatalf("update: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(h.home + "/config.json"); !strings.Contains(string(b), `"version": "0.2.0"`) || strings.Contains(string(b), "0.1.0") {
		t.Errorf("config after the update:\n%s", b)
	}
	p = h.run("prompt", "--json", "--agent", "test-agent", acptest.Steps(`{"message":"updated"}`))
	if p.code != 0 || p.text() != "updated" {
		t.Fatalf("prompt after the update: %d %q %s", p.code, p.text(), p.stderr)
	}

	// Offline: the kept copy, with its date.
	reg.srv.Close()
	r = h.run("agents", "--registry")
	if r.code != 0 || !strings.Contains(r.stdout, "offline: the copy as of") || !strings.Contains(r.stdout, "installed as test-agent") {
		t.Errorf("offline: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
