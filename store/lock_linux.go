//go:build linux

package store

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockHolder returns the pid holding a flock on f's file, from /proc/locks,
// or 0 when it cannot tell.
func lockHolder(f *os.File) int {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	dev := uint64(st.Dev) //nolint:unconvert // Dev's type differs between architectures
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, st.Ino)

	pl, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer pl.Close()
	sc := bufio.NewScanner(pl)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF"; waiters have "->".
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[5] != want {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil {
			return pid
		}
	}
	return 0
}
