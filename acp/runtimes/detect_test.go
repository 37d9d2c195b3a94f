package runtimes

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// testEnv is a fully controlled machine: a HOME and a current PATH inside
// t.TempDir(), nothing from the real one.
type testEnv struct {
	root, home, curBin string
}

func newTestEnv(t *testing.T) testEnv {
	t.Helper()
	root := t.TempDir()
	e := testEnv{root: root, home: filepath.Join(root, "home"), curBin: filepath.Join(root, "cur", "bin")}
	mkdir(t, e.home)
	mkdir(t, e.curBin)
	return e
}

// detector returns a Detector for the test machine with the given shell
// script body (run by /bin/sh) as the login shell.
func (e testEnv) detector(t *testing.T, shellBody string, extraEnv ...string) *Detector {
	t.Helper()
	shell := filepath.Join(e.root, "fakeshell")
	writeExec(t, shell, "#!/bin/sh\n"+shellBody)
	env := append([]string{"HOME=" + e.home, "PATH=" + e.curBin, "SHELL=/nonexistent/shell", "LANG=C"}, extraEnv...)
	return NewDetector(DetectOptions{
		Shell:        shell,
		Timeout:      300 * time.Millisecond,
		Env:          env,
		Logger:       slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})),
		noSystemDirs: true,
	})
}

// loginShell is a fake login shell that prints motd junk, then evaluates the
// command it was given (the last argument) with PATH set to loginPATH.
func loginShell(loginPATH string) string {
	return `echo "Welcome to Fake OS 1.0 __MNOTE_PATH__ (not a marker)"
echo "You have new mail." >&2
for last; do :; done
PATH='` + loginPATH + `'
eval "$last"
echo "bye"
`
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeExec(t *testing.T, path, body string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func fakeAgent(t *testing.T, path string) {
	t.Helper()
	writeExec(t, path, "#!/bin/sh\nexit 0\n")
}

func TestLoginShellPATH(t *testing.T) {
	e := newTestEnv(t)
	loginBin := filepath.Join(e.root, "login", "bin")
	mkdir(t, loginBin)
	counter := filepath.Join(e.root, "runs")
	body := "echo run >> '" + counter + "'\n" + loginShell(loginBin+":/nonexistent/x::relative/dir:"+e.curBin)
	d := e.detector(t, body)

	// Concurrent first use: the shell runs once.
	var wg sync.WaitGroup
	paths := make([]string, 16)
	for i := range paths {
		wg.Go(func() { paths[i] = d.PATH() })
	}
	wg.Wait()
	for _, p := range paths[1:] {
		if p != paths[0] {
			t.Fatalf("PATH differs between calls: %q vs %q", p, paths[0])
		}
	}
	runs, _ := os.ReadFile(counter)
	if n := strings.Count(string(runs), "run"); n != 1 {
		t.Errorf("login shell ran %d times, want 1", n)
	}
	// Login PATH first (relative and empty entries dropped, duplicates
	// removed), then the current PATH.
	want := strings.Join([]string{loginBin, "/nonexistent/x", e.curBin}, ":")
	if got := d.PATH(); got != want {
		t.Errorf("PATH = %q, want %q", got, want)
	}

	writeExec(t, filepath.Join(loginBin, "qwen"), "#!/bin/sh\n")
	r, err := d.Resolve(mustLookup(t, "qwen"))
	if err != nil || r.Path != filepath.Join(loginBin, "qwen") {
		t.Errorf("Resolve(qwen) = %+v, %v", r, err)
	}
}

func TestLoginShellInteractiveFails(t *testing.T) {
	e := newTestEnv(t)
	loginBin := filepath.Join(e.root, "login", "bin")
	mkdir(t, loginBin)
	args := filepath.Join(e.root, "args")
	body := `printf '%s\n' "$*" >> '` + args + `'
if [ "$2" = "-i" ]; then echo "fakeshell: -i: invalid option" >&2; exit 2; fi
` + loginShell(loginBin)
	d := e.detector(t, body)
	if got, want := d.PATH(), loginBin+":"+e.curBin; got != want {
		t.Errorf("PATH = %q, want %q", got, want)
	}
	data, _ := os.ReadFile(args)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "-l -i -c ") || !strings.HasPrefix(lines[1], "-l -c ") {
		t.Errorf("shell invocations = %q", lines)
	}
}

func TestLoginShellHangs(t *testing.T) {
	e := newTestEnv(t)
	pids := filepath.Join(e.root, "pids")
	// The shell starts a child that would outlive it, then hangs.
	body := "/bin/sleep 60 &\necho $! >> '" + pids + "'\necho $$ >> '" + pids + "'\nwait\n"
	d := e.detector(t, body)

	start := time.Now()
	got := d.PATH()
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("detection took %s", elapsed)
	}
	if got != e.curBin {
		t.Errorf("PATH = %q, want the current PATH %q", got, e.curBin)
	}
	data, _ := os.ReadFile(pids)
	fields := strings.Fields(string(data))
	if len(fields) != 4 { // two attempts (-i, then without), each shell + sleep
		t.Fatalf("pids = %q", fields)
	}
	for _, f := range fields {
		pid, _ := strconv.Atoi(f)
		waitGone(t, pid)
	}
}

