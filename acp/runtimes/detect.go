package runtimes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultDetectTimeout bounds each login-shell run and the npm prefix query.
const DefaultDetectTimeout = 3 * time.Second

// pathMarker surrounds $PATH in the login shell's output, so that whatever
// the shell's startup files print (motd, banners, prompts) is ignored.
const pathMarker = "__MNOTE_PATH__"

// DetectOptions configures a Detector. Zero fields take the defaults.
type DetectOptions struct {
	// Shell is the user's login shell. Default: $SHELL from Env, else /bin/sh.
	Shell string
	// Timeout bounds each login-shell attempt and the npm query. Default 3 s.
	Timeout time.Duration
	// Env is mnote's own environment. Default: os.Environ(). Its PATH is the
	// "current PATH"; it is the base of every child's environment.
	Env []string
	// Home is the user's home folder. Default: HOME from Env, else
	// os.UserHomeDir().
	Home string
	// Logger receives detection diagnostics. Default: slog.Default().
	Logger *slog.Logger
	// Inherited says mnote's own environment already comes from the user's
	// login session (a command run from a terminal): the login shell and
	// the npm query are skipped; only folders are looked at.
	Inherited bool

	// noSystemDirs leaves out /usr/local/bin and /opt/homebrew/bin, which
	// tests cannot control.
	noSystemDirs bool
}

// Detector finds agent executables the way the user's terminal would. The
// login shell runs at most once, on first use; a Detector is safe for
// concurrent use.
type Detector struct {
	opts DetectOptions
	log  *slog.Logger

	once sync.Once
	path []string // the search path, computed once

	mu        sync.Mutex
	agentsDir string // mnote's own agent installs (SetAgentsDir)
}

// NewDetector returns a Detector. Nothing runs until the first PATH, Resolve
// or Status call.
func NewDetector(opts DetectOptions) *Detector {
	if opts.Env == nil {
		opts.Env = os.Environ()
	} else {
		opts.Env = slices.Clone(opts.Env)
	}
	if opts.Shell == "" {
		opts.Shell = envValue(opts.Env, "SHELL")
	}
	if opts.Shell == "" {
		opts.Shell = "/bin/sh"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultDetectTimeout
	}
	if opts.Home == "" {
		opts.Home = envValue(opts.Env, "HOME")
	}
	if opts.Home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			opts.Home = h
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Detector{opts: opts, log: log.With("component", "runtimes")}
}

// PATH returns the detected search path, joined with the OS list separator.
func (d *Detector) PATH() string {
	return strings.Join(d.searchPath(), string(filepath.ListSeparator))
}

func (d *Detector) searchPath() []string {
	d.once.Do(d.detect)
	if extra := d.installedDirs(); len(extra) > 0 {
		return cleanPath(append(slices.Clone(d.path), extra...))
	}
	return d.path
}

// SetAgentsDir names the folder mnote installs agents into, one
// subfolder per agent (InstallDir). Their bin folders are searched after
// every other folder, and looked at again on each lookup, so an agent
// installed while mnote runs is found without a restart.
func (d *Detector) SetAgentsDir(dir string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.agentsDir = dir
}

