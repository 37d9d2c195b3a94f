package registry_test

import (
	"os"
	"strings"
	"testing"

	"mnote/acp/registry"
)

func TestParseRealFormat(t *testing.T) {
	data, err := os.ReadFile("testdata/registry-sample.json")
	if err != nil {
		t.Fatal(err)
	}
	idx, err := registry.Parse(data, registry.DefaultURL)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Skipped) != 0 || len(idx.Agents) != 5 {
		t.Fatalf("agents %d, skipped %+v", len(idx.Agents), idx.Skipped)
	}
	codex, ok := idx.Find("codex-acp")
	if !ok {
		t.Fatal("no codex-acp")
	}
	b := codex.Distribution.Binary["linux-x86_64"]
	if b.Cmd != "codex-acp" || !strings.HasSuffix(b.Archive, "x86_64-unknown-linux-gnu.tar.gz") || codex.License != "Apache-2.0" {
		t.Errorf("codex: %+v %+v", codex, b)
	}
	gem, _ := idx.Find("gemini")
	if gem.Distribution.NPX == nil || gem.Distribution.NPX.Package != "@google/gemini-cli@0.27.3" ||
		gem.Distribution.NPX.Args[0] != "--experimental-acp" {
		t.Errorf("gemini: %+v", gem.Distribution)
	}
	oc, _ := idx.Find("opencode")
	if oc.Icon != "https://cdn.agentclientprotocol.com/registry/v1/latest/opencode.svg" || oc.Distribution.Binary["linux-x86_64"].Args[0] != "acp" {
		t.Errorf("opencode: %+v", oc)
	}
	aug, _ := idx.Find("auggie")
	if aug.Distribution.NPX.Env["AUGMENT_DISABLE_AUTO_UPDATE"] != "1" {
		t.Errorf("auggie env: %+v", aug.Distribution.NPX)
	}
}

