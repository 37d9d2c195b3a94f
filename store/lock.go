package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrSessionBusy is returned (wrapped in a *BusyError) when a session's
// transcript is held by a Writer, in another process or this one.
var ErrSessionBusy = errors.New("session is open in another mnote process")

// BusyError says which session is busy and, when the OS tells, which
// process holds it.
type BusyError struct {
	ID   string // session id
	Path string // transcript file
	PID  int    // 0 when unknown
}

func (e *BusyError) Error() string {
	switch {
	case e.PID == os.Getpid():
		return fmt.Sprintf("session %s is already open in this mnote process (%s)", e.ID, e.Path)
	case e.PID > 0:
		return fmt.Sprintf("session %s is open in another mnote process (pid %d)", e.ID, e.PID)
	}
	return fmt.Sprintf("session %s is open in another mnote process", e.ID)
}

// Unwrap makes errors.Is(err, ErrSessionBusy) true.
func (e *BusyError) Unwrap() error { return ErrSessionBusy }

// transcriptExt is the extension of transcript files.
const transcriptExt = ".jsonl"

// sessionIDFromPath returns the session id of a transcript file name.
func sessionIDFromPath(path string) string {
	return strings.TrimSuffix(filepath.Base(path), transcriptExt)
}

// lockExclusive takes the exclusive, non-blocking lock of an open
// transcript; a lock held elsewhere gives a *BusyError.
func lockExclusive(f *os.File, path string) error {
	held, err := tryLock(f)
	if err != nil {
		return fmt.Errorf("store: lock %s: %w", path, err)
	}
	if !held {
		return &BusyError{ID: sessionIDFromPath(path), Path: path, PID: lockHolder(f)}
	}
	return nil
}
