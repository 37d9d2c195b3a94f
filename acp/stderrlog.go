package acp

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// Defaults for an agent's stderr log (ProcSpec.LogMaxBytes, LogFiles).
const (
	DefaultLogMaxBytes = 4 << 20
	DefaultLogFiles    = 3
)

// logPendingMax bounds what the stderr reader hands to the log writer and
// the writer has not written yet. When the disk is slower than the agent,
// the oldest pending bytes are dropped (and the drop noted in the log):
// the agent's stderr is always drained at once and never waits for a disk.
const logPendingMax = 1 << 20

// stderrLog keeps an agent's stderr in a rotated, size-capped file set:
// path, path.1 ... path.(files-1), each at most about maxBytes. Write only
// queues; a goroutine of its own writes and rotates.
//
// Several processes may append to the same path (sessions of one agent in
// different folders, a command-line run beside the app). Each writer checks
// the size of the file it holds before every write; when it is full and
// still the one at path, the writer rotates, and when another writer
// rotated it first, it reopens path.
type stderrLog struct {
	path     string
	maxBytes int64
	files    int
	log      *slog.Logger

	mu      sync.Mutex
	pending []byte
	dropped int64
	closed  bool
	wake    chan struct{} // capacity 1
	done    chan struct{} // closed when the writer has finished

	f *os.File // the writer goroutine's only
	// midLine: the last byte written was not a newline (the writer's only).
	midLine bool
}

// openStderrLog opens (creating, mode 0600) the log at path and starts its
// writer. A FIFO, device or symlink at path is refused: opening or writing
// it could block mnote or write somewhere else.
func openStderrLog(path string, maxBytes int64, files int, log *slog.Logger) (*stderrLog, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultLogMaxBytes
	}
	if files <= 0 {
		files = DefaultLogFiles
	}
	l := &stderrLog{path: path, maxBytes: maxBytes, files: files, log: log,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	f, err := openLogFile(path)
	if err != nil {
		return nil, err
	}
	l.f = f
	go l.run()
	return l, nil
}

// openLogFile opens path for appending without following a symlink and
// without blocking (a FIFO with no reader), and keeps it only if it is a
// regular file, then makes it private.
func openLogFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open agent log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open agent log: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open agent log %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	if fi.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("open agent log: %w", err)
		}
	}
	return f, nil
}

// Write queues p for the log. It never blocks on the disk: past
// logPendingMax queued bytes the oldest are dropped.
func (l *stderrLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	if !l.closed {
		if len(p) >= logPendingMax {
			l.dropped += int64(len(l.pending) + len(p) - logPendingMax)
			l.pending = append(l.pending[:0], p[len(p)-logPendingMax:]...)
		} else {
			if over := len(l.pending) + len(p) - logPendingMax; over > 0 {
				// Drop at least half of the queue at once, so that a
				// stalled writer costs one copy per half queue, not one
				// per read.
				over = min(len(l.pending), max(over, logPendingMax/2))
				l.dropped += int64(over)
				l.pending = append(l.pending[:0], l.pending[over:]...)
			}
			l.pending = append(l.pending, p...)
		}
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

// close writes what is queued, closes the file and waits for the writer.
func (l *stderrLog) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	<-l.done
}

// run is the writer goroutine.
func (l *stderrLog) run() {
	defer close(l.done)
	var buf []byte
	for range l.wake {
		l.mu.Lock()
		buf, l.pending = l.pending, buf[:0]
		dropped, closed := l.dropped, l.closed
		l.dropped = 0
		l.mu.Unlock()
		if dropped > 0 {
			// On a line of its own, even when the drop cut a line.
			var note []byte
			if l.midLine {
				note = append(note, '\n')
			}
			l.write(fmt.Appendf(note, "--- mnote: %d bytes of stderr dropped: the log could not keep up\n", dropped))
		}
		if len(buf) > 0 {
			l.write(buf)
		}
		if closed {
			if l.f != nil {
				l.f.Close()
				l.f = nil
			}
			return
		}
	}
}

// write appends p to the current file, rotating whenever it is full
// (cutting p after a newline, so that lines stay whole: when no whole line
// fits in what is left, the file is rotated early; only a line longer than
// a whole file is cut).
// After a failure (a full disk) the rest of the log is discarded; the
// agent's stderr stays drained and its tail in memory.
func (l *stderrLog) write(p []byte) {
	early, rotated := false, false
	for len(p) > 0 && l.f != nil {
		size, err := l.rotateIfFull(early)
		if err != nil {
			l.fail(err)
			return
		}
		early = false
		n := len(p)
		if room := l.maxBytes - size; room > 0 && int64(n) > room {
			n = int(room)
			if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
				n = i + 1
			} else if size > 0 && !l.midLine && !rotated {
				// The line starts the next file (once: a file another
				// writer keeps full gets the line cut instead).
				early, rotated = true, true
				continue
			}
		}
		if _, err := l.f.Write(p[:n]); err != nil {
			l.fail(fmt.Errorf("write agent log: %w", err))
			return
		}
		l.midLine = p[n-1] != '\n'
		p = p[n:]
	}
}

func (l *stderrLog) fail(err error) {
	l.log.Warn("agent stderr log stopped; its tail is still kept in memory", "file", l.path, "err", err)
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// rotateIfFull makes room when the held file has reached maxBytes (or at
// once with early): it shifts path → path.1 → … (the last one is
// overwritten) and opens a new path, or reopens path when another writer
// already rotated. It returns the size of the file now held.
func (l *stderrLog) rotateIfFull(early bool) (int64, error) {
	fi, err := l.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("agent log: %w", err)
	}
	if fi.Size() < l.maxBytes && !early {
		return fi.Size(), nil
	}
	cur, err := os.Lstat(l.path)
	if err == nil && os.SameFile(fi, cur) {
		if l.files <= 1 {
			err = os.Remove(l.path)
		} else {
			for i := l.files - 1; i >= 1 && err == nil; i-- {
				err = os.Rename(l.rotated(i-1), l.rotated(i))
				if errors.Is(err, os.ErrNotExist) {
					err = nil
				}
			}
		}
		if err != nil {
			return 0, fmt.Errorf("rotate agent log: %w", err)
		}
	}
	// Rotated by us or by another writer (or removed): go on with path.
	f, err := openLogFile(l.path)
	if err != nil {
		return 0, err
	}
	l.f.Close()
	l.f = f
	if fi, err = f.Stat(); err != nil {
		return 0, fmt.Errorf("agent log: %w", err)
	}
	return fi.Size(), nil
}

// rotated is the name of the i-th older file (0 is path itself).
func (l *stderrLog) rotated(i int) string {
	if i == 0 {
		return l.path
	}
	return l.path + "." + strconv.Itoa(i)
}
