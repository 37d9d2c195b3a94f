package runtimes

import (
	"path/filepath"
	"strings"
	"testing"
)

// An agent installed into mnote's agents folder after the first lookup is
// found at once (no restart), after everything on the user's PATH.
func TestAgentsDirFoundWithoutRestart(t *testing.T) {
	e := newTestEnv(t)
	d := e.detector(t, "exit 1\n")
	agents := filepath.Join(e.root, "data", "agents")
	d.SetAgentsDir(agents)
	qwen := mustLookup(t, "qwen")
	if _, err := d.Resolve(qwen); err == nil {
		t.Fatal("qwen found before it was installed")
	}
	bin := filepath.Join(d.InstallDir("qwen"), "node_modules", ".bin", "qwen")
	fakeAgent(t, bin)
	res, err := d.Resolve(qwen)
	if err != nil || res.Path != bin {
		t.Fatalf("after the install: %+v, %v", res, err)
	}
	if p := envValue(res.Env, "PATH"); !strings.HasSuffix(p, filepath.Dir(bin)) {
		t.Fatalf("the agent's PATH does not end with its bin folder: %s", p)
	}
	// The user's own install wins over mnote's.
	fakeAgent(t, filepath.Join(e.curBin, "qwen"))
	if res, err := d.Resolve(qwen); err != nil || res.Path != filepath.Join(e.curBin, "qwen") {
		t.Fatalf("with the user's own qwen: %+v, %v", res, err)
	}
}

func TestInstallDirRefusesPaths(t *testing.T) {
	d := NewDetector(DetectOptions{Inherited: true})
	if d.InstallDir("qwen") != "" {
		t.Fatal("an install folder without an agents folder")
	}
	d.SetAgentsDir("/data/agents")
	for _, bad := range []string{"", ".", "..", "../x", "a/b", `a\b`, "a\x00b"} {
		if got := d.InstallDir(bad); got != "" {
			t.Errorf("InstallDir(%q) = %q", bad, got)
		}
	}
	if got := d.InstallDir("qwen"); got != "/data/agents/qwen" {
		t.Errorf("InstallDir(qwen) = %q", got)
	}
}

// The pinned packages are the versions docs/agents.md lists as tested; an
// entry that changes the command drops it (mnote's install would not run).
func TestNPMPackagePinned(t *testing.T) {
	want := map[string]string{"qwen": "@qwen-code/qwen-code@0.24.4", "opencode": "opencode-ai@1.18.33", "reasonix": "reasonix@1.38.11"}
	for _, rt := range Presets() {
		if rt.NPMPackage != want[rt.Name] {
			t.Errorf("%s: NPMPackage %q, want %q", rt.Name, rt.NPMPackage, want[rt.Name])
		}
	}
	cfg := Config{AgentServers: map[string]AgentServer{"qwen": {Command: "/opt/qwen"}, "opencode": {Env: map[string]string{"A": "1"}}}}
	for _, rt := range cfg.Runtimes() {
		if rt.Name == "qwen" && rt.NPMPackage != "" || rt.Name == "opencode" && rt.NPMPackage == "" {
			t.Errorf("%s after config: NPMPackage %q", rt.Name, rt.NPMPackage)
		}
	}
}