// InstallDir is the folder mnote installs the named agent into
// (`npm install --prefix`), "" when no agents folder is set or the name
// cannot be a folder name.
func (d *Detector) InstallDir(name string) string {
	d.mu.Lock()
	root := d.agentsDir
	d.mu.Unlock()
	if root == "" || name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`+"\x00") {
		return ""
	}
	return filepath.Join(root, name)
}

// installedDirs are the bin folders of the agents in the agents folder.
func (d *Detector) installedDirs() []string {
	d.mu.Lock()
	root := d.agentsDir
	d.mu.Unlock()
	if root == "" {
		return nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var cands []string
	for _, e := range entries {
		if e.IsDir() {
			cands = append(cands, filepath.Join(root, e.Name(), "node_modules", ".bin"))
		}
	}
	return existingDirs(cands)
}

// LookPath finds an executable by name in the detected search path ("" if
// there is none), as agents' commands are found.
func (d *Detector) LookPath(name string) string {
	return lookPathIn(name, d.searchPath())
}

// HelperEnv is the environment for a helper mnote runs for the user (npm
// installing an agent): mnote's environment without its own secrets, with
// the detected PATH.
func (d *Detector) HelperEnv() []string {
	return setEnv(d.childBaseEnv(), "PATH", d.PATH())
}

// detect builds the search path: login-shell PATH, current PATH, then the
// well-known folders that exist.
func (d *Detector) detect() {
	start := time.Now()
	var dirs []string
	if !d.opts.Inherited {
		login, err := d.loginShellPATH()
		if err != nil {
			d.log.Warn("login shell PATH not detected; using the current PATH", "shell", d.opts.Shell, "err", err)
		}
		dirs = append(dirs, filepath.SplitList(login)...)
	}
	dirs = append(dirs, filepath.SplitList(envValue(d.opts.Env, "PATH"))...)
	dirs = append(dirs, d.wellKnownDirs()...)
	dirs = cleanPath(dirs)
	if !d.opts.Inherited {
		if bin := d.npmPrefixBin(dirs); bin != "" {
			dirs = cleanPath(append(dirs, bin))
		}
	}
	dirs = cleanPath(append(dirs, d.versionManagerDirs()...))
	d.path = dirs
	d.log.Debug("agent search path detected", "dirs", len(dirs), "elapsed", time.Since(start))
}

// loginShellPATH runs the login shell, interactive first (rc files often set
// PATH), then non-interactive when that fails.
func (d *Detector) loginShellPATH() (string, error) {
	script := `printf "\n` + pathMarker + `%s` + pathMarker + `\n" "$PATH"`
	if filepath.Base(d.opts.Shell) == "fish" {
		script = `printf "\n` + pathMarker + `%s` + pathMarker + `\n" (string join : $PATH)`
	}
	var errs []error
	for _, flags := range [][]string{{"-l", "-i", "-c"}, {"-l", "-c"}} {
		args := append(slices.Clone(flags), script)
		p, err := d.runShell(args)
		if err == nil {
			return p, nil
		}
		errs = append(errs, fmt.Errorf("%s %s: %w", d.opts.Shell, strings.Join(flags, " "), err))
	}
	return "", errors.Join(errs...)
}

var markerRE = regexp.MustCompile(pathMarker + `([^\n]*?)` + pathMarker)

// runShell runs the shell once with a timeout, stdin from /dev/null, in its
// own session (no controlling terminal, its own process group, killed as a
// whole on timeout), and returns the PATH between the markers.
func (d *Detector) runShell(args []string) (string, error) {
	out, err := d.runBounded(d.opts.Shell, args, d.childBaseEnv())
	if m := markerRE.FindAllSubmatch(out, -1); len(m) > 0 {
		// The marker was printed: the PATH is good even if the shell exited
		// non-zero afterwards (a failing logout script).
		p := strings.TrimSpace(string(m[len(m)-1][1]))
		if p != "" {
			return p, nil
		}
		return "", errors.New("empty PATH")
	}
	if err != nil {
		return "", err
	}
	return "", errors.New("no PATH marker in output")
}

// maxOutput caps what is kept of a helper's stdout.
const maxOutput = 1 << 20

// runBounded runs name with args, stdin from /dev/null and env, for at most
// the configured timeout, and returns its stdout. On timeout the child's
// whole process group is killed.
func (d *Detector) runBounded(name string, args, env []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	// Start where a terminal would, in the home folder.
	cmd.Dir = string(filepath.Separator)
	if h := d.opts.Home; h != "" && len(existingDirs([]string{h})) > 0 {
		cmd.Dir = h
	}
	cmd.Stdin = nil // /dev/null
	var stdout, stderr limitedBuffer
	stdout.limit, stderr.limit = maxOutput, 4096
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	SetProcessGroup(cmd)
	// A daemon started by an rc file may keep the pipes open; do not wait
	// for it after the shell is gone.
	cmd.WaitDelay = 500 * time.Millisecond
	err := cmd.Run()
	if ctx.Err() != nil {
		return stdout.Bytes(), fmt.Errorf("timed out after %s: %w", d.opts.Timeout, ctx.Err())
	}
	if err != nil {
		if tail := strings.TrimSpace(stderr.String()); tail != "" {
			return stdout.Bytes(), fmt.Errorf("%w (stderr: %s)", err, lastLine(tail))
		}
		return stdout.Bytes(), fmt.Errorf("run: %w", err)
	}
	return stdout.Bytes(), nil
}

// wellKnownDirs are user and package-manager bin folders that GUI sessions
// often miss, in priority order; only existing folders are kept.
func (d *Detector) wellKnownDirs() []string {
	var cands []string
	if h := d.opts.Home; h != "" {
		for _, rel := range []string{".local/bin", ".npm-global/bin", ".bun/bin", ".volta/bin", ".cargo/bin"} {
			cands = append(cands, filepath.Join(h, rel))
		}
	}
	if !d.opts.noSystemDirs {
		cands = append(cands, "/usr/local/bin", "/opt/homebrew/bin")
	}
	return existingDirs(cands)
}

// versionManagerDirs are the bin folders of Node versions installed by nvm
// and fnm (newest first) and the asdf and mise shims.
func (d *Detector) versionManagerDirs() []string {
	h := d.opts.Home
	var cands []string
	nvmDir := envValue(d.opts.Env, "NVM_DIR")
	if nvmDir == "" && h != "" {
		nvmDir = filepath.Join(h, ".nvm")
	}
	if nvmDir != "" {
		cands = append(cands, versionDirs(filepath.Join(nvmDir, "versions", "node"), "bin")...)
	}
	fnmDirs := []string{envValue(d.opts.Env, "FNM_DIR")}
	if h != "" {
		fnmDirs = append(fnmDirs,
			filepath.Join(h, ".local", "share", "fnm"),
			filepath.Join(h, "Library", "Application Support", "fnm"),
			filepath.Join(h, ".fnm"))
	}
	for _, f := range fnmDirs {
		if f != "" {
			cands = append(cands, versionDirs(filepath.Join(f, "node-versions"), filepath.Join("installation", "bin"))...)
		}
	}
	asdf := envValue(d.opts.Env, "ASDF_DATA_DIR")
	if asdf == "" && h != "" {
		asdf = filepath.Join(h, ".asdf")
	}
	if asdf != "" {
		cands = append(cands, filepath.Join(asdf, "shims"))
	}
	if h != "" {
		cands = append(cands, filepath.Join(h, ".local", "share", "mise", "shims"))
	}
	return existingDirs(cands)
}

// versionDirs lists root/*/sub for version-named children of root, newest
// version first.
func versionDirs(root, sub string) []string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			names = append(names, e.Name())
		}
	}
	slices.SortStableFunc(names, func(a, b string) int { return compareVersions(b, a) })
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, filepath.Join(root, n, sub))
	}
	return out
}

// compareVersions compares "v20.11.1"-style names numerically, part by part.
// Names that are not versions compare lower than every version, and among
// themselves by name.
func compareVersions(a, b string) int {
	va, okA := parseVersion(a)
	vb, okB := parseVersion(b)
	switch {
	case okA && !okB:
		return 1
	case !okA && okB:
		return -1
	case !okA && !okB:
		return strings.Compare(a, b)
	}
	for i := range max(len(va), len(vb)) {
		var x, y int
		if i < len(va) {
			x = va[i]
		}
		if i < len(vb) {
			y = vb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	// Same numbers: a release is newer than its pre-releases.
	preA, preB := strings.Contains(a, "-"), strings.Contains(b, "-")
	switch {
	case preA && !preB:
		return -1
	case !preA && preB:
		return 1
	}
	return strings.Compare(a, b)
}

// parseVersion parses the numbers of "v1.2.3" or "1.2.3" (a pre-release
// suffix after "-" is left to compareVersions).
func parseVersion(s string) ([]int, bool) {
	s = strings.TrimPrefix(s, "v")
	s, _, _ = strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	out := make([]int, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, len(out) > 0
}

// npmPrefixBin asks npm (when it is on dirs) for its global prefix and
// returns prefix/bin if it exists.
func (d *Detector) npmPrefixBin(dirs []string) string {
	npm := lookPathIn("npm", dirs)
	if npm == "" {
		return ""
	}
	env := d.childBaseEnv()
	env = setEnv(env, "PATH", strings.Join(dirs, string(filepath.ListSeparator)))
	out, err := d.runBounded(npm, []string{"config", "get", "prefix"}, env)
	if err != nil {
		d.log.Debug("npm prefix not detected", "npm", npm, "err", err)
		return ""
	}
	prefix := strings.TrimSpace(lastLine(string(out)))
	if prefix == "" || !filepath.IsAbs(prefix) {
		return ""
	}
	bin := filepath.Join(prefix, "bin")
	if len(existingDirs([]string{bin})) == 0 {
		return ""
	}
	return bin
}

// cleanPath drops empty and relative entries (a relative PATH entry makes
// lookups depend on the working directory) and duplicates, keeping order.
func cleanPath(dirs []string) []string {
	seen := make(map[string]bool, len(dirs))
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		d = strings.TrimSpace(d)
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	return out
}

func existingDirs(cands []string) []string {
	var out []string
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			out = append(out, c)
		}
	}
	return out
}

// lookPathIn finds an executable file named name in dirs.
func lookPathIn(name string, dirs []string) string {
	for _, dir := range dirs {
		for _, cand := range executableNames(filepath.Join(dir, name)) {
			if isExecutable(cand) {
				return cand
			}
		}
	}
	return ""
}

// envValue returns the last value of key in env (the one a child would see).
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && envKeyEqual(k, key) {
			return v
		}
	}
	return ""
}

// setEnv returns env with every key entry removed and key=value appended.
func setEnv(env []string, key, value string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return envKeyEqual(k, key)
	})
	return append(out, key+"="+value)
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// limitedBuffer keeps the first limit bytes written and discards the rest
// (without failing the writer, so the child never sees EPIPE).
type limitedBuffer struct {
	bytes.Buffer
	limit int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