// waitGone waits until pid has exited (gone or a zombie waiting for init).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && len(stat) > i+2 && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Errorf("process %d still running after the timeout: %s", pid, stat)
			return
		case <-t.Context().Done():
			return
		}
	}
}

func TestNvmNewestVersionWins(t *testing.T) {
	e := newTestEnv(t)
	nodes := filepath.Join(e.home, ".nvm", "versions", "node")
	for _, v := range []string{"v18.2.0", "v20.11.1", "v9.11.2", "v20.9.0"} {
		fakeAgent(t, filepath.Join(nodes, v, "bin", "qwen"))
	}
	mkdir(t, filepath.Join(nodes, "system")) // not a version: last
	d := e.detector(t, "exit 1\n")

	r, err := d.Resolve(mustLookup(t, "qwen"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(nodes, "v20.11.1", "bin", "qwen"); r.Path != want {
		t.Errorf("Path = %q, want %q", r.Path, want)
	}
	if !slices.Equal(r.Args, []string{"--acp"}) {
		t.Errorf("Args = %q", r.Args)
	}
	wantPATH := strings.Join([]string{
		e.curBin,
		filepath.Join(nodes, "v20.11.1", "bin"),
		filepath.Join(nodes, "v20.9.0", "bin"),
		filepath.Join(nodes, "v18.2.0", "bin"),
		filepath.Join(nodes, "v9.11.2", "bin"),
	}, ":")
	if got := d.PATH(); got != wantPATH {
		t.Errorf("PATH = %q\nwant   %q", got, wantPATH)
	}
	if v := envValue(r.Env, "PATH"); v != wantPATH {
		t.Errorf("child PATH = %q", v)
	}
}

func TestWellKnownFolders(t *testing.T) {
	e := newTestEnv(t)
	dirs := []string{
		filepath.Join(e.home, ".local", "bin"),
		filepath.Join(e.home, ".bun", "bin"),
		filepath.Join(e.home, ".local", "share", "fnm", "node-versions", "v22.1.0", "installation", "bin"),
		filepath.Join(e.home, ".asdf", "shims"),
		filepath.Join(e.home, ".local", "share", "mise", "shims"),
	}
	for _, dir := range dirs {
		mkdir(t, dir)
	}
	// npm on the current PATH reports a global prefix; its bin is searched.
	prefix := filepath.Join(e.root, "npm-global")
	fakeAgent(t, filepath.Join(prefix, "bin", "codex-acp"))
	writeExec(t, filepath.Join(e.curBin, "npm"), "#!/bin/sh\necho 'npm warn something'\necho '"+prefix+"'\n")

	d := e.detector(t, "exit 1\n")
	want := strings.Join(append([]string{e.curBin, dirs[0], dirs[1], filepath.Join(prefix, "bin")}, dirs[2:]...), ":")
	if got := d.PATH(); got != want {
		t.Errorf("PATH = %q\nwant   %q", got, want)
	}
	r, err := d.Resolve(mustLookup(t, "codex"))
	if err != nil || r.Path != filepath.Join(prefix, "bin", "codex-acp") || r.Args != nil {
		t.Errorf("Resolve(codex) = %+v, %v", r, err)
	}
}

func TestAlternateCommand(t *testing.T) {
	e := newTestEnv(t)
	fakeAgent(t, filepath.Join(e.curBin, "claude-agent-acp"))
	d := e.detector(t, "exit 1\n")
	claude := mustLookup(t, "claude-code")
	r, err := d.Resolve(claude)
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != filepath.Join(e.curBin, "claude-agent-acp") || r.Args != nil || r.Runtime.Name != "claude-code" {
		t.Errorf("Resolve = %+v", r)
	}
	// With the main command present, it wins.
	fakeAgent(t, filepath.Join(e.curBin, "claude-code-acp"))
	if r, _ := d.Resolve(claude); r.Path != filepath.Join(e.curBin, "claude-code-acp") {
		t.Errorf("main command not preferred: %q", r.Path)
	}
	// A non-executable file is not a command.
	if err := os.WriteFile(filepath.Join(e.curBin, "codex-acp"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Resolve(mustLookup(t, "codex")); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("non-executable file resolved: %v", err)
	}
}

func TestCommandWithSlash(t *testing.T) {
	e := newTestEnv(t)
	work := filepath.Join(e.root, "work")
	fakeAgent(t, filepath.Join(work, "tools", "agent"))
	fakeAgent(t, filepath.Join(e.home, "bin", "homeagent"))
	d := e.detector(t, "exit 1\n")

	r, err := d.Resolve(Runtime{Name: "rel", Command: "./tools/agent", Args: []string{"--acp"}, Cwd: work})
	if err != nil || r.Path != filepath.Join(work, "tools", "agent") || !slices.Equal(r.Args, []string{"--acp"}) {
		t.Errorf("relative to Cwd: %+v, %v", r, err)
	}
	abs := filepath.Join(work, "tools", "agent")
	if r, err := d.Resolve(Runtime{Name: "abs", Command: abs}); err != nil || r.Path != abs {
		t.Errorf("absolute: %+v, %v", r, err)
	}
	if r, err := d.Resolve(Runtime{Name: "home", Command: "~/bin/homeagent"}); err != nil || r.Path != filepath.Join(e.home, "bin", "homeagent") {
		t.Errorf("home: %+v, %v", r, err)
	}
	// Relative without Cwd: against the process's working folder, where
	// there is no such file.
	if _, err := d.Resolve(Runtime{Name: "rel2", Command: "tools/agent"}); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("relative to process cwd: %v", err)
	}
	// A path is never looked up in PATH.
	fakeAgent(t, filepath.Join(e.curBin, "agent"))
	if _, err := d.Resolve(Runtime{Name: "p", Command: "./agent", Cwd: work}); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("path looked up in PATH: %v", err)
	}
}

func TestEnvDenylist(t *testing.T) {
	e := newTestEnv(t)
	fakeAgent(t, filepath.Join(e.curBin, "qwen"))
	shellEnv := filepath.Join(e.root, "shellenv")
	d := e.detector(t, "/usr/bin/env > '"+shellEnv+"'\nexit 1\n",
		"MNOTE_SYNC_TOKEN=secret1", "MNOTE_CONTROLPLANE_TOKEN=secret2", "MNOTE_CONTROLPLANE_URL=https://cp.invalid",
		"MNOTE_THEME=dark", "FOO=bar", "OPENAI_API_KEY=from-env")
	rt := mustLookup(t, "qwen")
	rt.Env = map[string]string{
		"OPENAI_BASE_URL":         "http://127.0.0.1:1/v1",
		"OPENAI_API_KEY":          "from-runtime",
		"MNOTE_CONTROLPLANE_HINT": "nope",
		"mnote_sync_token":        "nope",
		"BAD NAME":                "nope",
	}
	r, err := d.Resolve(rt)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range r.Env {
		if strings.Contains(kv, "secret") || strings.Contains(kv, "nope") || strings.Contains(kv, "cp.invalid") {
			t.Errorf("child env has %q", kv)
		}
	}
	// Outside the allow-list: not inherited (see TestAgentEnvAllowList).
	for _, k := range []string{"FOO", "MNOTE_THEME"} {
		if countKey(r.Env, k) != 0 {
			t.Errorf("child env has %s: %q", k, r.Env)
		}
	}
	for k, want := range map[string]string{
		"HOME": e.home, "PATH": e.curBin,
		"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_API_KEY": "from-runtime",
	} {
		if got := envValue(r.Env, k); got != want {
			t.Errorf("child %s = %q, want %q", k, got, want)
		}
	}
	if n := countKey(r.Env, "OPENAI_API_KEY") + countKey(r.Env, "PATH"); n != 2 {
		t.Errorf("duplicate variables in %q", r.Env)
	}
	// The login shell does not get the secrets either.
	data, err := os.ReadFile(shellEnv)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "secret") || !strings.Contains(string(data), "FOO=bar") {
		t.Errorf("login shell env:\n%s", data)
	}
	for _, name := range []string{"MNOTE_SYNC_TOKEN", "MNOTE_CONTROLPLANE_", "MNOTE_CONTROLPLANE_TOKEN", "mnote_controlplane_x"} {
		if !IsDeniedEnv(name) {
			t.Errorf("IsDeniedEnv(%q) = false", name)
		}
	}
	for _, name := range []string{"MNOTE_SYNC", "MNOTE_CONTROLPLANE", "HOME", "ANTHROPIC_API_KEY"} {
		if IsDeniedEnv(name) {
			t.Errorf("IsDeniedEnv(%q) = true", name)
		}
	}
}

