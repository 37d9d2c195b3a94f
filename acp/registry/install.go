package registry

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"mnote/acp/runtimes"
)

// ErrNeedTool reports an agent whose distribution needs a program that
// is not installed (npm for npx agents, uv for uvx agents).
type ErrNeedTool struct {
	Tool string // "npm" or "uv"
	What string // what to install: "Node.js (npm)", "uv"
}

func (e *ErrNeedTool) Error() string {
	return fmt.Sprintf("this agent is installed with %s, which was not found: install %s first, then try again", e.Tool, e.What)
}

// ErrNoDistribution reports an agent with nothing for this platform.
var ErrNoDistribution = errors.New("the registry has no download of this agent for this computer")

// Progress is a step of an install: Phase "download" with bytes
// (Total -1 when unknown), "unpack", "npm" or "uv" with a line of the
// tool's output.
type Progress struct {
	Phase string `json:"phase"`
	Done  int64  `json:"done,omitempty"`
	Total int64  `json:"total,omitempty"`
	Line  string `json:"line,omitempty"`
}

// Installer installs registry agents into Root, one folder per agent and
// version: ROOT/<id>/<version>.
type Installer struct {
	Root string
	// LookPath finds npm and uv (the detected PATH of the user's login
	// shell); nil uses exec.LookPath.
	LookPath func(string) string
	// Env is the environment of npm and uv; nil is os.Environ().
	Env []string
	// Client downloads archives; nil is a client without a timeout
	// (downloads can be long; the context bounds them).
	Client *http.Client
	// NPMRegistry is given to npm as --registry when set.
	NPMRegistry string
	// Platform is the registry's platform name; "" is this computer's.
	Platform string
	Limits   Limits
	// IdleTimeout gives up a download that receives nothing for that
	// long; 0 is a minute.
	IdleTimeout time.Duration
	// Progress is told each step; may be nil.
	Progress func(Progress)
	// Log receives the tools' whole output; may be nil.
	Log io.Writer
}

