package procguard

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Attr is how to start a guarded process: in a session of its own (no
// controlling terminal; set Setctty for a pseudo-terminal), killed by the
// kernel (SIGKILL) when mnote dies. Record it with Track once started.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// proc is one process, from /proc/PID/stat.
type proc struct {
	pid, ppid, pgid, sid int
	state                byte
	start                uint64 // clock ticks after boot
}

// parseStat reads a /proc/PID/stat line ("pid (comm) state ppid pgrp
// session ... starttime ..."; comm may hold spaces and parentheses, so the
// fields are counted from its last ')').
func parseStat(pid int, st []byte) (proc, bool) {
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return proc{}, false
	}
	f := bytes.Fields(st[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return proc{}, false
	}
	p := proc{pid: pid, state: f[0][0]}
	var err error
	for j, dst := range []*int{&p.ppid, &p.pgid, &p.sid} {
		if *dst, err = strconv.Atoi(string(f[1+j])); err != nil {
			return proc{}, false
		}
	}
	if p.start, err = strconv.ParseUint(string(f[19]), 10, 64); err != nil {
		return proc{}, false
	}
	return p, true
}

func readProc(pid int) (proc, error) {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, err
	}
	p, ok := parseStat(pid, st)
	if !ok {
		return proc{}, errors.New("/proc/" + strconv.Itoa(pid) + "/stat is not understood")
	}
	return p, nil
}

// startTime is when process pid started (clock ticks after boot), which
// with the pid names a process for good: a pid used again starts later.
func startTime(pid int) (uint64, error) {
	p, err := readProc(pid)
	return p.start, err
}

var bootOnce = sync.OnceValue(func() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
})

// bootID names this boot of the machine.
func bootID() string { return bootOnce() }

// scan lists the processes in /proc.
func scan() (map[int]proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	procs := make(map[int]proc, len(names))
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, err := readProc(pid); err == nil {
			procs[pid] = p // else gone meanwhile
		}
	}
	return procs, nil
}

// targets are the live processes (not zombies) of the sessions (leader
// pid → the leader's start time) and their descendants that belong to this
// user, this process excepted. A process is in one of the sessions when it
// names it and started no earlier than its leader, unless the leader's pid
// runs a later process: then the number was used again for another
// session (a session's id is not given to a new process while any process
// of it lives, so a live leader is the leader).
func targets(procs map[int]proc, sessions map[int]uint64) []proc {
	in := map[int]bool{}
	for _, p := range procs {
		start, ok := sessions[p.sid]
		if !ok || p.start < start {
			continue
		}
		if l, ok := procs[p.sid]; ok && start != 0 && l.start != start {
			continue
		}
		in[p.pid] = true
	}
	children := map[int][]int{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	queue := make([]int, 0, len(in))
	for pid := range in {
		queue = append(queue, pid)
	}
	for len(queue) > 0 {
		pid := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, c := range children[pid] {
			if !in[c] {
				in[c] = true
				queue = append(queue, c)
			}
		}
	}
	self := os.Getpid()
	out := make([]proc, 0, len(in))
	for pid := range in {
		p := procs[pid]
		if pid == self || p.state == 'Z' || p.state == 'X' || !ownedBy(pid, os.Getuid()) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// ownedBy reports whether process pid belongs to user uid: its real uid,
// from /proc/PID/status (the owner of /proc/PID is root for a process that
// made itself undumpable, as ssh-agent does).
func ownedBy(pid, uid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	_, rest, ok := bytes.Cut(b, []byte("\nUid:"))
	if !ok {
		return false
	}
	f := bytes.Fields(rest)
	return len(f) > 0 && string(f[0]) == strconv.Itoa(uid)
}

// signalAll sends sig to each target and to each target's process group
// (kill(-pgid) reaches a whole group at once, one forked meanwhile
// included).
func signalAll(ts []proc, sig syscall.Signal) {
	groups := map[int]bool{}
	for _, p := range ts {
		_ = syscall.Kill(p.pid, sig)
		groups[p.pgid] = true
	}
	for g := range groups {
		if g > 1 {
			_ = syscall.Kill(-g, sig)
		}
	}
}

// sweep ends the sessions (leader pid → start time): it stops (SIGSTOP)
// every one of their processes and their descendants until a look at
// /proc finds none it has not stopped, so that none forks or loses its
// parent while they are found, then kills (SIGKILL) them all; until
// deadline it kills again whatever of them still runs (one whose parent
// died meanwhile, no longer a descendant, included). It returns how many
// still run then (zombies do not count); a zero deadline kills once and
// returns 0. Without /proc it kills the leaders' process groups.
func sweep(sessions map[int]uint64, deadline time.Time) int {
	if len(sessions) == 0 {
		return 0
	}
	found := map[int]uint64{} // pid → start time of every target seen
	for range 50 {
		procs, err := scan()
		if err != nil {
			for sid := range sessions {
				_ = syscall.Kill(-sid, syscall.SIGKILL)
			}
			return 0
		}
		var fresh []proc
		for _, p := range targets(procs, sessions) {
			if _, ok := found[p.pid]; !ok {
				found[p.pid] = p.start
				fresh = append(fresh, p)
			}
		}
		if len(fresh) == 0 {
			break
		}
		signalAll(fresh, syscall.SIGSTOP)
	}
	for {
		procs, err := scan()
		if err != nil {
			return 0
		}
		ts := targets(procs, sessions)
		for _, p := range ts {
			found[p.pid] = p.start
		}
		for pid, start := range found {
			p, ok := procs[pid]
			switch {
			case !ok || p.start != start || p.state == 'Z' || p.state == 'X':
				delete(found, pid) // gone
			case !slices.ContainsFunc(ts, func(t proc) bool { return t.pid == pid }):
				ts = append(ts, p)
			}
		}
		if len(ts) == 0 {
			return 0
		}
		signalAll(ts, syscall.SIGKILL)
		if deadline.IsZero() {
			return 0
		}
		if time.Now().After(deadline) {
			return len(ts)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
