package runtimes

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestPresets(t *testing.T) {
	rts := Presets()
	want := []string{"claude-code", "codex", "gemini", "qwen", "opencode", "kimi", "hermes", "reasonix", "goose", "copilot", "cline"}
	var names []string
	for _, rt := range rts {
		names = append(names, rt.Name)
		if rt.Title == "" || rt.Command == "" || rt.InstallHint == "" || !rt.Builtin {
			t.Errorf("preset %q incomplete: %+v", rt.Name, rt)
		}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("preset names = %v, want %v", names, want)
	}

	claude, _ := Lookup(rts, "claude-code")
	if claude.Command != "claude-code-acp" || !reflect.DeepEqual(claude.Alternates, [][]string{{"claude-agent-acp"}}) {
		t.Errorf("claude-code = %+v", claude)
	}
	if got, root := claude.Env["IS_SANDBOX"], os.Geteuid() == 0; (got == "1") != root {
		t.Errorf("claude-code IS_SANDBOX = %q, running as root: %v", got, root)
	}
	gemini, _ := Lookup(rts, "gemini")
	if gemini.Command != "gemini" || !slices.Equal(gemini.Args, []string{"--acp"}) ||
		!reflect.DeepEqual(gemini.Alternates, [][]string{{"gemini", "--experimental-acp"}}) {
		t.Errorf("gemini = %+v", gemini)
	}
	qwen, _ := Lookup(rts, "qwen")
	if qwen.InstallHint != "npm install -g @qwen-code/qwen-code" {
		t.Errorf("qwen hint = %q", qwen.InstallHint)
	}

	// Each call returns fresh copies.
	rts[2].Args[0] = "changed"
	rts[0].Alternates[0][0] = "changed"
	again := Presets()
	if again[2].Args[0] != "--acp" || again[0].Alternates[0][0] != "claude-agent-acp" {
		t.Error("Presets shares slices between calls")
	}
}

func TestLookup(t *testing.T) {
	rts := Presets()
	for _, q := range []string{"qwen", "QWEN", "Qwen Code", "qwen code", " qwen "} {
		rt, ok := Lookup(rts, q)
		if !ok || rt.Name != "qwen" {
			t.Errorf("Lookup(%q) = %q, %v", q, rt.Name, ok)
		}
	}
	if _, ok := Lookup(rts, "nope"); ok {
		t.Error("Lookup(nope) found something")
	}
	if _, ok := Lookup(rts, ""); ok {
		t.Error("Lookup(\"\") found something")
	}
	// A name match wins over a title match.
	rts = append(rts, Runtime{Name: "x", Title: "qwen"})
	if rt, _ := Lookup(rts, "qwen"); rt.Name != "qwen" {
		t.Errorf("name match lost to title: %q", rt.Name)
	}
}

