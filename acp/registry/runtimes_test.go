package registry_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"mnote/acp/registry"
	"mnote/acp/runtimes"
)

func TestInstallAgentRecordsAndUpdates(t *testing.T) {
	srv, _ := serve(t, map[string][]byte{"/v1/tool": []byte(script), "/v2/tool": []byte(script)})
	in := newInstaller(t)
	config := filepath.Join(t.TempDir(), "config.json")
	v1 := binaryAgent("tool", "1.0.0", srv.URL+"/v1/tool", "tool", "")
	v1.Name = "Tool Agent"
	v1.Distribution.Binary["linux-x86_64"] = registry.Binary{Archive: srv.URL + "/v1/tool", Cmd: "tool", Env: map[string]string{"TOOL_NO_UPDATE": "1"}}
	name, res, err := registry.InstallAgent(t.Context(), in, config, v1)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := runtimes.LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	rt, ok := runtimes.Lookup(cfg.Runtimes(), name)
	if !ok || name != "tool" || rt.Title != "Tool Agent" || rt.Command != res.Command || rt.Env["TOOL_NO_UPDATE"] != "1" ||
		rt.Registry == nil || rt.Registry.Version != "1.0.0" {
		t.Fatalf("runtime %q %+v", name, rt)
	}
	// The user gives it a variable of their own; an update keeps it.
	entry := cfg.AgentServers[name]
	entry.Env["MY_VAR"] = "mine"
	cfg.AgentServers[name] = entry
	if err := runtimes.SaveConfig(config, cfg); err != nil {
		t.Fatal(err)
	}

	v2 := binaryAgent("tool", "1.1.0", srv.URL+"/v2/tool", "tool", "")
	v2.Name = "Tool Agent"
	es := registry.Entries(registry.Index{Agents: []registry.Agent{v2}}, cfg.Runtimes(), in)
	if len(es) != 1 || es[0].Runtime != "tool" || es[0].Installed != "1.0.0" || !es[0].Update || es[0].Kind != registry.KindBinary {
		t.Fatalf("entries %+v", es)
	}
	name2, res2, err := registry.InstallAgent(t.Context(), in, config, v2)
	if err != nil || name2 != name {
		t.Fatalf("update: %q %v", name2, err)
	}
	cfg, _ = runtimes.LoadConfig(config)
	rt, _ = runtimes.Lookup(cfg.Runtimes(), name)
	if rt.Command != res2.Command || rt.Registry.Version != "1.1.0" || rt.Env["MY_VAR"] != "mine" {
		t.Errorf("updated runtime %+v", rt)
	}
	if _, err := os.Stat(in.Dir("tool", "1.0.0")); !os.IsNotExist(err) {
		t.Errorf("the old version's folder is still there: %v", err)
	}
	if es := registry.Entries(registry.Index{Agents: []registry.Agent{v2}}, cfg.Runtimes(), in); es[0].Update {
		t.Errorf("still an update: %+v", es[0])
	}
}

func TestRuntimeNameAvoidsPresetsAndOwnEntries(t *testing.T) {
	cfg := runtimes.Config{AgentServers: map[string]runtimes.AgentServer{
		"mine":                {Command: "/x"},
		"qwen-code-registry2": {Command: "/y", Registry: &runtimes.RegistrySource{ID: "qwen-code", Version: "1.0.0"}},
	}}
	for id, want := range map[string]string{"gemini": "gemini-registry", "opencode": "opencode-registry", "mine": "mine-registry",
		"auggie": "auggie", "qwen-code": "qwen-code-registry2"} {
		if got := registry.RuntimeName(cfg, id); got != want {
			t.Errorf("RuntimeName(%s) = %q, want %q", id, got, want)
		}
	}
}

// Installs that end at once all land in config.json.
func TestInstallAgentsAtOnce(t *testing.T) {
	files := map[string][]byte{}
	for i := range 6 {
		files[fmt.Sprintf("/a%d/tool", i)] = []byte(script)
	}
	srv, _ := serve(t, files)
	in := newInstaller(t)
	config := filepath.Join(t.TempDir(), "config.json")
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			a := binaryAgent(fmt.Sprintf("tool%d", i), "1.0.0", fmt.Sprintf("%s/a%d/tool", srv.URL, i), "tool", "")
			if _, _, err := registry.InstallAgent(t.Context(), in, config, a); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	cfg, err := runtimes.LoadConfig(config)
	if err != nil || len(cfg.AgentServers) != 6 {
		t.Fatalf("%d entries, %v", len(cfg.AgentServers), err)
	}
}
