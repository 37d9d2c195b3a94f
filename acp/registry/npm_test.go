package registry_test

import (
	"crypto/sha1" //nolint:gosec // npm's packument checksum; not used for security here
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/registry"
	"mnote/internal/testenv"
)

// npmRegistry serves one package (a packument and its tarball) the way
// the npm registry does, on loopback.
func npmRegistry(t *testing.T, name, version string, tgz []byte) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/" + strings.ReplaceAll(name, "/", "%2f"), "/" + name, "/" + strings.ReplaceAll(name, "/", "%2F"):
			sum := sha1.Sum(tgz) //nolint:gosec // npm's shasum field
			doc := map[string]any{"name": name, "dist-tags": map[string]string{"latest": version},
				"versions": map[string]any{version: map[string]any{"name": name, "version": version,
					"bin":  map[string]string{"tiny-acp": "agent.js"},
					"dist": map[string]string{"tarball": srv.URL + "/tarballs/tiny.tgz", "shasum": hex.EncodeToString(sum[:])}}}}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(doc)
		case "/tarballs/tiny.tgz":
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestInstallNPMPinned(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		testenv.SkipOrFail(t, "npm is not installed")
	}
	pkgJSON := `{"name":"@tiny/acp-agent","version":"1.2.3","bin":{"tiny-acp":"agent.js"}}`
	tgz := tarGz(t, []entry{{name: "package/package.json", body: pkgJSON},
		{name: "package/agent.js", body: "#!/usr/bin/env node\nconsole.log('tiny-acp ' + process.argv.slice(2).join(' '))\n", mode: 0o755}})
	srv := npmRegistry(t, "@tiny/acp-agent", "1.2.3", tgz)
	home := t.TempDir()
	in := newInstaller(t)
	in.LookPath = func(name string) string {
		if name == "npm" {
			return npm
		}
		return ""
	}
	in.NPMRegistry = srv.URL
	in.Env = append(os.Environ(), "HOME="+home, "npm_config_cache="+filepath.Join(home, "npm-cache"),
		"npm_config_userconfig="+filepath.Join(home, "npmrc"), "npm_config_update_notifier=false")
	var lines int
	in.Progress = func(p registry.Progress) {
		if p.Phase == "npm" {
			lines++
		}
	}
	a := registry.Agent{ID: "tiny", Name: "Tiny", Version: "1.2.3", Description: "d", Distribution: registry.Distribution{
		NPX: &registry.Package{Package: "@tiny/acp-agent@1.2.3", Args: []string{"--acp"}, Env: map[string]string{"TINY": "1"}}}}
	res, err := in.Install(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != registry.KindNPX || res.Command != filepath.Join(in.Dir("tiny", "1.2.3"), "node_modules", ".bin", "tiny-acp") || res.Env["TINY"] != "1" {
		t.Errorf("installed %+v", res)
	}
	out, err := exec.Command(res.Command, res.Args...).CombinedOutput()
	if err != nil || string(out) != "tiny-acp --acp\n" {
		t.Errorf("run: %v %q", err, out)
	}
	if lines == 0 {
		t.Error("no npm output as progress")
	}
	if l := leftovers(t, in, "tiny", "1.2.3"); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
	// A version the registry does not have fails and leaves nothing.
	a.Version, a.Distribution.NPX.Package = "9.9.9", "@tiny/acp-agent@9.9.9"
	if _, err := in.Install(t.Context(), a); err == nil {
		t.Error("installed a version npm does not have")
	}
	if l := leftovers(t, in, "tiny", "1.2.3"); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}
