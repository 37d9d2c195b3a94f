//go:build unix

// Package procguard makes sure that the process sessions mnote starts (each
// agent, each of an agent's terminals) do not outlive mnote, not even when
// mnote is killed with SIGKILL.
//
// The design, and why (Linux):
//
//   - Each agent and each terminal runs in a session of its own (Attr:
//     setsid). A session is the widest group the kernel keeps for a tree
//     of processes without help: `nohup`, a trap of SIGHUP, `cmd &` and
//     double forks all stay in it, and /proc/PID/stat names it, so all of
//     it can be found after its leader is gone. Only a process that calls
//     setsid itself leaves it; a sweep also takes the descendants of the
//     session's processes (stopped first, so that none loses its parent
//     or forks while the set is taken), which finds such a process while
//     its parent lives.
//   - PR_SET_PDEATHSIG (SIGKILL) on each leader: the kernel kills it as
//     mnote dies, also in the moment before it was recorded (below). It
//     reaches the leader only.
//   - A record of the sessions (leader pid and start time, so that a pid
//     used again is not taken for one of them) in a file of this mnote's
//     own under the state folder (Enable), and a watchdog: this binary
//     executed again (argv[0] "mnote-procguard"), in a session of its own
//     (a Ctrl+C or a hangup of mnote's terminal does not reach it), that
//     holds the read end of a pipe whose only writer is mnote. The pipe's
//     end of file is mnote's exit, however it came; the watchdog then
//     sweeps the recorded sessions, deletes the record and exits. A
//     watchdog that dies while mnote runs is started again.
//   - The next mnote that enables the guard sweeps the records of earlier
//     instances that are gone (their watchdog was killed too): the
//     backstop.
//
// Not chosen: a cgroup per mnote (cgroup.kill takes everything, setsid
// included) needs a writable, delegated cgroup v2 tree, which a user's
// process mostly lacks outside a systemd unit of its own;
// PR_SET_CHILD_SUBREAPER in mnote would make mnote the parent of orphans
// it must reap beside os/exec's own waits, and they go to init anyway
// when mnote is killed. A process that deliberately leaves its session and
// its parent (setsid after a double fork, systemd-run, at) is out of
// reach: containing that takes a sandbox, not a client.
//
// Without Enable (tests, other programs) sessions are still swept when
// they end (Session.End); only the record and the watchdog are missing,
// and PR_SET_PDEATHSIG remains.
package procguard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// recordHeader starts a record file; the boot id follows it (a record of
// an earlier boot names pids that mean nothing now).
const recordHeader = "mnote procguard 1"

// guard is this process's record and watchdog; zero until Enable.
var guard struct {
	mu   sync.Mutex
	dir  string // the records folder; "" = not enabled
	log  *slog.Logger
	name string         // this instance's record file, in dir
	rec  *os.File       // opened with the first session
	live map[int]uint64 // recorded sessions: leader pid → start time
	wd   *watchdog
}

// Enable turns the guard on for this process: its sessions are recorded
// in a file in dir (created 0700), watched by a watchdog started with the
// first session, and the records that instances now gone left in dir are
// swept at once. Call it once, before the first agent starts.
func Enable(dir string, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the folder for the record of mnote's processes: %w", err)
	}
	self, err := startTime(os.Getpid())
	if err != nil {
		return fmt.Errorf("this process's start time: %w", err)
	}
	guard.mu.Lock()
	guard.dir, guard.log = dir, log
	guard.name = recordName(os.Getpid(), self)
	guard.live = map[int]uint64{}
	guard.mu.Unlock()
	SweepStale(dir, log)
	return nil
}

func recordName(pid int, start uint64) string {
	return strconv.Itoa(pid) + "-" + strconv.FormatUint(start, 10)
}

// Session is a process session started with Attr and recorded by Track.
type Session struct {
	sid   int    // the leader's pid, the session's id
	start uint64 // the leader's start time (clock ticks after boot)
	ended sync.Once
}

// Track records the session whose leader (started with Attr) is pid. Call
// it right after the start, before the process is waited for.
func Track(pid int) *Session {
	start, _ := startTime(pid) // 0 (every start time) when unreadable
	s := &Session{sid: pid, start: start}
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if guard.dir == "" {
		return s
	}
	guard.live[pid] = start
	if err := writeRecordLocked('+', pid, start); err != nil {
		guard.log.Warn("the session of a process mnote started is not recorded: if mnote is killed, the process may outlive it",
			"pid", pid, "err", err)
	}
	return s
}

