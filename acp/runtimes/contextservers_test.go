package runtimes_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/runtimes"
)

// context_servers in Zed's shapes (command string or {path, args, env},
// url with headers), enabled false skipped, kept secrets merged into env;
// "notes_tools" survives a save and turns the tools off for that agent.
func TestContextServersAndNotesTools(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	doc := `{"agent_servers": {"qwen": {"notes_tools": false}, "mine": {"command": "/bin/mine"}},
	"context_servers": {
	  "new":   {"source": "custom", "command": "web-mcp", "args": ["--stdio"], "env": {"A": "1"}},
	  "old":   {"command": {"path": "/bin/old", "args": ["x"], "env": {"B": "2"}}},
	  "cloud": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}},
	  "off":   {"command": "y", "enabled": false}
	}}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := runtimes.SetSecret(path, runtimes.ContextServerSecretsName("new"), "KEY", "kept"); err != nil {
		t.Fatal(err)
	}
	cfg, err := runtimes.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := cfg.ContextServers()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.Name+"="+c.Command+c.URL+" "+strings.Join(c.Args, ",")+" "+c.Env["A"]+c.Env["B"]+c.Env["KEY"]+c.Headers["Authorization"])
	}
	want := "cloud=https://example.com/mcp  Bearer t|new=web-mcp --stdio 1kept|old=/bin/old x 2"
	if strings.Join(got, "|") != want {
		t.Errorf("context servers %q, want %q", strings.Join(got, "|"), want)
	}
	if err := runtimes.SaveConfig(path, cfg); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "kept") || !strings.Contains(string(b), `"notes_tools": false`) || !strings.Contains(string(b), `"context_servers"`) {
		t.Errorf("saved config: %s", b)
	}
	cfg, err = runtimes.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range cfg.Runtimes() {
		if off := rt.Name == "qwen"; rt.NoNotesTools != off && (rt.Name == "qwen" || rt.Name == "mine") {
			t.Errorf("%s: NoNotesTools %v", rt.Name, rt.NoNotesTools)
		}
	}
	for _, bad := range []string{`{"context_servers": {"x": {}}}`, `{"context_servers": {"x": {"command": "a", "url": "b"}}}`, `{"context_servers": {"x": {"command": 3}}}`} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := runtimes.LoadConfig(path)
		if err == nil {
			_, err = c.ContextServers()
		}
		if err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
