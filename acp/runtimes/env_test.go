package runtimes

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// printEnv runs the resolved "agent" (a shell printing its environment)
// as mnote starts agents, and returns what it saw.
func printEnv(t *testing.T, d *Detector, rts []Runtime, name string) map[string]string {
	t.Helper()
	rt, ok := Lookup(rts, name)
	if !ok {
		t.Fatalf("no runtime %q", name)
	}
	res, err := d.Resolve(rt)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(res.Path, res.Args...)
	cmd.Env = res.Env
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	env := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	return env
}

// mnote's own environment holds cloud credentials and mnote's secrets. An
// agent gets only the allow-list plus what was configured for it (its env
// in config.json, its kept keys); with "inherit_env" it gets the rest too,
// but never mnote's own variables.
func TestAgentEnvAllowList(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	mkdir(t, home)
	mnoteEnv := map[string]string{
		"HOME": home, "AWS_SECRET_ACCESS_KEY": "aws-secret", "AWS_ACCESS_KEY_ID": "aws-id",
		"OPENAI_API_KEY": "openai-from-env", "ANTHROPIC_API_KEY": "anthropic-from-env",
		"GITHUB_TOKEN": "gh-token", "GH_TOKEN": "gh-token2", "GOOGLE_APPLICATION_CREDENTIALS": "/creds.json",
		"AZURE_CLIENT_SECRET": "azure", "DB_PASSWORD": "pw", "NODE_AUTH_TOKEN": "npm-publish",
		"CLAUDE_CODE_OAUTH_TOKEN": "claude-oauth", "GEMINI_API_KEY": "gemini", "FOO": "bar",
		"MNOTE_SYNC_TOKEN": "mnote-sync", "MNOTE_CONTROLPLANE_TOKEN": "mnote-cp", "MNOTE_DEBUG": "1",
		"MNOTE_HOME": filepath.Join(root, "mnote"), "NODE_OPTIONS": "--max-old-space-size=4096", "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"LC_ALL": "C.UTF-8", "https_proxy": "http://127.0.0.1:3128", "SSH_AUTH_SOCK": "/tmp/agent.sock",
		"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1/bus", "CODEX_HOME": filepath.Join(home, ".codex"),
		"GOOSE_PROVIDER": "ollama",
	}
	for k, v := range mnoteEnv {
		t.Setenv(k, v)
	}
	cfg := filepath.Join(root, "cfg", "config.json")
	mkdir(t, filepath.Dir(cfg))
	doc := `{"agent_servers": {
  "printenv": {"command": "/bin/sh", "args": ["-c", "env"], "env": {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "MY_TOOL_TOKEN": "configured"}},
  "printenv-all": {"command": "/bin/sh", "args": ["-c", "env"], "inherit_env": true, "env": {"EXTRA": "x"}}
}}`
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetSecret(cfg, "printenv", "OPENAI_API_KEY", "sk-kept"); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// mnote's real environment is the base (DetectOptions.Env unset).
	d := NewDetector(DetectOptions{Inherited: true})

	got := printEnv(t, d, c.Runtimes(), "printenv")
	for _, k := range []string{"AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "GH_TOKEN",
		"GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CLIENT_SECRET", "DB_PASSWORD", "NODE_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
		"GEMINI_API_KEY", "FOO", "MNOTE_SYNC_TOKEN", "MNOTE_CONTROLPLANE_TOKEN", "MNOTE_DEBUG"} {
		if v, ok := got[k]; ok {
			t.Errorf("the agent got %s=%q from mnote's environment", k, v)
		}
	}
	for k, want := range map[string]string{
		"HOME": home, "OPENAI_API_KEY": "sk-kept", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "MY_TOOL_TOKEN": "configured",
		"MNOTE_HOME": mnoteEnv["MNOTE_HOME"], "NODE_OPTIONS": mnoteEnv["NODE_OPTIONS"], "XDG_CONFIG_HOME": mnoteEnv["XDG_CONFIG_HOME"],
		"LC_ALL": "C.UTF-8", "https_proxy": mnoteEnv["https_proxy"], "SSH_AUTH_SOCK": mnoteEnv["SSH_AUTH_SOCK"],
		"DBUS_SESSION_BUS_ADDRESS": mnoteEnv["DBUS_SESSION_BUS_ADDRESS"], "CODEX_HOME": mnoteEnv["CODEX_HOME"],
		"GOOSE_PROVIDER": "ollama", "PATH": d.PATH(),
	} {
		if got[k] != want {
			t.Errorf("the agent's %s = %q, want %q", k, got[k], want)
		}
	}

	all := printEnv(t, d, c.Runtimes(), "printenv-all")
	for _, k := range []string{"MNOTE_SYNC_TOKEN", "MNOTE_CONTROLPLANE_TOKEN", "MNOTE_DEBUG"} {
		if v, ok := all[k]; ok {
			t.Errorf("with inherit_env the agent got mnote's %s=%q", k, v)
		}
	}
	for k, want := range map[string]string{
		"AWS_SECRET_ACCESS_KEY": "aws-secret", "GITHUB_TOKEN": "gh-token", "OPENAI_API_KEY": "openai-from-env",
		"FOO": "bar", "EXTRA": "x", "HOME": home, "MNOTE_HOME": mnoteEnv["MNOTE_HOME"],
	} {
		if all[k] != want {
			t.Errorf("with inherit_env the agent's %s = %q, want %q", k, all[k], want)
		}
	}

	// The setting survives a save, and sets a preset's too.
	c.AgentServers["qwen"] = AgentServer{InheritEnv: true}
	if err := SaveConfig(cfg, c); err != nil {
		t.Fatal(err)
	}
	c2, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !c2.AgentServers["printenv-all"].InheritEnv || c2.AgentServers["printenv"].InheritEnv {
		t.Errorf("inherit_env after a save: %+v", c2.AgentServers)
	}
	if q, _ := Lookup(c2.Runtimes(), "qwen"); !q.InheritEnv || q.Command != "qwen" {
		t.Errorf("qwen with inherit_env: %+v", q)
	}
}

