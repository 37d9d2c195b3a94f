package runtimes

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A key set with SetSecret is kept in a private file beside config.json,
// reaches the agent's environment through Resolve, and appears in no JSON
// view of the runtime and in no log line.
func TestSecrets(t *testing.T) {
	e := newTestEnv(t)
	fakeAgent(t, filepath.Join(e.curBin, "qwen"))
	cfgDir := filepath.Join(e.root, "cfg", "mnote")
	cfg := filepath.Join(cfgDir, "config.json")
	const value = "sk-secret-7f3a9c"

	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	if err := SetSecret(cfg, "qwen", "OPENAI_API_KEY", value); err != nil {
		t.Fatal(err)
	}
	if err := SetSecret(cfg, "QWEN", "OTHER", "x"); err != nil { // names match ignoring case
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{SecretsPath(cfg): 0o600, cfgDir: 0o700} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", path, fi.Mode().Perm(), want, err)
		}
	}
	if entries, _ := os.ReadDir(cfgDir); len(entries) != 1 {
		t.Errorf("config folder holds %d files, want only secrets.json", len(entries))
	}

	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	qwen, _ := Lookup(c.Runtimes(), "qwen")
	if got := qwen.SecretNames(); !slices.Equal(got, []string{"OPENAI_API_KEY", "OTHER"}) {
		t.Errorf("secret names = %v", got)
	}
	if other, _ := Lookup(c.Runtimes(), "codex"); len(other.SecretNames()) != 0 {
		t.Errorf("codex got qwen's secrets: %v", other.SecretNames())
	}
	d := NewDetector(DetectOptions{Env: []string{"HOME=" + e.home, "PATH=" + e.curBin, "OPENAI_API_KEY=from-mnote-env"},
		Inherited: true, noSystemDirs: true, Logger: slog.Default()})
	res, err := d.Resolve(qwen)
	if err != nil {
		t.Fatal(err)
	}
	if envValue(res.Env, "OPENAI_API_KEY") != value {
		t.Errorf("agent env OPENAI_API_KEY = %q, want the kept value", envValue(res.Env, "OPENAI_API_KEY"))
	}
	// No JSON view carries the value.
	views := []any{qwen, res, d.Status(c.Runtimes()), c}
	for _, v := range views {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(value)) {
			t.Errorf("%T serializes the secret: %s", v, b)
		}
	}
	if err := SaveConfig(cfg, c); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cfg); bytes.Contains(b, []byte(value)) {
		t.Errorf("SaveConfig wrote the secret into config.json: %s", b)
	}

	// An empty value removes it; the other stays.
	if err := SetSecret(cfg, "qwen", "OPENAI_API_KEY", ""); err != nil {
		t.Fatal(err)
	}
	s, err := SecretsFor(cfg)
	if err != nil || !slices.Equal(s.Names()["qwen"], []string{"OTHER"}) {
		t.Errorf("after removal: %v, %v", s.Names(), err)
	}

	// Refused names.
	for _, name := range []string{"MNOTE_SYNC_TOKEN", "mnote_controlplane_x", "1BAD", "A-B", ""} {
		if err := SetSecret(cfg, "qwen", name, "v"); err == nil {
			t.Errorf("SetSecret(%q) accepted", name)
		}
	}
	if err := SetSecret(cfg, " ", "K", "v"); err == nil {
		t.Error("SetSecret with no agent name accepted")
	}
	if strings.Contains(logs.String(), value) {
		t.Errorf("a log line carries the secret:\n%s", logs.String())
	}
}

func TestSecretsFileProblems(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	// Readable by others: made private when read.
	if err := os.WriteFile(SecretsPath(cfg), []byte(`{"agents":{"qwen":{"K":"v"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := SecretsFor(cfg)
	if err != nil || s.For("qwen")["K"] != "v" {
		t.Fatalf("secrets = %v, %v", s, err)
	}
	if fi, _ := os.Stat(SecretsPath(cfg)); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	// Malformed: an error that names the file and position, not its content.
	if err := os.WriteFile(SecretsPath(cfg), []byte(`{"agents":{"qwen":{"K":"sk-leak"`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = LoadConfig(cfg)
	if err == nil || !strings.Contains(err.Error(), SecretsFileName) || strings.Contains(err.Error(), "sk-leak") {
		t.Errorf("LoadConfig with a broken secrets file: %v", err)
	}
	// Setting a key does not overwrite a file it cannot read.
	if err := SetSecret(cfg, "qwen", "K", "new"); err == nil {
		t.Error("SetSecret replaced a malformed secrets file")
	}
	if b, _ := os.ReadFile(SecretsPath(cfg)); !bytes.Contains(b, []byte("sk-leak")) {
		t.Error("the malformed file was lost")
	}
}

func TestPresetHintsAndInitTimeout(t *testing.T) {
	for _, rt := range Presets() {
		if rt.LoginHint == "" {
			t.Errorf("preset %s has no login hint", rt.Name)
		}
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	doc := `{"agent_servers":{"claude-code":{"init_timeout_secs":180},"slow":{"command":"slow-agent","init_timeout_secs":45}}}`
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rts := c.Runtimes()
	claude, _ := Lookup(rts, "claude-code")
	slow, _ := Lookup(rts, "slow")
	qwen, _ := Lookup(rts, "qwen")
	if claude.InitTimeoutSecs != 180 || slow.InitTimeoutSecs != 45 || qwen.InitTimeoutSecs != 0 || claude.Command != "claude-code-acp" {
		t.Errorf("init timeouts: claude %d slow %d qwen %d", claude.InitTimeoutSecs, slow.InitTimeoutSecs, qwen.InitTimeoutSecs)
	}
	// Saved back as it was.
	if err := SaveConfig(cfg, c); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cfg); !bytes.Contains(b, []byte(`"init_timeout_secs": 45`)) {
		t.Errorf("saved config: %s", b)
	}
	if err := os.WriteFile(cfg, []byte(`{"agent_servers":{"x":{"command":"x","init_timeout_secs":-1}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfg); err == nil || !strings.Contains(err.Error(), "init_timeout_secs") {
		t.Errorf("negative timeout: %v", err)
	}
}
