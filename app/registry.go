package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"mnote/acp/registry"
	"mnote/acp/runtimes"
	"mnote/store"
)

// The ACP Registry (acp/registry) as the window and `mnote agents
// --registry` use it: its index and icons cached under the data folder,
// its agents installed into AGENTS/registry/<id>/<version>.

// RegistryURLEnv names the variable that points mnote at another index
// than the ACP Registry's (a mirror, or a test's loopback server).
const RegistryURLEnv = "MNOTE_REGISTRY_URL"

// RegistrySource is the registry index and its cache for paths p. It
// reads the network only when Refresh is called.
func RegistrySource(p store.Paths) *registry.Source {
	return &registry.Source{URL: os.Getenv(RegistryURLEnv), Dir: filepath.Join(p.DataDir, "cache", "registry")}
}

// RegistryInstaller installs registry agents for paths p, finding npm
// and uv on det's PATH and running them with its helper environment.
func RegistryInstaller(p store.Paths, det *runtimes.Detector) *registry.Installer {
	return &registry.Installer{Root: filepath.Join(AgentsDir(p), "registry"), LookPath: det.LookPath, Env: det.HelperEnv()}
}

// RegistryListing is agents.registry's answer (API.md "RegistryListing").
type RegistryListing struct {
	// Cached is false when the registry was never fetched (Agents is
	// empty): the page offers to fetch it.
	Cached     bool            `json:"cached"`
	URL        string          `json:"url,omitempty"`
	FetchedAt  int64           `json:"fetchedAt,omitempty"` // Unix ms
	Offline    bool            `json:"offline,omitempty"`
	FetchError string          `json:"fetchError,omitempty"`
	Agents     []RegistryAgent `json:"agents"`
	Skipped    int             `json:"skipped,omitempty"`
}

// RegistryAgent is one agent of the ACP Registry with what this computer
// has of it.
type RegistryAgent struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description"`
	License     string `json:"license,omitempty"`
	Repository  string `json:"repository,omitempty"`
	// Icon says an icon is kept for it (agents.registryIcon).
	Icon bool `json:"icon"`
	// Kind is how it would be installed (binary, npx, uvx); "" when it
	// cannot be here: Unavailable says why, NeedTool names the program
	// to install first when that is the reason.
	Kind        string `json:"kind,omitempty"`
	Unavailable string `json:"unavailable,omitempty"`
	NeedTool    string `json:"needTool,omitempty"`
	// Runtime is the agent installed from it, Installed its version;
	// Update says the registry has a newer one.
	Runtime   string `json:"runtime,omitempty"`
	Installed string `json:"installed,omitempty"`
	Update    bool   `json:"update,omitempty"`
}

// RegistryInstallPrefix starts the name of a registry install in
// agent:install events and agents.cancelInstall: "registry:ID".
const RegistryInstallPrefix = "registry:"

// registrySource is the registry for the services (Config.RegistryURL).
func (s *Services) registrySource() *registry.Source {
	src := RegistrySource(s.paths)
	if s.cfg.RegistryURL != "" {
		src.URL = s.cfg.RegistryURL
	}
	return src
}

type registryArgs struct {
	Refresh bool `json:"refresh"`
}

// agentsRegistry lists the registry's agents: the kept copy, or with
// refresh a fresh fetch (the only network use; offline, the kept copy
// with the fetch's error).
func (s *Services) agentsRegistry(ctx context.Context, a registryArgs) (any, *Error) {
	src := s.registrySource()
	var l registry.Listing
	var err error
	if a.Refresh {
		l, err = src.Refresh(ctx)
	} else {
		l, err = src.Cached()
	}
	if errors.Is(err, registry.ErrNoCache) {
		return RegistryListing{Agents: []RegistryAgent{}}, nil
	}
	if err != nil {
		return nil, (&Error{Code: CodeUnavailable, Message: err.Error(), cause: err}).why(ReasonRegistryUnavailable)
	}
	cfg, e := s.config()
	if e != nil {
		return nil, e
	}
	out := RegistryListing{Cached: true, URL: l.URL, FetchedAt: l.FetchedAt.UnixMilli(), Offline: l.Offline,
		FetchError: l.FetchError, Skipped: len(l.Skipped), Agents: []RegistryAgent{}}
	for _, en := range registry.Entries(l.Index, cfg.Runtimes(), RegistryInstaller(s.paths, s.det)) {
		_, iconErr := src.Icon(en.ID)
		out.Agents = append(out.Agents, RegistryAgent{ID: en.ID, Name: en.Name, Version: en.Version, Description: en.Description,
			License: en.License, Repository: en.Repository, Icon: iconErr == nil, Kind: en.Kind, Unavailable: en.Unavailable,
			NeedTool: en.NeedTool, Runtime: en.Runtime, Installed: en.Installed, Update: en.Update})
	}
	return out, nil
}

type registryIDArgs struct {
	ID string `json:"id"`
}

// agentsRegistryIcon is a registry agent's kept icon, an SVG document
// for the page to show as an image (never loaded from the internet).
func (s *Services) agentsRegistryIcon(_ context.Context, a registryIDArgs) (any, *Error) {
	b, err := s.registrySource().Icon(a.ID)
	if err != nil {
		return nil, (&Error{Code: CodeNotFound, Message: fmt.Sprintf("no icon is kept for %q", a.ID), cause: err}).why(ReasonRegistryUnknown, "agent", a.ID)
	}
	return map[string]string{"svg": string(b)}, nil
}