// Kill stops and then kills every process of the session and their
// descendants, without waiting for them to be gone.
func (s *Session) Kill() {
	sweep(map[int]uint64{s.sid: s.start}, time.Time{})
}

// End kills whatever is left of the session and waits (up to d) until none
// of it runs (zombies waiting for their parent do not count); then the
// record of it is dropped. It reports whether nothing was left; a session
// that was not emptied stays recorded, for the watchdog.
func (s *Session) End(d time.Duration) bool {
	if left := sweep(map[int]uint64{s.sid: s.start}, time.Now().Add(d)); left > 0 {
		return false
	}
	s.ended.Do(func() {
		guard.mu.Lock()
		defer guard.mu.Unlock()
		if guard.dir == "" {
			return
		}
		delete(guard.live, s.sid)
		var err error
		if len(guard.live) == 0 && guard.rec != nil {
			err = resetRecordLocked() // keep the file short
		} else {
			err = writeRecordLocked('-', s.sid, s.start)
		}
		if err != nil {
			guard.log.Warn("the record of mnote's processes is not updated", "err", err)
		}
	})
	return true
}

// writeRecordLocked appends one line to this instance's record, opening
// it (and starting the watchdog) the first time.
func writeRecordLocked(op byte, pid int, start uint64) error {
	if guard.rec == nil {
		f, err := os.OpenFile(filepath.Join(guard.dir, guard.name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("open the record: %w", err)
		}
		guard.rec = f
		if err := writeHeaderLocked(); err != nil {
			return err
		}
	}
	if guard.wd == nil {
		wd, err := startWatchdog(filepath.Join(guard.dir, guard.name))
		if err != nil {
			guard.log.Warn("the watchdog of mnote's processes did not start: if mnote is killed, its processes are ended at its next start", "err", err)
		} else {
			guard.wd = wd
		}
	}
	if _, err := fmt.Fprintf(guard.rec, "%c %d %d\n", op, pid, start); err != nil {
		return fmt.Errorf("write the record: %w", err)
	}
	return nil
}

func writeHeaderLocked() error {
	if _, err := fmt.Fprintf(guard.rec, "%s %s\n", recordHeader, bootID()); err != nil {
		return fmt.Errorf("write the record: %w", err)
	}
	return nil
}

// resetRecordLocked empties the record: no session is left.
func resetRecordLocked() error {
	if err := guard.rec.Truncate(0); err != nil {
		return fmt.Errorf("empty the record: %w", err)
	}
	return writeHeaderLocked()
}

// readRecord returns the sessions a record file holds (those added and
// not removed) and whether it was written in this boot. A torn last line
// is ignored.
func readRecord(path string) (map[int]uint64, bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	live := map[int]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() {
		return live, true, nil // empty: created, nothing recorded
	}
	boot, ok := strings.CutPrefix(sc.Text(), recordHeader+" ")
	if !ok {
		return nil, false, fmt.Errorf("%s is not a record of mnote's processes", path)
	}
	if boot != bootID() {
		return live, false, nil
	}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || (f[0] != "+" && f[0] != "-") {
			continue
		}
		pid, err1 := strconv.Atoi(f[1])
		start, err2 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil || pid <= 1 {
			continue
		}
		if f[0] == "+" {
			live[pid] = start
		} else {
			delete(live, pid)
		}
	}
	return live, true, nil
}

// sweepRecord ends every session of the record at path and deletes it.
func sweepRecord(path string, log *slog.Logger) {
	live, thisBoot, err := readRecord(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("a record of mnote's processes is not read", "file", path, "err", err)
		}
		return
	}
	if thisBoot && len(live) > 0 {
		if left := sweep(live, time.Now().Add(5*time.Second)); left > 0 {
			log.Warn("processes an earlier mnote started could not be ended", "left", left, "record", path)
			return
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		log.Warn("a record of mnote's processes is not deleted", "file", path, "err", err)
	}
}

// SweepStale ends the sessions recorded in dir by mnote instances that are
// gone (killed with their watchdog) and deletes their records; records of
// instances still running are left alone.
func SweepStale(dir string, log *slog.Logger) {
	if log == nil {
		log = slog.Default()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pidStr, startStr, ok := strings.Cut(e.Name(), "-")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pid, err1 := strconv.Atoi(pidStr)
		start, err2 := strconv.ParseUint(startStr, 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if now, err := startTime(pid); err == nil && now == start {
			continue // that mnote still runs (this one included)
		}
		sweepRecord(filepath.Join(dir, e.Name()), log)
	}
}
