package runtimes

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNotInstalled reports that no command of a runtime was found.
var ErrNotInstalled = errors.New("agent not installed")

// Resolved is a runtime ready to start.
type Resolved struct {
	Runtime Runtime  `json:"runtime"`
	Path    string   `json:"path"` // absolute path of the executable
	Args    []string `json:"args"` // the args of whichever command or alternate matched
	// Env is the child's full environment: the allow-listed part of
	// mnote's environment and the runtime's own provider variables (all
	// of it with Runtime.InheritEnv; see Runtime.PassesEnv) with PATH
	// replaced by the detected PATH, plus Runtime.Env, plus the values
	// kept for the runtime with SetSecret, never with mnote's own secrets
	// (see IsDeniedEnv). It holds API keys, so it is not serialized, and
	// must never be logged.
	Env []string `json:"-"`
	// HeldBack names the variables of mnote's environment that look like
	// a key or token and that the agent does not get (not its provider's,
	// not configured for it), sorted: what to tell the user when the
	// agent then asks to log in. Names only, never values.
	HeldBack []string `json:"heldBack,omitempty"`
}

// Status says whether a runtime can be started here.
type Status struct {
	Runtime   Runtime `json:"runtime"`
	Installed bool    `json:"installed"`
	Path      string  `json:"path,omitempty"`  // the executable, when installed
	Hint      string  `json:"hint,omitempty"`  // how to install it, when not installed
	Error     string  `json:"error,omitempty"` // why it cannot start, other than not being installed
}

// IsDeniedEnv reports whether an environment variable is one of mnote's own
// secrets, which no agent may inherit: MNOTE_SYNC_TOKEN and every
// MNOTE_CONTROLPLANE_* variable (compared without regard to case).
func IsDeniedEnv(name string) bool {
	n := strings.ToUpper(name)
	return n == "MNOTE_SYNC_TOKEN" || strings.HasPrefix(n, "MNOTE_CONTROLPLANE_")
}

// Resolve finds the executable of rt: Command, then each alternate in order.
// A command containing a path separator is used as given (a relative one is
// resolved against rt.Cwd when set, else the process's working directory;
// a leading "~/" means the home folder); a bare name is looked up in the
// detected PATH. When none is found the error wraps ErrNotInstalled and
// carries the install hint.
func (d *Detector) Resolve(rt Runtime) (Resolved, error) {
	if strings.TrimSpace(rt.Command) == "" {
		return Resolved{}, fmt.Errorf("agent %q: %w", rt.Name, ErrNoCommand)
	}
	cands := append([][]string{append([]string{rt.Command}, rt.Args...)}, rt.Alternates...)
	var tried []string
	for _, argv := range cands {
		if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" || slices.Contains(tried, argv[0]) {
			continue
		}
		tried = append(tried, argv[0])
		path, err := d.find(argv[0], rt.Cwd)
		if err != nil {
			return Resolved{}, fmt.Errorf("agent %q: %w", rt.Name, err)
		}
		if path == "" {
			continue
		}
		args := slices.Clone(argv[1:])
		if len(args) == 0 {
			args = nil
		}
		return Resolved{Runtime: rt.clone(), Path: path, Args: args, Env: d.childEnv(rt, rt.Env, rt.secretEnv),
			HeldBack: d.HeldBack(rt)}, nil
	}
	title := rt.Title
	if title == "" {
		title = rt.Name
	}
	hint := ""
	if rt.InstallHint != "" {
		hint = "; to install: " + rt.InstallHint
	}
	return Resolved{}, fmt.Errorf("%s: %w: %s not found%s", title, ErrNotInstalled, strings.Join(tried, " or "), hint)
}

// Status resolves each runtime and reports which are installed.
func (d *Detector) Status(rts []Runtime) []Status {
	out := make([]Status, 0, len(rts))
	for _, rt := range rts {
		st := Status{Runtime: rt.clone()}
		r, err := d.Resolve(rt)
		switch {
		case err == nil:
			st.Installed, st.Path = true, r.Path
		case errors.Is(err, ErrNotInstalled):
			st.Hint = rt.InstallHint
		default:
			st.Error = err.Error()
		}
		out = append(out, st)
	}
	return out
}

// find returns the absolute executable for command, or "" when there is
// none. An error means the command can never be valid (no working folder
// to resolve it against).
func (d *Detector) find(command, cwd string) (string, error) {
	if rest, ok := strings.CutPrefix(command, "~/"); ok && d.opts.Home != "" {
		command = filepath.Join(d.opts.Home, rest)
	}
	if !strings.ContainsRune(command, '/') && !strings.ContainsRune(command, filepath.Separator) {
		return lookPathIn(command, d.searchPath()), nil
	}
	p := command
	if !filepath.IsAbs(p) {
		base := cwd
		if base == "" || !filepath.IsAbs(base) {
			wd, err := os.Getwd()
			if err != nil {
				return "", fmt.Errorf("resolve %q: %w", command, err)
			}
			base = filepath.Join(wd, base)
		}
		p = filepath.Join(base, p)
	}
	for _, cand := range executableNames(filepath.Clean(p)) {
		if isExecutable(cand) {
			return cand, nil
		}
	}
	return "", nil
}

// HeldBack names the variables of mnote's environment that look like a
// key or token and that rt does not get (see Resolved.HeldBack).
func (d *Detector) HeldBack(rt Runtime) []string {
	return rt.heldBack(d.opts.Env, rt.Env, rt.secretEnv)
}

// childBaseEnv is mnote's environment without its secrets, for the
// helpers detection runs (the login shell, npm); agents get less (childEnv).
func (d *Detector) childBaseEnv() []string {
	return slices.DeleteFunc(slices.Clone(d.opts.Env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return IsDeniedEnv(k)
	})
}

// childEnv is the environment for an agent: what rt inherits of mnote's
// environment (Runtime.PassesEnv) with the detected PATH, then each map of
// variables in order (later ones win, PATH included), mnote's own secrets
// always left out. Only names are ever logged.
func (d *Detector) childEnv(rt Runtime, extras ...map[string]string) []string {
	base := slices.DeleteFunc(slices.Clone(d.opts.Env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return !rt.PassesEnv(k)
	})
	env := setEnv(base, "PATH", d.PATH())
	for _, extra := range extras {
		for _, k := range slices.Sorted(maps.Keys(extra)) {
			if !validEnvName(k) {
				d.log.Warn("agent env variable with an invalid name skipped", "name", k)
				continue
			}
			if IsDeniedEnv(k) {
				d.log.Warn("agent env variable refused: it is one of mnote's secrets", "name", k)
				continue
			}
			env = setEnv(env, k, extra[k])
		}
	}
	return env
}