// Installed is an installed agent and how to start it.
type Installed struct {
	ID      string            `json:"id"`
	Version string            `json:"version"`
	Kind    string            `json:"kind"` // KindBinary, KindNPX, KindUVX
	Dir     string            `json:"dir"`
	Command string            `json:"command"` // absolute path
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

func (in *Installer) lookPath(name string) string {
	if in.LookPath != nil {
		return in.LookPath(name)
	}
	p, _ := exec.LookPath(name)
	return p
}

func (in *Installer) platform() string {
	if in.Platform != "" {
		return in.Platform
	}
	return ThisPlatform()
}

func (in *Installer) progress(p Progress) {
	if in.Progress != nil {
		in.Progress(p)
	}
}

// Kind is the distribution Install would use for a: this platform's
// archive first (no other program needed), then npx where npm is found,
// then uvx where uv is found. The error says what to install when
// nothing fits.
func (in *Installer) Kind(a Agent) (string, error) {
	d := a.Distribution
	if _, ok := d.Binary[in.platform()]; ok {
		return KindBinary, nil
	}
	if d.NPX != nil && in.lookPath("npm") != "" {
		return KindNPX, nil
	}
	if d.UVX != nil && in.lookPath("uv") != "" {
		return KindUVX, nil
	}
	switch {
	case d.NPX != nil:
		return "", &ErrNeedTool{Tool: "npm", What: "Node.js (npm)"}
	case d.UVX != nil:
		return "", &ErrNeedTool{Tool: "uv", What: "uv (https://docs.astral.sh/uv/)"}
	}
	return "", fmt.Errorf("%s %s: %w (%s)", a.Name, a.Version, ErrNoDistribution, in.platform())
}

// Dir is the folder of an agent's version.
func (in *Installer) Dir(id, version string) string {
	return filepath.Join(in.Root, id, version)
}

// Install installs a into Dir(a.ID, a.Version), replacing what is
// there. It builds the folder beside the target and renames it into
// place, so that a failure or a cancel leaves the previous state.
func (in *Installer) Install(ctx context.Context, a Agent) (Installed, error) {
	if !idRE.MatchString(a.ID) || !versionRE.MatchString(a.Version) {
		return Installed{}, fmt.Errorf("install %q %q: not a registry id and version", clip(a.ID), clip(a.Version))
	}
	kind, err := in.Kind(a)
	if err != nil {
		return Installed{}, err
	}
	parent := filepath.Join(in.Root, a.ID)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return Installed{}, fmt.Errorf("install %s: %w", a.Name, err)
	}
	tmp, err := os.MkdirTemp(parent, ".install-"+a.Version+"-")
	if err != nil {
		return Installed{}, fmt.Errorf("install %s: %w", a.Name, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	target := in.Dir(a.ID, a.Version)
	res := Installed{ID: a.ID, Version: a.Version, Kind: kind, Dir: target}
	var rel string // the command, relative to the folder
	switch kind {
	case KindBinary:
		b := a.Distribution.Binary[in.platform()]
		if err := in.installArchive(ctx, tmp, b); err != nil {
			return Installed{}, fmt.Errorf("install %s %s: %w", a.Name, a.Version, err)
		}
		rel, res.Args, res.Env = filepath.FromSlash(b.Cmd), slices.Clone(b.Args), maps.Clone(b.Env)
	case KindNPX:
		p := a.Distribution.NPX
		bin, err := in.installNPM(ctx, tmp, p.Package)
		if err != nil {
			return Installed{}, fmt.Errorf("install %s %s: %w", a.Name, a.Version, err)
		}
		rel, res.Args, res.Env = filepath.Join("node_modules", ".bin", bin), slices.Clone(p.Args), maps.Clone(p.Env)
	case KindUVX:
		// uvx fetches and caches the pinned package on first start; the
		// folder keeps only what says so.
		p := a.Distribution.UVX
		res.Command = in.lookPath("uvx")
		if res.Command == "" {
			return Installed{}, &ErrNeedTool{Tool: "uvx", What: "uv (https://docs.astral.sh/uv/)"}
		}
		res.Args = append([]string{p.Package}, p.Args...)
		res.Env = maps.Clone(p.Env)
	}
	b, _ := json.MarshalIndent(a, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, ".registry-agent.json"), b, 0o600); err != nil {
		return Installed{}, fmt.Errorf("install %s: %w", a.Name, err)
	}
	if err := ctx.Err(); err != nil {
		return Installed{}, fmt.Errorf("install %s: %w", a.Name, err)
	}
	if err := replaceDir(tmp, target); err != nil {
		return Installed{}, fmt.Errorf("install %s: %w", a.Name, err)
	}
	done = true
	if rel != "" {
		res.Command = filepath.Join(target, rel)
	}
	return res, nil
}

// replaceDir renames tmp to target, moving an existing target aside
// first and removing it after.
func replaceDir(tmp, target string) error {
	old := ""
	if _, err := os.Lstat(target); err == nil {
		old = tmp + ".old"
		if err := os.Rename(target, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, target); err != nil {
		if old != "" {
			_ = os.Rename(old, target)
		}
		return err
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return nil
}

// installArchive downloads b's archive beside dir, checks it, unpacks it
// into dir and checks the command.
func (in *Installer) installArchive(ctx context.Context, dir string, b Binary) error {
	lim := in.Limits.withDefaults()
	f, err := os.CreateTemp(filepath.Dir(dir), ".download-")
	if err != nil {
		return err
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	h := sha256.New()
	c := in.Client
	if c == nil {
		c = &http.Client{}
	}
	in.progress(Progress{Phase: "download", Total: -1})
	err = downloadIdle(ctx, c, b.Archive, io.MultiWriter(f, h), lim.Download, in.IdleTimeout, func(done, total int64) {
		in.progress(Progress{Phase: "download", Done: done, Total: total})
	})
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	if b.SHA256 != "" {
		if got := hex.EncodeToString(h.Sum(nil)); got != b.SHA256 {
			return fmt.Errorf("the download's sha256 is %s, the registry lists %s: not installed", got, b.SHA256)
		}
	}
	in.progress(Progress{Phase: "unpack"})
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := unpack(root, f, archiveKind(b.Archive), b.Cmd, lim); err != nil {
		return err
	}
	st, err := root.Lstat(b.Cmd)
	if err != nil {
		return fmt.Errorf("the archive has no %s, the command the registry names", b.Cmd)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%w: %s, the command, is not a regular file", ErrUnsafeArchive, b.Cmd)
	}
	if err := root.Chmod(b.Cmd, st.Mode().Perm()|0o700); err != nil {
		return fmt.Errorf("make %s executable: %w", b.Cmd, err)
	}
	return nil
}

// installNPM runs `npm install --prefix DIR PACKAGE@VERSION` and returns
// the name of the package's executable in node_modules/.bin.
func (in *Installer) installNPM(ctx context.Context, dir, spec string) (string, error) {
	npm := in.lookPath("npm")
	if npm == "" {
		return "", &ErrNeedTool{Tool: "npm", What: "Node.js (npm)"}
	}
	args := []string{"install", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", "--loglevel=http"}
	if in.NPMRegistry != "" {
		args = append(args, "--registry", in.NPMRegistry)
	}
	args = append(args, spec)
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir = dir
	cmd.Env = in.Env
	cmd.WaitDelay = 2 * time.Second
	runtimes.SetProcessGroup(cmd) // npm's children go with it
	if err := in.runTool(cmd, "npm"); err != nil {
		return "", fmt.Errorf("npm install %s: %w", spec, err)
	}
	name := spec[:strings.LastIndexByte(spec, '@')]
	return npmBin(dir, name)
}

// runTool runs a tool, sending its output lines as progress and to Log.
func (in *Installer) runTool(cmd *exec.Cmd, phase string) error {
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if in.Log != nil {
				fmt.Fprintln(in.Log, sc.Text())
			}
			if line := strings.TrimSpace(sc.Text()); line != "" {
				in.progress(Progress{Phase: phase, Line: clip(line)})
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Run()
	pw.Close()
	<-lines
	return err
}

// npmBin is the executable npx would run for package name installed in
// dir: its only "bin", or the one named like the package.
func npmBin(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json"))
	if err != nil {
		return "", fmt.Errorf("npm installed %s, but %w", name, err)
	}
	var pkg struct {
		Bin json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("%s's package.json: %w", name, err)
	}
	short := path.Base(name)
	var bins map[string]string
	var one string
	if json.Unmarshal(pkg.Bin, &one) == nil && one != "" {
		bins = map[string]string{short: one}
	} else if err := json.Unmarshal(pkg.Bin, &bins); err != nil || len(bins) == 0 {
		return "", fmt.Errorf("the npm package %s names no program to run", name)
	}
	bin := short
	if len(bins) == 1 {
		for k := range bins {
			bin = k
		}
	} else if _, ok := bins[short]; !ok {
		return "", fmt.Errorf("the npm package %s names several programs (%s) and none is called %s",
			name, strings.Join(slices.Sorted(maps.Keys(bins)), ", "), short)
	}
	bin = path.Base(bin)
	if runtime.GOOS == "windows" {
		bin += ".cmd" // npm's shim there
	}
	p := filepath.Join(dir, "node_modules", ".bin", bin)
	if _, err := os.Stat(p); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("npm installed %s, but its program %s is missing", name, bin)
	}
	return bin, nil
}

// Remove deletes an installed version's folder (and the agent's, when
// it was the last).
func (in *Installer) Remove(id, version string) error {
	if !idRE.MatchString(id) || !versionRE.MatchString(version) {
		return fmt.Errorf("remove %q %q: not a registry id and version", clip(id), clip(version))
	}
	if err := os.RemoveAll(in.Dir(id, version)); err != nil {
		return fmt.Errorf("remove %s %s: %w", id, version, err)
	}
	_ = os.Remove(filepath.Join(in.Root, id)) // when no other version is left
	return nil
}
