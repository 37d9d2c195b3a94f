package app_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"mnote/acp/acptest"
	"mnote/acp/runtimes"
	"mnote/app"
)

// fakeNPM puts an npm first on a PATH of its own: it records its argv,
// prints progress, and (unless told to hang) writes a qwen into
// --prefix/node_modules/.bin that runs the test agent. No real npm, no
// network.
func fakeNPM(t *testing.T, hang bool) (env []string, argvFile, pidFile string) {
	t.Helper()
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	argvFile, pidFile = filepath.Join(root, "argv"), filepath.Join(root, "pids")
	agent := acptest.TestAgent(t)
	script := `#!/bin/sh
printf '%s\n' "$@" > '` + argvFile + `'
prefix=
while [ $# -gt 0 ]; do
	case "$1" in --prefix) prefix=$2; shift;; esac
	shift
done
echo "npm http fetch GET 200 https://registry.npmjs.org/@qwen-code%2fqwen-code 12ms"
echo "npm warn deprecated something@1.0.0" >&2
`
	if hang {
		script += `sleep 300 &
echo "$$ $!" > '` + pidFile + `'
echo "still fetching"
wait
`
	} else {
		script += `mkdir -p "$prefix/node_modules/.bin"
printf '#!/bin/sh\nexec %s\n' '` + agent + `' > "$prefix/node_modules/.bin/qwen"
chmod 755 "$prefix/node_modules/.bin/qwen"
echo "added 1 package in 1s"
`
	}
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=C"}
	return env, argvFile, pidFile
}

func installHarness(t *testing.T, env []string) *harness {
	t.Helper()
	return newHarnessWith(t, func(cfg *app.Config) {
		cfg.Detector = runtimes.NewDetector(runtimes.DetectOptions{Inherited: true, Env: env})
	})
}

func agentNamed(t *testing.T, h *harness, name string) app.Agent {
	t.Helper()
	var agents []app.Agent
	h.mustCall("agents.list", struct{}{}, &agents)
	for _, a := range agents {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no agent %q", name)
	return app.Agent{}
}

// waitInstall waits for the agent:install event that ends an install and
// returns the lines of npm's output seen before it.
func waitInstall(t *testing.T, h *harness, name string) (app.AgentInstallEvent, []string) {
	t.Helper()
	var lines []string
	from := 0
	for {
		i, ev, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool { return ev.Name == app.EventAgentInstall })
		if err != nil {
			t.Fatalf("no end of the install: %v (lines %q)", err, lines)
		}
		from = i + 1
		var ie app.AgentInstallEvent
		if err := json.Unmarshal(ev.Data, &ie); err != nil {
			t.Fatal(err)
		}
		if ie.Name != name {
			continue
		}
		if ie.Phase != app.InstallRunning {
			return ie, lines
		}
		lines = append(lines, ie.Line)
	}
}

// First run: Qwen Code is not installed; agents.install runs the pinned
// npm install into mnote's own folder, with progress and a log, and the
// agent is found and starts without a restart.
func TestInstallAgent(t *testing.T) {
	t.Parallel()
	env, argvFile, _ := fakeNPM(t, false)
	h := installHarness(t, env)
	qwen := agentNamed(t, h, "qwen")
	if qwen.Status != app.AgentMissing || qwen.NPMPackage != "@qwen-code/qwen-code@0.24.4" {
		t.Fatalf("before the install: %+v", qwen)
	}
	var st app.InstallStarted
	h.mustCall("agents.install", map[string]any{"name": "qwen"}, &st)
	end, lines := waitInstall(t, h, "qwen")
	if end.Phase != app.InstallDone {
		t.Fatalf("install ended %+v after %q", end, lines)
	}
	dir := filepath.Join(h.paths.DataDir, "agents", "qwen")
	argv, err := os.ReadFile(argvFile)
	if err != nil {
		t.Fatal(err)
	}
	want := "install\n--prefix\n" + dir + "\n--no-audit\n--no-fund\n--loglevel=http\n@qwen-code/qwen-code@0.24.4\n"
	if string(argv) != want {
		t.Fatalf("npm ran with\n%s\nwant\n%s", argv, want)
	}
	joined := strings.Join(lines, "\n")
	for _, l := range []string{"npm http fetch GET 200", "npm warn deprecated", "added 1 package"} {
		if !strings.Contains(joined, l) {
			t.Errorf("no progress line %q in %q", l, joined)
		}
	}
	log, err := os.ReadFile(st.Log)
	if err != nil || !strings.Contains(string(log), "added 1 package") || !strings.Contains(string(log), "npm warn deprecated") {
		t.Fatalf("install log %s: %q, %v", st.Log, log, err)
	}
	if fi, _ := os.Stat(st.Log); fi.Mode().Perm() != 0o600 {
		t.Errorf("install log mode %v", fi.Mode().Perm())
	}
	qwen = agentNamed(t, h, "qwen")
	if qwen.Status != app.AgentReady || qwen.Path != filepath.Join(dir, "node_modules", ".bin", "qwen") {
		t.Fatalf("after the install: %+v", qwen)
	}
	sum := h.create("qwen")
	h.turnDone(sum.ID, `{"message":"hi"}`)
}

// Cancel kills npm and what it started, at once.
func TestInstallCancel(t *testing.T) {
	t.Parallel()
	env, _, pidFile := fakeNPM(t, true)
	h := installHarness(t, env)
	h.mustCall("agents.install", map[string]any{"name": "qwen"}, nil)
	if _, _, err := h.rec.Wait(ctxFor(t), 0, func(ev app.RecordedEvent) bool {
		return ev.Name == app.EventAgentInstall && strings.Contains(string(ev.Data), "still fetching")
	}); err != nil {
		t.Fatal(err)
	}
	if e := h.call("agents.install", map[string]any{"name": "qwen"}, nil); codeOf(e) != app.CodeBusy {
		t.Fatalf("a second install at once: %v", e)
	}
	h.mustCall("agents.cancelInstall", map[string]any{"name": "qwen"}, nil)
	end, _ := waitInstall(t, h, "qwen")
	if end.Phase != app.InstallCancelled {
		t.Fatalf("cancelled install ended %+v", end)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		if err := eventually(testWait, func() bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }); err != nil {
			t.Errorf("process %d of the install still runs", pid)
		}
	}
	if agentNamed(t, h, "qwen").Status != app.AgentMissing {
		t.Fatal("qwen after a cancelled install")
	}
	if e := h.call("agents.cancelInstall", map[string]any{"name": "qwen"}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("cancel with no install: %v", e)
	}
}

// Only presets' pinned packages: an agent without one (Kimi: uv), a
// custom agent, and names that try to leave the agents folder are refused
// and nothing runs.
func TestInstallRefused(t *testing.T) {
	t.Parallel()
	env, argvFile, _ := fakeNPM(t, false)
	h := installHarness(t, env)
	for _, name := range []string{"kimi", "test", "../qwen", "qwen/../../x"} {
		e := h.call("agents.install", map[string]any{"name": name}, nil)
		if e == nil {
			t.Fatalf("install %q accepted", name)
		}
		if name == "kimi" && (e.Code != app.CodeBadRequest || !strings.Contains(e.Details, "uv tool install")) {
			t.Errorf("install kimi: %+v", e)
		}
	}
	if _, err := os.Stat(argvFile); err == nil {
		t.Fatal("npm ran")
	}
	if ents, _ := os.ReadDir(filepath.Join(h.paths.DataDir, "agents")); len(ents) != 0 {
		t.Fatalf("folders made: %v", ents)
	}
}
