package procguard

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"mnote/internal/testenv"
)

// victim starts a session (setsid) running script with sh; it ignores
// SIGHUP like a nohup'ed process.
func victim(t *testing.T, script string) (int, uint64) {
	t.Helper()
	cmd := exec.Command("sh", "-c", `trap "" HUP; `+script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	start, err := startTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, start
}

// members lists the live processes of session sid.
func members(t *testing.T, sid int) []int {
	t.Helper()
	procs, err := scan()
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, p := range procs {
		if p.sid == sid && p.state != 'Z' {
			out = append(out, p.pid)
		}
	}
	return out
}

func writeRecord(t *testing.T, path, boot string, lines ...string) {
	t.Helper()
	b := []byte(recordHeader + " " + boot + "\n")
	for _, l := range lines {
		b = append(b, l+"\n"...)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// SweepStale ends the sessions of a record whose mnote is gone, all of
// them (a background child included), and deletes the record. It leaves
// alone what is not that session any more: a leader pid that now runs a
// later process (a pid used again), the record of an mnote still running,
// and a record of an earlier boot.
func TestSweepStale(t *testing.T) {
	dir := t.TempDir()
	gone, gStart := victim(t, "sleep 100 & exec sleep 100")
	reused, rStart := victim(t, "exec sleep 100")
	running, runStart := victim(t, "exec sleep 100")
	earlier, eStart := victim(t, "exec sleep 100")
	// The sessions are made as the children start, the background child
	// a moment later.
	for pid, n := range map[int]int{gone: 2, reused: 1, running: 1, earlier: 1} {
		deadline := time.Now().Add(10 * time.Second)
		for len(members(t, pid)) < n && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if got := len(members(t, pid)); got != n {
			t.Fatalf("session %d has %d processes, want %d", pid, got, n)
		}
	}
	self, err := startTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// This test's pid, started at another time: that mnote is gone.
	stale := filepath.Join(dir, recordName(os.Getpid(), self+1))
	writeRecord(t, stale, bootID(),
		fmt.Sprintf("+ %d %d", gone, gStart),
		fmt.Sprintf("+ %d %d", reused, rStart-1), // an earlier process had the number
		"+ 123456789 1", "- 123456789 1", "torn li")
	live := filepath.Join(dir, recordName(os.Getpid(), self)) // this process: running
	writeRecord(t, live, bootID(), fmt.Sprintf("+ %d %d", running, runStart))
	otherBoot := filepath.Join(dir, recordName(1, 1))
	writeRecord(t, otherBoot, "another-boot", fmt.Sprintf("+ %d %d", earlier, eStart))

	SweepStale(dir, nil)

	if left := members(t, gone); len(left) != 0 {
		t.Errorf("the gone mnote's session still runs: %v", left)
	}
	for name, pid := range map[string]int{"reused": reused, "running": running, "earlier boot": earlier} {
		if len(members(t, pid)) == 0 {
			t.Errorf("%s: session %d was killed", name, pid)
		}
	}
	for path, want := range map[string]bool{stale: false, live: true, otherBoot: false} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(path), err == nil, want)
		}
	}
}

// Ending a session takes its processes stopped first, so a descendant that
// left the session (setsid) is found through its parent and killed too;
// the record keeps the session until then, and is emptied with the last.
func TestEndTakesEscapedDescendants(t *testing.T) {
	dir := t.TempDir()
	if err := Enable(dir, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		guard.mu.Lock()
		defer guard.mu.Unlock()
		if guard.wd != nil {
			w := guard.wd
			guard.wd = nil
			w.pipe.Close() // the watchdog sweeps (nothing) and exits
		}
		if guard.rec != nil {
			guard.rec.Close()
		}
		guard.dir, guard.rec, guard.live = "", nil, nil
	})
	pidFile := filepath.Join(t.TempDir(), "escaped")
	if _, err := exec.LookPath("setsid"); err != nil {
		testenv.SkipOrFail(t, "no setsid(1)")
	}
	// setsid(1) in a background job (not a group leader) calls setsid()
	// and execs, so $! is the escaped process.
	cmd := exec.Command("sh", "-c", `setsid sleep 100 & echo $! > `+pidFile+`; exec sleep 100`)
	cmd.SysProcAttr = Attr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := Track(cmd.Process.Pid)
	t.Cleanup(func() { _ = cmd.Wait() })
	var escaped int
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(pidFile)
		if _, err := fmt.Sscan(string(b), &escaped); err == nil {
			if p, err := readProc(escaped); err == nil && p.sid == escaped {
				break // it has left the session
			}
		}
		time.Sleep(time.Millisecond)
	}
	if escaped == 0 {
		t.Fatal("no escaped child")
	}
	t.Cleanup(func() { _ = syscall.Kill(escaped, syscall.SIGKILL) })
	rec := filepath.Join(dir, guard.name)
	if live, _, err := readRecord(rec); err != nil || live[cmd.Process.Pid] == 0 {
		t.Fatalf("record %v %v", live, err)
	}
	if !s.End(5 * time.Second) {
		t.Fatal("End left processes")
	}
	if p, err := readProc(escaped); err == nil && p.state != 'Z' {
		t.Fatalf("the escaped child %d still runs (%c)", escaped, p.state)
	}
	if live, _, err := readRecord(rec); err != nil || len(live) != 0 {
		t.Fatalf("record after End %v %v", live, err)
	}
}