func countKey(env []string, key string) int {
	n := 0
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			n++
		}
	}
	return n
}

func TestStatus(t *testing.T) {
	e := newTestEnv(t)
	fakeAgent(t, filepath.Join(e.curBin, "opencode"))
	d := e.detector(t, "exit 1\n")
	rts := append(Presets(), Runtime{Name: "empty", Title: "Empty"})
	st := d.Status(rts)
	if len(st) != len(rts) {
		t.Fatalf("got %d statuses", len(st))
	}
	for _, s := range st {
		switch s.Runtime.Name {
		case "opencode":
			if !s.Installed || s.Path != filepath.Join(e.curBin, "opencode") || s.Hint != "" || s.Error != "" {
				t.Errorf("opencode status = %+v", s)
			}
		case "empty":
			if s.Installed || s.Error == "" {
				t.Errorf("runtime without command: %+v", s)
			}
		default:
			if s.Installed || s.Path != "" || s.Hint != s.Runtime.InstallHint || s.Hint == "" {
				t.Errorf("%s status = %+v", s.Runtime.Name, s)
			}
		}
	}

	_, err := d.Resolve(mustLookup(t, "reasonix"))
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "npm install -g reasonix") || !strings.Contains(err.Error(), "Reasonix") {
		t.Errorf("missing reasonix: %v", err)
	}
	_, err = d.Resolve(mustLookup(t, "gemini"))
	if err == nil || strings.Count(err.Error(), "gemini not found") != 1 {
		t.Errorf("missing gemini (alternate with the same command tried once): %v", err)
	}
}

func TestCompareVersions(t *testing.T) {
	in := []string{"v9.1.0", "system", "v20.11.1", "v18.2.0", "v20.9.0", "v20.11.1-rc.1", "22", "v20.11"}
	slices.SortStableFunc(in, func(a, b string) int { return compareVersions(b, a) })
	want := []string{"22", "v20.11.1", "v20.11.1-rc.1", "v20.11", "v20.9.0", "v18.2.0", "v9.1.0", "system"}
	if !slices.Equal(in, want) {
		t.Errorf("sorted = %q, want %q", in, want)
	}
}

func mustLookup(t *testing.T, name string) Runtime {
	t.Helper()
	rt, ok := Lookup(Presets(), name)
	if !ok {
		t.Fatalf("no preset %q", name)
	}
	return rt
}
