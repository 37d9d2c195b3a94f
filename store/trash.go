package store

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// ErrExists is returned when a move would replace a transcript.
var ErrExists = fs.ErrExist

// MoveToTrash moves a session's transcript from Transcripts to Trash. It
// refuses if the trash already has that session, and with ErrSessionBusy
// while a Writer holds the transcript. The caller then calls Index.Remove
// (or Index.ReindexFile on the trash path to list it as deleted). The
// trashed file's modification time is then the deletion time.
func MoveToTrash(p Paths, id string) error {
	if err := mkdirPrivate(p.Trash); err != nil {
		return err
	}
	if err := moveTranscript(id, p.TranscriptPath(id), p.TrashPath(id)); err != nil {
		return err
	}
	// The file's modification time says when it was deleted (ListTrash).
	// Moving kept the old one; failing to set it only shows an older time.
	now := time.Now()
	_ = os.Chtimes(p.TrashPath(id), now, now)
	return nil
}

// RestoreFromTrash moves a session's transcript back from Trash to
// Transcripts, with the same refusals as MoveToTrash. The caller then
// calls Index.ReindexFile on the restored path.
func RestoreFromTrash(p Paths, id string) error {
	if err := mkdirPrivate(p.Transcripts); err != nil {
		return err
	}
	return moveTranscript(id, p.TrashPath(id), p.TranscriptPath(id))
}

func moveTranscript(id, from, to string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) || strings.ContainsRune(id, 0) {
		return fmt.Errorf("store: bad session id %q", id)
	}
	f, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("store: move session %s: %w", id, err)
	}
	defer f.Close()
	// Holding the lock while renaming keeps a Writer from opening the
	// file in between.
	if err := lockExclusive(f, from); err != nil {
		return err
	}
	defer unlock(f) //nolint:errcheck // closing releases it too
	// link + remove cannot replace an existing file, unlike rename.
	err = os.Link(from, to)
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("store: move session %s: %s: %w", id, to, ErrExists)
	case err == nil:
		if err := os.Remove(from); err != nil {
			return fmt.Errorf("store: move session %s: %w", id, err)
		}
		return nil
	}
	// No hard links on this file system: check, then rename.
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("store: move session %s: %s: %w", id, to, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: move session %s: %w", id, err)
	}
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("store: move session %s: %w", id, err)
	}
	return nil
}

// TrashedSession is a session in the trash: what its transcript says, and
// when it was deleted.
type TrashedSession struct {
	Info SessionInfo
	// DeletedMs is when it was moved to the trash (Unix milliseconds): the
	// transcript's modification time, which MoveToTrash sets.
	DeletedMs int64
}

// ListTrash returns the sessions in the trash, the most recently deleted
// first. A transcript that cannot be read is left out and reported in the
// returned error after the others are read.
func ListTrash(p Paths) ([]TrashedSession, error) {
	files, err := listTranscripts(p.Trash)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]TrashedSession, 0, len(files))
	var errs []error
	for _, path := range files {
		fi, err := os.Stat(path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) { // restored or purged meanwhile
				errs = append(errs, fmt.Errorf("store: trash: %w", err))
			}
			continue
		}
		info, err := ReadSessionInfo(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, TrashedSession{Info: info, DeletedMs: fi.ModTime().UnixMilli()})
	}
	slices.SortFunc(out, func(a, b TrashedSession) int {
		if c := cmp.Compare(b.DeletedMs, a.DeletedMs); c != 0 {
			return c
		}
		return strings.Compare(a.Info.ID, b.Info.ID)
	})
	return out, errors.Join(errs...)
}

// ReadSessionInfo reads what a transcript says of its session (title,
// times, agent, turns) without keeping its thread: the reducer forgets
// every entry once it is done.
func ReadSessionInfo(path string) (SessionInfo, error) {
	r := newReducer(sessionIDFromPath(path), false)
	r.th.SetForgetDone()
	var st step
	if _, err := ReadTranscript(path, func(rec Record) error {
		decodeStep(rec, nil, &st)
		r.apply(&st)
		return nil
	}); err != nil {
		return SessionInfo{}, err
	}
	return r.sessionInfo(), nil
}

// PurgeFromTrash deletes a session's transcript from the trash for good.
// It fails wrapping fs.ErrNotExist when the trash has no such session.
func PurgeFromTrash(p Paths, id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) || strings.ContainsRune(id, 0) {
		return fmt.Errorf("store: bad session id %q", id)
	}
	if err := os.Remove(p.TrashPath(id)); err != nil {
		return fmt.Errorf("store: delete session %s from the trash: %w", id, err)
	}
	return nil
}
