package acp

import (
	"bytes"
	"os"
	"strconv"
)

// groupAlive reports whether a process that has not exited (a zombie
// has) is in the process group pgid, from /proc.
func groupAlive(pgid int) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return false
	}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		st, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		state, group, ok := parseStat(st)
		if ok && group == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// parseStat reads the state and the process group of a /proc/PID/stat
// line ("pid (comm) state ppid pgrp ..."; comm may hold spaces and
// parentheses, so the fields are counted from its last ')').
func parseStat(st []byte) (state byte, pgid int, ok bool) {
	i := bytes.LastIndexByte(st, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(st[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	g, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], g, true
}
