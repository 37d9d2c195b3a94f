package workspace

import (
	"errors"
	"fmt"
	"io/fs"
)

// Sentinel errors; test with errors.Is. ErrNotRegular, ErrTooLarge and
// ErrNotText also match fs.ErrInvalid, and every *RefusedError matches
// fs.ErrPermission, so that code knowing only the standard errors (the acp
// package answering an agent) can tell the caller's mistakes from
// failures.
var (
	// ErrOutside: the path leads outside the workspace (relative where an
	// absolute path is needed, "..", another absolute path, a symbolic link
	// leading out, a system folder such as /proc).
	ErrOutside = errors.New("outside the workspace")
	// ErrDenied: the path leads into one of mnote's own folders
	// (Options.Deny), which agents may never reach.
	ErrDenied = errors.New("mnote's own data")
	// ErrNotRegular: a FIFO, socket, device or other special file.
	ErrNotRegular error = &invalid{"not a regular file"}
	// ErrHardLink: an agent's read or a write of a file with more than
	// one hard link (its other names may be outside the workspace).
	ErrHardLink = errors.New("file has several hard links")
	// ErrReplaced: the workspace folder was moved, deleted or replaced
	// since it was opened.
	ErrReplaced = errors.New("workspace folder replaced")
	// ErrTooLarge: a file or content over MaxFile.
	ErrTooLarge error = &invalid{"file too large"}
	// ErrNotText: a file that is not UTF-8 text.
	ErrNotText error = &invalid{"not a UTF-8 text file"}
	// ErrExists: the target of a create, rename, move or restore exists.
	ErrExists = fs.ErrExist
	// ErrNotFound: no such file or folder.
	ErrNotFound = fs.ErrNotExist
	// ErrConflict: the file changed on disk since the buffer last saw it.
	ErrConflict = errors.New("file changed on disk")
)

// RefusedError is a request refused for confinement reasons; AgentFS
// reports it to Hooks.OnRefused, and its owner answers the agent with a
// JSON-RPC "invalid params" error. Test with errors.As, or errors.Is
// against its sentinel.
type RefusedError struct {
	Path   string // the path as given
	Reason string // why, as a sentence fragment ("leads outside the workspace")
	Err    error  // ErrOutside, ErrDenied, ErrNotRegular, ErrHardLink or ErrReplaced
}

func (e *RefusedError) Error() string { return fmt.Sprintf("refused: %q %s", e.Path, e.Reason) }

// Unwrap returns the sentinel.
func (e *RefusedError) Unwrap() error { return e.Err }

// Is makes every refusal match fs.ErrPermission.
func (e *RefusedError) Is(target error) bool { return target == fs.ErrPermission }

// invalid is a sentinel that also matches fs.ErrInvalid.
type invalid struct{ msg string }

func (e *invalid) Error() string { return e.msg }

func (e *invalid) Unwrap() error { return fs.ErrInvalid }

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
