package cli_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mnote/acp/acptest"
)

// orphanRun is a `mnote prompt` whose agent and terminal leave processes
// that ignore SIGHUP behind: the agent (a script that execs the test
// agent) starts a nohup'ed child, and its terminal a nohup'ed child and a
// double-forked one, then waits. Each process writes "name pid" to a file
// as it starts.
type orphanRun struct {
	h     *harness
	cmd   *exec.Cmd
	pids  string
	procs map[string]procID // by name: agent, agentchild, term, nohup, dfork
}

// procID names a process for good: its pid and start time.
type procID struct {
	pid   int
	start string
}

func startOrphanRun(t *testing.T) *orphanRun {
	t.Helper()
	h := newHarness(t)
	dir := t.TempDir()
	r := &orphanRun{h: h, pids: filepath.Join(dir, "pids")}
	script := filepath.Join(dir, "agent.sh")
	agentSh := "#!/bin/sh\n" +
		"echo agent $$ >> " + r.pids + "\n" +
		"nohup sh -c 'trap \"\" HUP; echo agentchild $$ >> " + r.pids + "; exec sleep 300' >/dev/null 2>&1 &\n" +
		"exec " + h.agent + " --state " + h.state + "\n"
	if err := os.WriteFile(script, []byte(agentSh), 0o700); err != nil {
		t.Fatal(err)
	}
	term := "echo term $$ >> " + r.pids + "\n" +
		"nohup sh -c 'trap \"\" HUP; echo nohup $$ >> " + r.pids + "; exec sleep 300' >/dev/null 2>&1 &\n" +
		"( sh -c 'trap \"\" HUP; echo dfork $$ >> " + r.pids + "; exec sleep 300' & )\n" +
		"exec sleep 300\n"
	steps := acptest.Steps(terminalJSON(t, term), `{"terminalWait":"t"}`)
	r.cmd = h.cmd("prompt", "--json", "--agent-cmd", script, steps)
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		for _, p := range r.procs {
			if p.alive() {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
	})
	want := []string{"agent", "agentchild", "term", "nohup", "dfork"}
	if !wait(t, 30*time.Second, func() bool { r.read(); return len(r.procs) == len(want) }) {
		t.Fatalf("processes started: %v, want %v", r.procs, want)
	}
	return r
}

func terminalJSON(t *testing.T, script string) string {
	t.Helper()
	return `{"terminal":{"command":"sh","args":["-c",` + strconv.Quote(script) + `]}}`
}

// read reads the pids file.
func (r *orphanRun) read() {
	b, _ := os.ReadFile(r.pids)
	r.procs = map[string]procID{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, p, ok := strings.Cut(sc.Text(), " ")
		pid, err := strconv.Atoi(p)
		if ok && err == nil {
			r.procs[name] = procID{pid: pid, start: statField(pid, 19)}
		}
	}
}

// left lists the processes of the run that still run, and those of the
// agent's and the terminal's sessions.
func (r *orphanRun) left() []string {
	var out []string
	for name, p := range r.procs {
		if p.alive() {
			out = append(out, name+" "+strconv.Itoa(p.pid))
		}
	}
	sessions := map[string]bool{strconv.Itoa(r.procs["agent"].pid): true, strconv.Itoa(r.procs["term"].pid): true}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if sessions[statField(pid, 3)] && statField(pid, 0) != "Z" {
			out = append(out, "session member "+e.Name())
		}
	}
	return out
}

// watchdog is the process guard's watchdog of mnote (its child with
// argv[0] mnote-procguard), or 0.
func (r *orphanRun) watchdog() int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || statField(pid, 1) != strconv.Itoa(r.cmd.Process.Pid) {
			continue
		}
		if b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); string(b) == "mnote-procguard\x00" {
			return pid
		}
	}
	return 0
}

// records are the files of the process guard's records.
func (r *orphanRun) records() []string {
	entries, _ := os.ReadDir(filepath.Join(r.h.home, "state", "procs"))
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func (p procID) alive() bool {
	st := statField(p.pid, 0)
	return st != "" && st != "Z" && statField(p.pid, 19) == p.start
}

// statField is field i of /proc/pid/stat after the command's name (0:
// state, 1: ppid, 3: session, 19: start time); "" when there is none.
func statField(pid, i int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if i >= len(f) {
		return ""
	}
	return f[i]
}

// mnote killed with SIGKILL takes everything it started down: the agent
// and its nohup'ed child, the terminal's command, a nohup'ed child of it
// and a double-forked one (all ignoring SIGHUP). Its watchdog does it and
// leaves nothing behind, itself and the record included.
func TestKilledMnoteLeavesNoProcess(t *testing.T) {
	r := startOrphanRun(t)
	wd := r.watchdog()
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = r.cmd.Wait()
	killed := time.Now()
	if !wait(t, 15*time.Second, func() bool { return len(r.left()) == 0 }) {
		t.Fatalf("left running after mnote was killed: %v", r.left())
	}
	t.Logf("all gone %s after the kill", time.Since(killed).Round(time.Millisecond))
	if wd == 0 {
		t.Fatal("mnote started no watchdog")
	}
	if !wait(t, 15*time.Second, func() bool { return statField(wd, 0) == "" || statField(wd, 0) == "Z" }) {
		t.Fatalf("the watchdog %d still runs", wd)
	}
	if recs := r.records(); len(recs) != 0 {
		t.Fatalf("records left: %v", recs)
	}
}

// When the watchdog goes with mnote (stopped, then both killed), the
// next mnote ends what the killed one left behind, and deletes its record.
func TestNextMnoteEndsLeftovers(t *testing.T) {
	r := startOrphanRun(t)
	wd := r.watchdog()
	if wd == 0 {
		t.Fatal("mnote started no watchdog")
	}
	if err := syscall.Kill(wd, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = r.cmd.Wait()
	if err := syscall.Kill(wd, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agentchild", "nohup", "dfork"} {
		if !r.procs[name].alive() {
			t.Fatalf("%s did not outlive mnote and its watchdog: nothing for the next start to do", name)
		}
	}
	recs := r.records()
	if len(recs) != 1 {
		t.Fatalf("records: %v", recs)
	}
	if res := r.h.run("prompt", "--agent-cmd", r.h.agent, "hello"); res.code != 0 {
		t.Fatalf("the next mnote: exit %d: %s", res.code, res.stderr)
	}
	if left := r.left(); len(left) != 0 {
		t.Fatalf("left running after the next mnote started: %v", left)
	}
	// (The next mnote's own record goes with its watchdog, after it.)
	if slices.Contains(r.records(), recs[0]) {
		t.Fatalf("the killed mnote's record %s is left", recs[0])
	}
}