func TestPassesEnv(t *testing.T) {
	for name, want := range map[string]bool{
		"PATH": true, "home": true, "LC_CTYPE": true, "XDG_RUNTIME_DIR": true, "XDG_SESSION_TYPE": true,
		"NODE_EXTRA_CA_CERTS": true, "npm_config_cache": true, "no_proxy": true, "CLAUDE_CONFIG_DIR": true, "MNOTE_HOME": true,
		"NODE_AUTH_TOKEN": false, "npm_config__auth": false, "XDG_SECRET": false, "CODEX_API_KEY": false,
		"AWS_PROFILE": false, "OPENAI_BASE_URL": false, "GIT_DIR": false, "MNOTE_THEME": false, "MNOTE_SYNC_TOKEN": false,
	} {
		if got := PassesEnv(name, false); got != want {
			t.Errorf("PassesEnv(%q, false) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]bool{
		"AWS_PROFILE": true, "GITHUB_TOKEN": true, "MNOTE_HOME": true,
		"MNOTE_SYNC_TOKEN": false, "MNOTE_CONTROLPLANE_URL": false, "mnote_debug": false,
	} {
		if got := PassesEnv(name, true); got != want {
			t.Errorf("PassesEnv(%q, true) = %v, want %v", name, got, want)
		}
	}
}

// Each preset gets its own provider's variables from mnote's environment,
// keys included, and no other provider's: Claude Code the Anthropic key,
// Codex and Qwen Code the OpenAI one. What looks like a key and is held
// back is named in Resolved.HeldBack (names, never values), except what
// the agent gets another way (its env, its kept key).
func TestAgentEnvProviderKeys(t *testing.T) {
	root := t.TempDir()
	env := []string{
		"HOME=" + root, "ANTHROPIC_API_KEY=sk-ant", "ANTHROPIC_BASE_URL=http://127.0.0.1:1", "CLAUDE_CODE_OAUTH_TOKEN=claude-oauth",
		"OPENAI_API_KEY=sk-openai", "CODEX_API_KEY=codex-key", "GEMINI_API_KEY=gemini", "AWS_SECRET_ACCESS_KEY=aws",
		"DASHSCOPE_API_KEY=dash", "MNOTE_SYNC_TOKEN=mnote-sync", "MNOTE_DEBUG_TOKEN=mnote-own",
	}
	cfg := filepath.Join(root, "config.json")
	doc := `{"agent_servers": {
  "claude-code": {"command": "/bin/sh", "args": ["-c", "env"]},
  "codex": {"command": "/bin/sh", "args": ["-c", "env"], "env": {"GEMINI_API_KEY": "given"}},
  "qwen": {"command": "/bin/sh", "args": ["-c", "env"]},
  "printenv": {"command": "/bin/sh", "args": ["-c", "env"]}
}}`
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetSecret(cfg, "qwen", "AWS_SECRET_ACCESS_KEY", "kept"); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDetector(DetectOptions{Inherited: true, Env: append(env, "PATH=/usr/bin:/bin")})
	all := []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_OAUTH_TOKEN", "OPENAI_API_KEY", "CODEX_API_KEY",
		"GEMINI_API_KEY", "AWS_SECRET_ACCESS_KEY", "DASHSCOPE_API_KEY", "MNOTE_SYNC_TOKEN", "MNOTE_DEBUG_TOKEN"}
	for _, tc := range []struct {
		agent    string
		gets     map[string]string
		heldBack []string
	}{
		{"claude-code", map[string]string{"ANTHROPIC_API_KEY": "sk-ant", "ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "CLAUDE_CODE_OAUTH_TOKEN": "claude-oauth"},
			[]string{"AWS_SECRET_ACCESS_KEY", "CODEX_API_KEY", "DASHSCOPE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY"}},
		{"codex", map[string]string{"OPENAI_API_KEY": "sk-openai", "CODEX_API_KEY": "codex-key", "GEMINI_API_KEY": "given"},
			[]string{"ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "DASHSCOPE_API_KEY"}},
		{"qwen", map[string]string{"OPENAI_API_KEY": "sk-openai", "DASHSCOPE_API_KEY": "dash", "AWS_SECRET_ACCESS_KEY": "kept"},
			[]string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "CODEX_API_KEY", "GEMINI_API_KEY"}},
		{"printenv", map[string]string{},
			[]string{"ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "CODEX_API_KEY", "DASHSCOPE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY"}},
	} {
		got := printEnv(t, d, c.Runtimes(), tc.agent)
		for _, k := range all {
			want, ok := tc.gets[k]
			if v, has := got[k]; has != ok || v != want {
				t.Errorf("%s: %s = %q (set %v), want %q (set %v)", tc.agent, k, v, has, want, ok)
			}
		}
		rt, _ := Lookup(c.Runtimes(), tc.agent)
		res, err := d.Resolve(rt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.HeldBack, tc.heldBack) {
			t.Errorf("%s: held back %v, want %v", tc.agent, res.HeldBack, tc.heldBack)
		}
	}
	// inherit_env holds nothing back (but mnote's own).
	c.AgentServers["printenv"] = AgentServer{Command: "/bin/sh", InheritEnv: true}
	rt, _ := Lookup(c.Runtimes(), "printenv")
	if res, err := d.Resolve(rt); err != nil || len(res.HeldBack) != 0 {
		t.Errorf("inherit_env: held back %v, %v", res.HeldBack, err)
	}
}
