package registry

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"mnote/acp/runtimes"
)

// configMu serializes InstallAgent's read-modify-write of config.json.
var configMu sync.Mutex

// Entry is a registry agent with what this computer has of it.
type Entry struct {
	Agent
	// Runtime is the name of the runtime installed from it ("" when not
	// installed), Installed its version.
	Runtime   string `json:"runtime,omitempty"`
	Installed string `json:"installed,omitempty"`
	// Update says the registry lists a newer version than Installed.
	Update bool `json:"update,omitempty"`
	// Kind is the distribution an install would use; "" when none fits,
	// and then Unavailable says why (NeedTool names the program to
	// install first, when that is the reason).
	Kind        string `json:"kind,omitempty"`
	Unavailable string `json:"unavailable,omitempty"`
	NeedTool    string `json:"needTool,omitempty"`
}

// Entries lists the index's agents with their installed runtimes (from
// rts, the runtimes of config.json) and whether in can install them.
func Entries(idx Index, rts []runtimes.Runtime, in *Installer) []Entry {
	out := make([]Entry, 0, len(idx.Agents))
	for _, a := range idx.Agents {
		e := Entry{Agent: a}
		for _, rt := range rts {
			if rt.Registry != nil && rt.Registry.ID == a.ID {
				e.Runtime, e.Installed = rt.Name, rt.Registry.Version
				e.Update = Newer(a.Version, rt.Registry.Version)
				break
			}
		}
		kind, err := in.Kind(a)
		e.Kind = kind
		if err != nil {
			e.Unavailable = err.Error()
			var need *ErrNeedTool
			if errors.As(err, &need) {
				e.NeedTool = need.Tool
			}
		}
		out = append(out, e)
	}
	return out
}

// RuntimeName is the name of the runtime that a registry agent becomes in
// cfg: the entry already installed from it, else its id, or
// "<id>-registry" when a built-in agent or one of the user's own entries
// has that name.
func RuntimeName(cfg runtimes.Config, id string) string {
	for _, name := range slices.Sorted(maps.Keys(cfg.AgentServers)) {
		if r := cfg.AgentServers[name].Registry; r != nil && r.ID == id {
			return name
		}
	}
	taken := func(name string) bool {
		if _, ok := runtimes.Lookup(runtimes.Presets(), name); ok {
			return true
		}
		for k := range cfg.AgentServers {
			if strings.EqualFold(k, name) {
				return true
			}
		}
		return false
	}
	name := id
	for i := 1; taken(name); i++ {
		name = id + "-registry"
		if i > 1 {
			name = fmt.Sprintf("%s-registry-%d", id, i)
		}
	}
	return name
}

// Record makes res the runtime of a in cfg: command, arguments and the
// registry's environment (over what the user added), its title and
// source. It returns the runtime's name and the version it replaced ("").
func Record(cfg *runtimes.Config, a Agent, res Installed) (name, previous string) {
	name = RuntimeName(*cfg, a.ID)
	if cfg.AgentServers == nil {
		cfg.AgentServers = map[string]runtimes.AgentServer{}
	}
	entry := cfg.AgentServers[name] // keeps the user's env, cwd and the keys mnote does not know
	if entry.Registry != nil {
		previous = entry.Registry.Version
	}
	entry.Command = res.Command
	entry.Args = slices.Clone(res.Args)
	if entry.Args == nil {
		entry.Args = []string{}
	}
	if len(res.Env) > 0 {
		if entry.Env == nil {
			entry.Env = map[string]string{}
		}
		maps.Copy(entry.Env, res.Env)
	}
	entry.Title = a.Name
	entry.Registry = &runtimes.RegistrySource{ID: a.ID, Version: res.Version}
	cfg.AgentServers[name] = entry
	return name, previous
}

// InstallAgent installs a and makes it a runtime in the config file at
// configPath (switching an installed runtime to the new version, whose
// old folder is then removed). It returns the runtime's name.
func InstallAgent(ctx context.Context, in *Installer, configPath string, a Agent) (string, Installed, error) {
	res, err := in.Install(ctx, a)
	if err != nil {
		return "", Installed{}, err
	}
	// Two installs ending at once must not each write config.json over
	// the other's entry.
	configMu.Lock()
	defer configMu.Unlock()
	cfg, err := runtimes.LoadConfig(configPath)
	if err != nil {
		return "", Installed{}, fmt.Errorf("installed %s, but: %w", a.Name, err)
	}
	name, prev := Record(&cfg, a, res)
	if err := runtimes.SaveConfig(configPath, cfg); err != nil {
		return "", Installed{}, fmt.Errorf("installed %s, but: %w", a.Name, err)
	}
	if prev != "" && prev != res.Version {
		_ = in.Remove(a.ID, prev)
	}
	return name, res, nil
}
