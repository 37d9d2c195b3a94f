package workspace

import (
	"errors"
	"fmt"
	"io/fs"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrOutside: the path leads outside the workspace (relative where an
	// absolute path is needed, "..", another absolute path, a symbolic link
	// leading out, a system folder such as /proc).
	ErrOutside = errors.New("outside the workspace")
	// ErrNotRegular: a FIFO, socket, device or other special file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrHardLink: a write to a file with more than one hard link.
	ErrHardLink = errors.New("file has several hard links")
	// ErrReplaced: the workspace folder was moved, deleted or replaced
	// since it was opened.
	ErrReplaced = errors.New("workspace folder replaced")
	// ErrTooLarge: a file or content over MaxFile.
	ErrTooLarge = errors.New("file too large")
	// ErrNotText: a file that is not UTF-8 text.
	ErrNotText = errors.New("not a UTF-8 text file")
	// ErrExists: the target of a create, rename, move or restore exists.
	ErrExists = fs.ErrExist
	// ErrNotFound: no such file or folder.
	ErrNotFound = fs.ErrNotExist
	// ErrConflict: the file changed on disk since the buffer last saw it.
	ErrConflict = errors.New("file changed on disk")
)

// RefusedError is a request refused for confinement reasons. Agent file
// systems turn it into a JSON-RPC "invalid params" error and report it to
// Hooks.OnRefused.
type RefusedError struct {
	Path   string // the path as given
	Reason string // why, as a sentence fragment ("leads outside the workspace")
	Err    error  // ErrOutside, ErrNotRegular, ErrHardLink or ErrReplaced
}

func (e *RefusedError) Error() string { return fmt.Sprintf("%q %s", e.Path, e.Reason) }

// Unwrap returns the sentinel.
func (e *RefusedError) Unwrap() error { return e.Err }

func refused(p string, sentinel error, format string, a ...any) *RefusedError {
	return &RefusedError{Path: p, Reason: fmt.Sprintf(format, a...), Err: sentinel}
}

// tooLarge and notText are the clear errors for files that are confined but
// not servable.
func tooLarge(p string, size int64) error {
	return fmt.Errorf("%s is %s, over the %s limit; open it in another editor: %w", p, humanSize(size), humanSize(MaxFile), ErrTooLarge)
}

func notText(p string) error {
	return fmt.Errorf("%s is not UTF-8 text (a binary file?); open it in another program: %w", p, ErrNotText)
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
