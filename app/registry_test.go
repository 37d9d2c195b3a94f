package app_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"mnote/acp/acptest"
	"mnote/acp/registry"
	"mnote/acp/runtimes"
	"mnote/app"
)

// registryServer serves an ACP Registry index on loopback: the test agent
// as a tar.gz for this platform (at version *version), an npm-only agent,
// and an agent whose archive is missing.
func registryServer(t *testing.T, version *string, mu *sync.Mutex) *httptest.Server {
	t.Helper()
	bin, err := os.ReadFile(acptest.TestAgent(t))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "bin/testagent", Mode: 0o755, Size: int64(len(bin)), Typeflag: tar.TypeReg})
	tw.Write(bin)
	tw.Close()
	zw.Close()
	tgz := buf.Bytes()
	plat := registry.ThisPlatform()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		v := *version
		mu.Unlock()
		switch {
		case r.URL.Path == "/registry.json":
			fmt.Fprintf(w, `{"version":"1.0.0","agents":[
				{"id":"test-agent","name":"Test Agent","version":%q,"description":"mnote's test agent","license":"MIT","icon":"./test-agent.svg",
				 "distribution":{"binary":{%q:{"archive":"./dl/%s.tar.gz","cmd":"./bin/testagent","env":{"FROM_REGISTRY":"1"}}}}},
				{"id":"node-only","name":"Node Only","version":"1.0.0","description":"npm","distribution":{"npx":{"package":"node-only@1.0.0"}}},
				{"id":"gone","name":"Gone","version":"1.0.0","description":"404","distribution":{"binary":{%q:{"archive":"./nothing.tar.gz","cmd":"x"}}}}
			],"extensions":[]}`, v, plat, v, plat)
		case r.URL.Path == "/test-agent.svg":
			w.Write([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M2 2h12v12H2z" fill="currentColor"/></svg>`))
		case strings.HasPrefix(r.URL.Path, "/dl/"):
			w.Header().Set("Content-Length", fmt.Sprint(len(tgz)))
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// waitRegistryInstall waits for the end of the install of id that began
// after event from.
func waitRegistryInstall(t *testing.T, h *harness, from int, id string) app.AgentInstallEvent {
	t.Helper()
	for {
		i, ev, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool { return ev.Name == app.EventAgentInstall })
		if err != nil {
			t.Fatalf("no end of the install of %s: %v", id, err)
		}
		from = i + 1
		var ie app.AgentInstallEvent
		if err := json.Unmarshal(ev.Data, &ie); err != nil {
			t.Fatal(err)
		}
		if ie.Name == "registry:"+id && ie.Phase != app.InstallRunning {
			return ie
		}
	}
}

func registryListing(t *testing.T, h *harness, refresh bool) app.RegistryListing {
	t.Helper()
	var l app.RegistryListing
	h.mustCall("agents.registry", map[string]any{"refresh": refresh}, &l)
	return l
}

func registryAgent(t *testing.T, l app.RegistryListing, id string) app.RegistryAgent {
	t.Helper()
	for _, a := range l.Agents {
		if a.ID == id {
			return a
		}
	}
	t.Fatalf("%s is not listed: %+v", id, l)
	return app.RegistryAgent{}
}

// The window's ACP Registry: nothing fetched until asked; fetched, its
// agents with icons; one installed with progress, then started for a
// session; a newer version marked and installed in place; failures named.
func TestRegistryInstallFromTheWindow(t *testing.T) {
	t.Parallel()
	if registry.ThisPlatform() == "" {
		t.Skip("the registry has no binaries for this platform")
	}
	var mu sync.Mutex
	version := "0.1.0"
	srv := registryServer(t, &version, &mu)
	env := []string{"PATH=/nonexistent", "HOME=" + t.TempDir(), "LANG=C"}
	h := newHarnessWith(t, func(cfg *app.Config) {
		cfg.RegistryURL = srv.URL + "/registry.json"
		cfg.Detector = runtimes.NewDetector(runtimes.DetectOptions{Inherited: true, Env: env})
	})

	if l := registryListing(t, h, false); l.Cached || len(l.Agents) != 0 {
		t.Fatalf("before any fetch: %+v", l)
	}
	l := registryListing(t, h, true)
	ta := registryAgent(t, l, "test-agent")
	if !l.Cached || l.Offline || l.FetchedAt == 0 || !ta.Icon || ta.Kind != registry.KindBinary || ta.Installed != "" || ta.License != "MIT" {
		t.Fatalf("listing %+v", l)
	}
	var icon map[string]string
	h.mustCall("agents.registryIcon", map[string]any{"id": "test-agent"}, &icon)
	if !strings.HasPrefix(icon["svg"], "<svg") {
		t.Errorf("icon %q", icon["svg"])
	}
	if _, err := os.Stat("/usr/local/bin/npm"); err != nil {
		if no := registryAgent(t, l, "node-only"); no.NeedTool != "npm" || no.Kind != "" {
			t.Errorf("npm agent without npm: %+v", no)
		}
		e := h.call("agents.registryInstall", map[string]any{"id": "node-only"}, nil)
		if codeOf(e) != app.CodeBadRequest || e.Reason != app.ReasonRegistryNeedsTool || e.Params["tool"] != "Node.js (npm)" {
			t.Errorf("npm agent without npm: %+v", e)
		}
	}
	if e := h.call("agents.registryInstall", map[string]any{"id": "nope"}, nil); codeOf(e) != app.CodeNotFound || e.Reason != app.ReasonRegistryUnknown {
		t.Errorf("unknown id: %+v", e)
	}

	var st app.InstallStarted
	from := h.rec.Len()
	h.mustCall("agents.registryInstall", map[string]any{"id": "test-agent"}, &st)
	end := waitRegistryInstall(t, h, from, "test-agent")
	if end.Phase != app.InstallDone || end.Line != "test-agent" {
		t.Fatalf("install ended %+v", end)
	}
	sawBytes := false
	for _, ev := range h.rec.Events()[from:] {
		var ie app.AgentInstallEvent
		if ev.Name == app.EventAgentInstall && json.Unmarshal(ev.Data, &ie) == nil && ie.Step == "download" && ie.Done > 0 && ie.Total > 0 {
			sawBytes = true
		}
	}
	if !sawBytes {
		t.Error("no download progress in bytes")
	}
	a := agentNamed(t, h, "test-agent")
	if a.Status != app.AgentReady || a.Registry == nil || a.Registry.Version != "0.1.0" || a.Title != "Test Agent" ||
		a.Path != filepath.Join(h.paths.DataDir, "agents", "registry", "test-agent", "0.1.0", "bin", "testagent") {
		t.Fatalf("installed agent %+v", a)
	}
	sum := h.create("test-agent")
	h.turnDone(sum.ID, `{"message":"hi from the registry"}`)

	mu.Lock()
	version = "0.2.0"
	mu.Unlock()
	l = registryListing(t, h, true)
	if ta = registryAgent(t, l, "test-agent"); !ta.Update || ta.Installed != "0.1.0" || ta.Runtime != "test-agent" {
		t.Fatalf("no update: %+v", ta)
	}
	from = h.rec.Len()
	h.mustCall("agents.registryInstall", map[string]any{"id": "test-agent"}, &st)
	if end := waitRegistryInstall(t, h, from, "test-agent"); end.Phase != app.InstallDone {
		t.Fatalf("update ended %+v", end)
	}
	if a = agentNamed(t, h, "test-agent"); a.Registry.Version != "0.2.0" || !strings.Contains(a.Path, "0.2.0") {
		t.Errorf("after the update: %+v", a)
	}
	if _, err := os.Stat(filepath.Join(h.paths.DataDir, "agents", "registry", "test-agent", "0.1.0")); !os.IsNotExist(err) {
		t.Errorf("the old version is still there: %v", err)
	}
	sum = h.create("test-agent")
	h.turnDone(sum.ID, `{"message":"hi from the update"}`)

	from = h.rec.Len()
	h.mustCall("agents.registryInstall", map[string]any{"id": "gone"}, &st)
	end = waitRegistryInstall(t, h, from, "gone")
	if end.Phase != app.InstallFailed || end.ErrorReason != app.ReasonRegistryInstallFailed || end.ErrorParams["agent"] != "Gone" {
		t.Errorf("missing archive: %+v", end)
	}
	if ents, _ := os.ReadDir(filepath.Join(h.paths.DataDir, "agents", "registry", "gone")); len(ents) != 0 {
		t.Errorf("a failed install left %v", ents)
	}

	// Removing it removes its folder.
	var left []app.Agent
	h.mustCall("agents.removeCustom", map[string]any{"name": "test-agent"}, &left)
	if _, err := os.Stat(filepath.Join(h.paths.DataDir, "agents", "registry", "test-agent")); !os.IsNotExist(err) {
		t.Errorf("the removed agent's folder is still there: %v", err)
	}

	srv.Close()
	if l = registryListing(t, h, true); !l.Offline || l.FetchError == "" || len(l.Agents) != 3 {
		t.Errorf("offline: %+v", l)
	}
}