// agentsRegistryInstall installs (or updates) a registry agent from the
// kept copy of the registry; progress comes as agent:install events
// named "registry:ID".
func (s *Services) agentsRegistryInstall(_ context.Context, a registryIDArgs) (any, *Error) {
	l, err := s.registrySource().Cached()
	if err != nil {
		return nil, (&Error{Code: CodeNotFound, Message: err.Error(), cause: err}).why(ReasonRegistryUnavailable)
	}
	ag, ok := l.Find(a.ID)
	if !ok {
		return nil, (&Error{Code: CodeNotFound, Message: fmt.Sprintf("there is no agent %q in the ACP Registry", a.ID)}).why(ReasonRegistryUnknown, "agent", a.ID)
	}
	in := RegistryInstaller(s.paths, s.det)
	if _, err := in.Kind(ag); err != nil {
		var need *registry.ErrNeedTool
		if errors.As(err, &need) {
			return nil, (&Error{Code: CodeBadRequest, Message: fmt.Sprintf("%s: %v", ag.Name, err), cause: err}).why(ReasonRegistryNeedsTool, "agent", ag.Name, "tool", need.What)
		}
		return nil, (&Error{Code: CodeBadRequest, Message: fmt.Sprintf("%s: %v", ag.Name, err), cause: err}).why(ReasonRegistryInstallFailed, "agent", ag.Name)
	}
	name := RegistryInstallPrefix + ag.ID
	logPath := filepath.Join(s.paths.LogDir, "install-registry-"+ag.ID+".log")
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return nil, shutdownError()
	}
	s.turns.Add(1)
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(s.life)
	s.ops.mu.Lock()
	if _, busy := s.ops.installs[name]; busy {
		s.ops.mu.Unlock()
		cancel()
		s.turns.Done()
		return nil, (&Error{Code: CodeBusy, Message: fmt.Sprintf("%s is already being installed", ag.Name)}).why(ReasonInstallRunning, "agent", ag.Name)
	}
	if s.ops.installs == nil {
		s.ops.installs = map[string]context.CancelFunc{}
	}
	s.ops.installs[name] = cancel
	s.ops.mu.Unlock()
	go func() {
		defer s.turns.Done()
		defer func() {
			s.ops.mu.Lock()
			delete(s.ops.installs, name)
			s.ops.mu.Unlock()
			cancel()
		}()
		s.runRegistryInstall(ctx, in, ag, name, logPath)
	}()
	return InstallStarted{Name: name, Command: ag.Name + " " + ag.Version, Log: logPath}, nil
}

// runRegistryInstall installs ag, telling its steps as agent:install
// events (downloads in bytes) and keeping them in the log.
func (s *Services) runRegistryInstall(ctx context.Context, in *registry.Installer, ag registry.Agent, name, logPath string) {
	var logw io.Writer = io.Discard
	if err := os.MkdirAll(s.paths.LogDir, 0o700); err == nil {
		if f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
			defer f.Close()
			logw = f
		}
	}
	var mu sync.Mutex
	logf := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(logw, format+"\n", a...)
	}
	logf("# %s install %s %s from the ACP Registry", time.Now().UTC().Format(time.RFC3339), ag.ID, ag.Version)
	in.Log = writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logw.Write(p)
	})
	in.Progress = func(p registry.Progress) {
		ev := AgentInstallEvent{Name: name, Phase: InstallRunning, Line: clipLine(p.Line, maxInstallLine), Log: logPath,
			Step: p.Phase, Done: p.Done, Total: p.Total}
		s.emit(EventAgentInstall, ev)
	}
	s.emit(EventAgentInstall, AgentInstallEvent{Name: name, Phase: InstallRunning, Line: ag.Name + " " + ag.Version, Log: logPath})
	rtName, _, err := registry.InstallAgent(ctx, in, s.paths.ConfigFile, ag)
	switch {
	case ctx.Err() != nil:
		logf("# cancelled")
		s.emit(EventAgentInstall, AgentInstallEvent{Name: name, Phase: InstallCancelled, Log: logPath})
	case err != nil:
		logf("# failed: %v", err)
		s.log.Warn("registry install failed", "agent", ag.ID, "err", err)
		reason, kv := ReasonRegistryInstallFailed, []string{"agent", ag.Name}
		var need *registry.ErrNeedTool
		if errors.As(err, &need) {
			reason, kv = ReasonRegistryNeedsTool, append(kv, "tool", need.What)
		}
		s.emit(EventAgentInstall, AgentInstallEvent{Name: name, Phase: InstallFailed, Error: err.Error(),
			ErrorReason: reason, ErrorParams: addParams(nil, kv...), Log: logPath})
	default:
		logf("# done: agent %s", rtName)
		s.noteAgent(rtName, nil)
		s.emit(EventAgentInstall, AgentInstallEvent{Name: name, Phase: InstallDone, Line: rtName, Log: logPath})
	}
}

// writerFunc is an io.Writer from a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
