package acp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// floodLines is how many lines floodSpec writes to stderr: about 22 MB,
// more than twice what the log keeps.
const floodLines = 500000

// floodSpec runs a shell that writes "line N padding…" for N = 1..floodLines
// to stderr.
func floodSpec(t *testing.T, logFile string) ProcSpec {
	t.Helper()
	return ProcSpec{Path: "/bin/sh", Dir: t.TempDir(), LogFile: logFile,
		Args: []string{"-c", "seq -f 'line %g padding padding padding padding' 1 " + strconv.Itoa(floodLines) + " >&2"}}
}

// waitStderr waits for the process to exit and its stderr log to be
// written and closed.
func waitStderr(t *testing.T, p *Process) {
	t.Helper()
	<-p.Done()
	<-p.stderrDone
	if ee := p.ExitError(); ee.Code != 0 {
		t.Fatalf("flood exited: %v", ee)
	}
}

// lineNumbers returns the N of every whole "line N padding…" line of a
// log file. A line cut by a drop (the writer fell behind: the start of a
// line, then the drop's notice on a line of its own) is not counted: its
// number may be cut short too ("line 2000" of "line 20001 …").
func lineNumbers(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for l := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) != 6 || f[0] != "line" || f[5] != "padding" {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("%s: bad line %q", path, l)
		}
		out = append(out, n)
	}
	return out
}

// An agent flooding stderr with far more than the cap leaves at most
// DefaultLogFiles files of at most DefaultLogMaxBytes, private, with the
// newest lines at the end of the current one; the in-memory tail has them
// too.
func TestStderrLogRotatedAndCapped(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "agent-flood.log")
	p, err := StartProcess(floodSpec(t, logFile), slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	waitStderr(t, p)

	want := []string{"agent-flood.log", "agent-flood.log.1", "agent-flood.log.2"}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var total int64
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name())
		total += fi.Size()
		if fi.Size() > DefaultLogMaxBytes {
			t.Errorf("%s is %d bytes, above the cap %d", e.Name(), fi.Size(), DefaultLogMaxBytes)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("log folder holds %v, want %v", names, want)
	}
	if total > DefaultLogFiles*DefaultLogMaxBytes {
		t.Errorf("the logs take %d bytes, above %d", total, DefaultLogFiles*DefaultLogMaxBytes)
	}
	// Oldest file first, numbers only ever grow; the newest line is last.
	var all []int
	for _, n := range slices.Backward(want) {
		nums := lineNumbers(t, filepath.Join(dir, n))
		if len(nums) == 0 {
			t.Fatalf("%s holds no lines", n)
		}
		all = append(all, nums...)
	}
	if !slices.IsSorted(all) || all[len(all)-1] != floodLines {
		t.Errorf("lines out of order or the newest missing: %d lines, last %d", len(all), all[len(all)-1])
	}
	if tail := p.StderrTail(1); tail != fmt.Sprintf("line %d padding padding padding padding", floodLines) {
		t.Errorf("in-memory tail %q", tail)
	}
}

// Two processes of one agent share its log file and keep it bounded:
// whoever finds the file full rotates, the other follows.
func TestStderrLogSharedByTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "agent-twice.log")
	var procs []*Process
	for range 2 {
		spec := floodSpec(t, logFile)
		spec.LogMaxBytes = 256 << 10
		p, err := StartProcess(spec, slog.Default())
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	for _, p := range procs {
		waitStderr(t, p)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, e := range entries {
		fi, _ := e.Info()
		total += fi.Size()
		if !slices.Contains([]string{"agent-twice.log", "agent-twice.log.1", "agent-twice.log.2"}, e.Name()) {
			t.Errorf("unexpected file %s", e.Name())
		}
	}
	// Each writer may overshoot a file by what it wrote before it saw
	// the other's bytes: at most one cap per writer and file.
	if limit := int64(2 * DefaultLogFiles * (256 << 10)); total > limit {
		t.Errorf("two writers left %d bytes of logs, above %d", total, limit)
	}
}

// A FIFO put where the log goes (by a hostile agent: it runs as the same
// user) neither blocks the start nor receives the agent's stderr.
func TestStderrLogRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "agent-fifo.log")
	if err := syscall.Mkfifo(logFile, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A reader, so that an open for writing would succeed and a write
	// would show up here.
	r, err := os.OpenFile(logFile, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := StartProcess(ProcSpec{Path: "/bin/sh", Args: []string{"-c", "echo secret-ish >&2"}, Dir: t.TempDir(), LogFile: logFile}, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	waitStderr(t, p)
	buf := make([]byte, 4096)
	n, err := r.Read(buf)
	if n > 0 {
		t.Errorf("the agent's stderr went into the FIFO: %q", buf[:n])
	}
	if err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, io.EOF) {
		t.Errorf("read FIFO: %v", err)
	}
	if tail := p.StderrTail(1); tail != "secret-ish" {
		t.Errorf("in-memory tail %q", tail)
	}
}

// Write only queues: with the writer not running at all (a disk that does
// not keep up), the queue stays bounded, and once it runs the log notes
// the drop and keeps the newest bytes.
func TestStderrLogWriteNeverWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent-slow.log")
	f, err := openLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l := &stderrLog{path: path, maxBytes: DefaultLogMaxBytes, files: DefaultLogFiles, log: slog.Default(),
		f: f, wake: make(chan struct{}, 1), done: make(chan struct{})}
	const lines = 200000 // about 3 MiB
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(l, "line %d padding\n", i)
	}
	l.mu.Lock()
	queued, dropped := len(l.pending), l.dropped
	l.mu.Unlock()
	if queued > logPendingMax || dropped == 0 {
		t.Fatalf("queued %d bytes (max %d), dropped %d", queued, logPendingMax, dropped)
	}
	go l.run()
	l.close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, fmt.Appendf(nil, "--- mnote: %d bytes of stderr dropped", dropped)) {
		t.Errorf("no drop note at the start: %.80q", data)
	}
	if !bytes.HasSuffix(data, fmt.Appendf(nil, "line %d padding\n", lines)) {
		t.Errorf("the newest line is missing: ...%q", data[max(0, len(data)-80):])
	}
	if int64(len(data)) > DefaultLogMaxBytes {
		t.Errorf("log is %d bytes", len(data))
	}
}

// A rotation never cuts a line: when the next line does not fit in what
// is left of a file, the file is rotated early (only a line longer than a
// whole file is cut).
func TestStderrLogRotatesAtLineEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.log")
	l, err := openStderrLog(path, 50, 3, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 9 {
		fmt.Fprintf(l, "line %d 汉字 padding\n", i) // 22 bytes: two fit in 50, a third does not
		l.close()                                 // drain each write on its own (close waits for the writer)
		if i < 8 {
			if l, err = openStderrLog(path, 50, 3, slog.Default()); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range []string{path, path + ".1", path + ".2"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 || data[len(data)-1] != '\n' {
			t.Errorf("%s ends inside a line: %q", name, data)
		}
		for line := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
			if !strings.HasPrefix(line, "line ") || !strings.HasSuffix(line, " 汉字 padding") {
				t.Errorf("%s holds a cut line %q", name, line)
			}
		}
	}
}