func TestFromCommandLine(t *testing.T) {
	tests := []struct {
		in      string
		command string
		args    []string
		env     map[string]string
	}{
		{in: "my-agent", command: "my-agent"},
		{in: "  qwen   --acp  --yolo ", command: "qwen", args: []string{"--acp", "--yolo"}},
		{in: `'/opt/my agent/bin/agent' --acp`, command: "/opt/my agent/bin/agent", args: []string{"--acp"}},
		{in: `node "/path with space/x.js" --flag="a b"`, command: "node", args: []string{"/path with space/x.js", "--flag=a b"}},
		{in: `agent it\'s\ fine "say \"hi\""`, command: "agent", args: []string{"it's fine", `say "hi"`}},
		{in: `agent '' x`, command: "agent", args: []string{"", "x"}},
		{in: `FOO=1 BAR='a b' agent --acp`, command: "agent", args: []string{"--acp"}, env: map[string]string{"FOO": "1", "BAR": "a b"}},
		{in: `agent --opt=FOO=1`, command: "agent", args: []string{"--opt=FOO=1"}},
		{in: `./agent # a comment`, command: "./agent"},
	}
	for _, tc := range tests {
		rt, err := FromCommandLine(tc.in)
		if err != nil {
			t.Errorf("FromCommandLine(%q): %v", tc.in, err)
			continue
		}
		if rt.Name != CustomName || rt.Builtin || rt.Command != tc.command || !slices.Equal(rt.Args, tc.args) || !reflect.DeepEqual(rt.Env, tc.env) {
			t.Errorf("FromCommandLine(%q) = %+v, want command %q args %q env %v", tc.in, rt, tc.command, tc.args, tc.env)
		}
	}
	for _, bad := range []string{"", "   ", `agent "unterminated`, `agent 'open`, `agent \`, "FOO=1"} {
		if rt, err := FromCommandLine(bad); err == nil {
			t.Errorf("FromCommandLine(%q) = %+v, want an error", bad, rt)
		}
	}
	if _, err := FromCommandLine("FOO=1"); !errors.Is(err, ErrNoCommand) {
		t.Errorf("env only: %v, want ErrNoCommand", err)
	}
}

const sampleConfig = `{
  "theme": "dark",
  "sync": {"enabled": false, "url": "https://example.invalid"},
  "agent_servers": {
    "My Agent": {"type": "custom", "command": "/path/x", "args": ["--acp"], "env": {"K": "V"}, "default_mode": "plan"},
    "qwen": {"args": ["--acp", "--yolo"]},
    "Claude Code": {"env": {"ANTHROPIC_API_KEY": "sk-test"}},
    "gemini": {"command": "/opt/gemini/bin/gemini"},
    "codex": {"args": []}
  }
}
`

func TestConfigMergeAndRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "config.json")
	if err := os.WriteFile(src, []byte(sampleConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	checkMerged(t, c.Runtimes())

	// Save into a folder that does not exist yet, then read it back.
	dst := filepath.Join(dir, "new", "mnote", "config.json")
	if err := SaveConfig(dst, c); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("config mode = %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(filepath.Dir(dst))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("config folder mode = %v, want 0700", di.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(dst))
	if len(entries) != 1 {
		t.Errorf("folder holds %d files, want only config.json (temp file left?)", len(entries))
	}

	c2, err := LoadConfig(dst)
	if err != nil {
		t.Fatal(err)
	}
	j1, err1 := json.Marshal(c)
	j2, err2 := json.Marshal(c2)
	if err1 != nil || err2 != nil || string(j1) != string(j2) {
		t.Errorf("round trip changed the config:\n%s\n%s (%v, %v)", j1, j2, err1, err2)
	}
	if !reflect.DeepEqual(c.AgentServers["My Agent"].Args, c2.AgentServers["My Agent"].Args) {
		t.Errorf("args changed: %+v", c2.AgentServers["My Agent"])
	}
	checkMerged(t, c2.Runtimes())

	// Unknown keys survive, at the top and inside entries; "args": [] stays.
	var doc map[string]any
	data, _ := os.ReadFile(dst)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["theme"] != "dark" || doc["sync"].(map[string]any)["url"] != "https://example.invalid" {
		t.Errorf("top-level keys lost: %s", data)
	}
	my := doc["agent_servers"].(map[string]any)["My Agent"].(map[string]any)
	if my["type"] != "custom" || my["default_mode"] != "plan" {
		t.Errorf("entry keys lost: %s", data)
	}
	if args, ok := doc["agent_servers"].(map[string]any)["codex"].(map[string]any)["args"]; !ok || len(args.([]any)) != 0 {
		t.Errorf("codex empty args lost: %s", data)
	}

	// Saving over an existing file with a wider mode tightens it.
	if err := os.Chmod(dst, 0o644); err != nil {
		t.Fatal(err)
	}
	c2.AgentServers["new"] = AgentServer{Command: "new-agent"}
	if err := SaveConfig(dst, c2); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dst); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after re-save = %v", fi.Mode().Perm())
	}
	c3, err := LoadConfig(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Lookup(c3.Runtimes(), "new"); !ok {
		t.Error("new entry not saved")
	}
}

func checkMerged(t *testing.T, rts []Runtime) {
	t.Helper()
	if len(rts) != len(Presets())+1 {
		t.Fatalf("got %d runtimes, want presets + 1", len(rts))
	}
	my, ok := Lookup(rts, "my agent")
	if !ok || my.Builtin || my.Name != "My Agent" || my.Title != "My Agent" || my.Command != "/path/x" ||
		!slices.Equal(my.Args, []string{"--acp"}) || my.Env["K"] != "V" {
		t.Errorf("custom entry = %+v", my)
	}
	if rts[len(rts)-1].Name != "My Agent" {
		t.Errorf("custom runtime not after the presets: %q", rts[len(rts)-1].Name)
	}
	qwen, _ := Lookup(rts, "qwen")
	if !qwen.Builtin || qwen.Command != "qwen" || !slices.Equal(qwen.Args, []string{"--acp", "--yolo"}) ||
		qwen.InstallHint != "npm install -g @qwen-code/qwen-code" || qwen.Title != "Qwen Code" {
		t.Errorf("qwen override = %+v", qwen)
	}
	claude, _ := Lookup(rts, "claude-code")
	if claude.Env["ANTHROPIC_API_KEY"] != "sk-test" || claude.Command != "claude-code-acp" || len(claude.Alternates) != 1 {
		t.Errorf("claude override (by title) = %+v", claude)
	}
	if os.Geteuid() == 0 && claude.Env["IS_SANDBOX"] != "1" {
		t.Errorf("claude override lost the preset env: %v", claude.Env)
	}
	gemini, _ := Lookup(rts, "gemini")
	if gemini.Command != "/opt/gemini/bin/gemini" || !slices.Equal(gemini.Args, []string{"--acp"}) || gemini.Alternates != nil {
		t.Errorf("gemini override = %+v", gemini)
	}
	codex, _ := Lookup(rts, "codex")
	if codex.Command != "codex-acp" || len(codex.Args) != 0 {
		t.Errorf("codex override = %+v", codex)
	}
}

func TestLoadConfigMissingAndEmpty(t *testing.T) {
	dir := t.TempDir()
	c, err := LoadConfig(filepath.Join(dir, "nope", "config.json"))
	if err != nil {
		t.Fatalf("missing file: %v", err)
	}
	if len(c.AgentServers) != 0 || len(c.Runtimes()) != len(Presets()) {
		t.Errorf("missing file gave %+v", c)
	}
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(empty); err != nil {
		t.Errorf("empty file: %v", err)
	}
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"theme":"light"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = LoadConfig(other)
	if err != nil || c.AgentServers != nil {
		t.Fatalf("no agent_servers: %+v, %v", c, err)
	}
	// Saving a config that never had agent_servers keeps the document as is.
	if err := SaveConfig(other, c); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(other)
	if strings.Contains(string(data), "agent_servers") || !strings.Contains(string(data), `"theme": "light"`) {
		t.Errorf("re-saved = %s", data)
	}
}

func TestLoadConfigMalformed(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, body, want string
	}{
		{"syntax.json", "{\n  \"agent_servers\": {\n    \"x\": {\"command\": \"a\",}\n  }\n}\n", "line 3, column 26"},
		{"type.json", "{\n  \"agent_servers\": {\n    \"x\": {\"args\": \"--acp\"}\n  }\n}\n", "line 3, column"},
		{"truncated.json", `{"agent_servers": {`, "line 1"},
		{"array.json", `[1, 2]`, "line 1"},
	}
	for _, tc := range tests {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadConfig(path)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, path) || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q should name the file and %q", tc.name, msg, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	c := Config{AgentServers: map[string]AgentServer{
		"qwen":       {Args: []string{"--acp"}},          // a preset: fine without command
		"OpenCode":   {Env: map[string]string{"A": "b"}}, // a preset by title
		"broken one": {Args: []string{"x"}},              // not a preset, no command
		"ok":         {Command: "ok-agent"},
	}}
	err := c.Validate()
	if err == nil || !errors.Is(err, ErrNoCommand) || !strings.Contains(err.Error(), `"broken one"`) {
		t.Fatalf("Validate = %v", err)
	}
	if strings.Contains(err.Error(), "qwen") || strings.Contains(err.Error(), "OpenCode") {
		t.Errorf("Validate blamed a preset: %v", err)
	}
	rts := c.Runtimes()
	if _, ok := Lookup(rts, "broken one"); ok {
		t.Error("invalid entry became a runtime")
	}
	if rt, _ := Lookup(rts, "ok"); rt.Command != "ok-agent" || rt.Builtin {
		t.Errorf("ok = %+v", rt)
	}
	if rt, _ := Lookup(rts, "opencode"); rt.Env["A"] != "b" || rt.Command != "opencode" {
		t.Errorf("opencode = %+v", rt)
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("empty config: %v", err)
	}
}

func TestConfigRegistryEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	doc := `{"agent_servers":{"opencode-registry":{"command":"/d/agents/registry/opencode/1.1.53/opencode","args":["acp"],
		"title":"OpenCode","registry":{"id":"opencode","version":"1.1.53"},"zed_key":1}}}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	rt, ok := Lookup(cfg.Runtimes(), "opencode-registry")
	if !ok || rt.Title != "OpenCode" || rt.Registry == nil || *rt.Registry != (RegistrySource{ID: "opencode", Version: "1.1.53"}) || rt.Builtin {
		t.Fatalf("runtime %+v", rt)
	}
	if err := SaveConfig(path, cfg); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{`"title": "OpenCode"`, `"id": "opencode"`, `"version": "1.1.53"`, `"zed_key": 1`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("saved config lacks %s:\n%s", want, b)
		}
	}
	j, _ := json.Marshal(rt)
	if !strings.Contains(string(j), `"registry":{"id":"opencode","version":"1.1.53"}`) {
		t.Errorf("runtime JSON %s", j)
	}
}
