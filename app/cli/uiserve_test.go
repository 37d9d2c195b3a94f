package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mnote/acp/acptest"
)

// viteCSP is the CSP array of frontend/vite.config.ts, whose build step
// puts it into the page as a meta element.
var viteCSP = regexp.MustCompile(`(?s)const CSP = \[(.*?)\]\.join\('; '\)`)

// uiServe makes h run a binary whose `serve` serves a stand-in UI written
// here, not frontend/dist, which only the UI build fills: the serve tests
// then pass on a fresh clone. The stand-in is shaped like the built page:
// the CSP meta element the build adds (taken from frontend/vite.config.ts,
// so the header check still compares against the UI's own policy) and
// assets under ./assets/. It sets MNOTE_TEST_UI with t.Setenv, so the
// test must not be parallel.
func uiServe(t *testing.T, h *harness) {
	t.Helper()
	cfg, err := os.ReadFile(filepath.Join("..", "..", "frontend", "vite.config.ts"))
	if err != nil {
		t.Fatal(err)
	}
	m := viteCSP.FindSubmatch(cfg)
	if m == nil {
		t.Fatal("frontend/vite.config.ts has no `const CSP = [...].join('; ')` any more: update uiServe")
	}
	var parts []string
	for _, p := range regexp.MustCompile(`"([^"]*)"`).FindAllSubmatch(m[1], -1) {
		parts = append(parts, string(p[1]))
	}
	page := `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta http-equiv="Content-Security-Policy" content="` + strings.Join(parts, "; ") + `" />
    <title>mnote</title>
    <script type="module" crossorigin src="./assets/index-test.js"></script>
    <link rel="stylesheet" crossorigin href="./assets/index-test.css">
  </head>
  <body><div id="app"></div></body>
</html>
`
	dir := t.TempDir()
	files := map[string]string{
		"index.html":            page,
		"assets/index-test.js":  "document.getElementById('app').textContent = 'mnote test UI';\n",
		"assets/index-test.css": "#app { font: 14px sans-serif; }\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("MNOTE_TEST_UI", dir)
	h.bin = acptest.Binary(t, "./app/cli/testdata/uiserve", "mnote-uiserve")
}
