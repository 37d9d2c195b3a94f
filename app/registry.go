package app

import (
	"os"
	"path/filepath"

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
