package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// ErrExists is returned when a move would replace a transcript.
var ErrExists = fs.ErrExist

// MoveToTrash moves a session's transcript from Transcripts to Trash. It
// refuses if the trash already has that session, and with ErrSessionBusy
// while a Writer holds the transcript. The caller then calls Index.Remove
// (or Index.ReindexFile on the trash path to list it as deleted).
func MoveToTrash(p Paths, id string) error {
	if err := mkdirPrivate(p.Trash); err != nil {
		return err
	}
	return moveTranscript(id, p.TranscriptPath(id), p.TrashPath(id))
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