func TestParseSkipsBadEntries(t *testing.T) {
	const good = `{"id":"good","name":"Good","version":"1.2.3","description":"d","future":{"x":1},
		"distribution":{"npx":{"package":"good-agent"},"pip":{}}}`
	bad := map[string]string{
		"bad id":          `{"id":"../x","name":"X","version":"1.0.0","description":"d","distribution":{"npx":{"package":"x@1.0.0"}}}`,
		"upper id":        `{"id":"Abc","name":"X","version":"1.0.0","description":"d","distribution":{"npx":{"package":"x@1.0.0"}}}`,
		"tag version":     `{"id":"a1","name":"X","version":"latest","description":"d","distribution":{"npx":{"package":"x"}}}`,
		"version path":    `{"id":"a2","name":"X","version":"1.0.0/../../x","description":"d","distribution":{"npx":{"package":"x"}}}`,
		"npm range":       `{"id":"a3","name":"X","version":"1.0.0","description":"d","distribution":{"npx":{"package":"x@^1.0.0"}}}`,
		"npm flag":        `{"id":"a4","name":"X","version":"1.0.0","description":"d","distribution":{"npx":{"package":"--registry=http://evil"}}}`,
		"npm url":         `{"id":"a5","name":"X","version":"1.0.0","description":"d","distribution":{"npx":{"package":"git+https://evil/x.git"}}}`,
		"cmd escapes":     `{"id":"a6","name":"X","version":"1.0.0","description":"d","distribution":{"binary":{"linux-x86_64":{"archive":"https://x/a.zip","cmd":"../../bin/sh"}}}}`,
		"cmd absolute":    `{"id":"a7","name":"X","version":"1.0.0","description":"d","distribution":{"binary":{"linux-x86_64":{"archive":"https://x/a.zip","cmd":"/bin/sh"}}}}`,
		"file archive":    `{"id":"a8","name":"X","version":"1.0.0","description":"d","distribution":{"binary":{"linux-x86_64":{"archive":"file:///etc/passwd","cmd":"x"}}}}`,
		"bad sha":         `{"id":"a9","name":"X","version":"1.0.0","description":"d","distribution":{"binary":{"linux-x86_64":{"archive":"https://x/a.zip","cmd":"x","sha256":"zz"}}}}`,
		"wrong type":      `{"id":"b1","name":"X","version":"1.0.0","description":"d","distribution":{"npx":{"package":"x","args":"--acp"}}}`,
		"no distribution": `{"id":"b2","name":"X","version":"1.0.0","description":"d","distribution":{"pip":{"package":"x"}}}`,
		"no name":         `{"id":"b3","version":"1.0.0","description":"d","distribution":{"npx":{"package":"x"}}}`,
		"bad env":         `{"id":"b4","name":"X","version":"1.0.0","description":"d","distribution":{"npx":{"package":"x","env":{"A=B":"c"}}}}`,
		"null":            `null`,
		"number":          `42`,
		"duplicate":       good,
	}
	var entries []string
	entries = append(entries, good)
	for _, v := range bad {
		entries = append(entries, v)
	}
	idx, err := registry.Parse([]byte(`{"version":"1.0.0","agents":[`+strings.Join(entries, ",")+`],"extensions":[]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Agents) != 1 || idx.Agents[0].ID != "good" {
		t.Fatalf("agents: %+v", idx.Agents)
	}
	if got := idx.Agents[0].Distribution.NPX.Package; got != "good-agent@1.2.3" {
		t.Errorf("pinned package %q, want good-agent@1.2.3", got)
	}
	if len(idx.Skipped) != len(bad) {
		t.Errorf("skipped %d, want %d: %+v", len(idx.Skipped), len(bad), idx.Skipped)
	}
	for _, s := range idx.Skipped {
		if s.Reason == "" {
			t.Errorf("skipped without a reason: %+v", s)
		}
	}
	for _, doc := range []string{``, `[]`, `{"agents":{}}`, `{"version":"1"}`, `"x"`} {
		if _, err := registry.Parse([]byte(doc), ""); err == nil {
			t.Errorf("Parse(%q) = nil error", doc)
		}
	}
}

func TestParsePlatformsKeptOrDropped(t *testing.T) {
	doc := `{"version":"1.0.0","agents":[{"id":"p","name":"P","version":"2.0.0","description":"d","icon":"./icon.svg",
		"distribution":{"binary":{"linux-x86_64":{"archive":"https://x/p.tar.gz","cmd":"./bin/p"},
		"darwin-aarch64":{"archive":"https://x/p.zip","cmd":"../p"}}}}]}`
	idx, err := registry.Parse([]byte(doc), "https://host/registry/v1/latest/registry.json")
	if err != nil || len(idx.Agents) != 1 {
		t.Fatalf("%v %+v", err, idx)
	}
	a := idx.Agents[0]
	if _, ok := a.Distribution.Binary["darwin-aarch64"]; ok || a.Distribution.Binary["linux-x86_64"].Cmd != "bin/p" {
		t.Errorf("binary: %+v", a.Distribution.Binary)
	}
	if a.Icon != "https://host/registry/v1/latest/icon.svg" {
		t.Errorf("icon %q", a.Icon)
	}
}

func TestPlatform(t *testing.T) {
	for _, c := range [][3]string{{"linux", "amd64", "linux-x86_64"}, {"darwin", "arm64", "darwin-aarch64"},
		{"windows", "amd64", "windows-x86_64"}, {"freebsd", "amd64", ""}, {"linux", "386", ""}} {
		if got := registry.Platform(c[0], c[1]); got != c[2] {
			t.Errorf("Platform(%s, %s) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestNewer(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"1.10.0", "1.9.2", true}, {"1.9.2", "1.10.0", false}, {"1.0.0", "1.0.0", false}, {"1.0.0", "1.0.0-rc.1", true},
		{"1.0.0-rc.1", "1.0.0", false}, {"2", "1.9.9", true}, {"1.9", "1.9.0", false}} {
		if got := registry.Newer(c.a, c.b); got != c.want {
			t.Errorf("Newer(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/registry-sample.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, "https://cdn.example/registry.json")
	f.Add([]byte(`{"agents":[null,{"id":"a","name":"A","version":"1.0.0","distribution":{"binary":{"linux-x86_64":{"archive":"./a.zip","cmd":"./a"}}}}]}`), "")
	f.Add([]byte(`{"agents":[{"id":"a","name":"A","version":"1","distribution":{"uvx":{"package":"a[x]@1"}}}]}`), "http://h/")
	f.Fuzz(func(t *testing.T, data []byte, base string) {
		idx, err := registry.Parse(data, base)
		if err != nil {
			return
		}
		for _, a := range idx.Agents {
			for _, b := range a.Distribution.Binary {
				if b.Cmd == "" || strings.HasPrefix(b.Cmd, "/") || strings.HasPrefix(b.Cmd, "..") {
					t.Fatalf("cmd %q kept", b.Cmd)
				}
				if !strings.HasPrefix(b.Archive, "http") {
					t.Fatalf("archive %q kept", b.Archive)
				}
			}
			if strings.ContainsAny(a.ID+a.Version, `/\`) || a.ID == "" {
				t.Fatalf("id %q version %q kept", a.ID, a.Version)
			}
			if p := a.Distribution.NPX; p != nil && (strings.HasPrefix(p.Package, "-") || !strings.Contains(p.Package[1:], "@")) {
				t.Fatalf("npm package %q kept", p.Package)
			}
		}
	})
}
