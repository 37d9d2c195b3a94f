package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// maxLinks bounds symbolic link hops when resolving a path by hand, like
// the kernel's limit.
const maxLinks = 40

// relFromAbs turns an agent's absolute path into a workspace-relative,
// slash-separated one ("." for the folder itself), or refuses it.
func (w *Workspace) relFromAbs(p string) (string, error) {
	switch {
	case p == "":
		return "", refused(p, ErrOutside, "is empty; give an absolute path inside the workspace %s", w.dir)
	case strings.IndexByte(p, 0) >= 0:
		return "", refused(p, ErrOutside, "contains a NUL byte")
	case !filepath.IsAbs(p):
		return "", refused(p, ErrOutside, "is relative; fs requests need an absolute path inside the workspace %s", w.dir)
	case hasDotDot(filepath.ToSlash(p)):
		return "", refused(p, ErrOutside, `contains ".."; give the path without it`)
	}
	c := filepath.Clean(p)
	for _, base := range []string{w.dir, w.real} {
		if c == base {
			return ".", nil
		}
		prefix := strings.TrimSuffix(base, string(filepath.Separator)) + string(filepath.Separator)
		if strings.HasPrefix(c, prefix) {
			return filepath.ToSlash(c[len(prefix):]), nil
		}
	}
	return "", refused(p, ErrOutside, "is outside the workspace %s", w.dir)
}

// cleanRel checks a workspace-relative, slash-separated path from the UI
// and cleans it; "" and "." name the workspace folder itself.
func cleanRel(p string) (string, error) {
	switch {
	case strings.IndexByte(p, 0) >= 0:
		return "", refused(p, ErrOutside, "contains a NUL byte")
	case p == "" || p == ".":
		return ".", nil
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return "", refused(p, ErrOutside, "is absolute; give a path relative to the workspace")
	case hasDotDot(p):
		return "", refused(p, ErrOutside, `contains ".."; give the path without it`)
	}
	return path.Clean(p), nil
}

// cleanFileRel is cleanRel for paths that must name something inside the
// folder, not the folder itself.
func cleanFileRel(p string) (string, error) {
	rel, err := cleanRel(p)
	if err == nil && rel == "." {
		err = refused(p, ErrOutside, "names the workspace folder itself; give a file or folder inside it")
	}
	return rel, err
}

func hasDotDot(p string) bool {
	for _, e := range strings.Split(p, "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

// osRel is a slash-separated relative path in the OS's form.
func osRel(rel string) string { return filepath.FromSlash(rel) }

// errEscapes is os.Root's (unexported) error for a path leading out of
// the root, learnt from the first root opened (learnEscape).
var (
	errEscapes     error
	errEscapesOnce sync.Once
)

// learnEscape has root refuse an absolute path, which os.Root does before
// any system call, and keeps the error it wraps.
func learnEscape(root *os.Root) {
	errEscapesOnce.Do(func() {
		_, err := root.Lstat(string(filepath.Separator))
		var pe *fs.PathError
		if errors.As(err, &pe) {
			errEscapes = pe.Err
		}
	})
}

// isEscape reports os.Root's refusal of a path leading out of the root (an
// absolute symbolic link, or one climbing above the root).
func isEscape(err error) bool {
	return err != nil && errEscapes != nil && errors.Is(err, errEscapes)
}

// stat follows rel to a file (symbolic links included), resolving absolute
// links that point back inside the workspace, which os.Root alone refuses.
// It returns the file's information and a link-free path to it.
func (w *Workspace) stat(p, rel string) (fs.FileInfo, string, error) {
	st, err := w.root.Stat(osRel(rel))
	if err == nil {
		return st, rel, nil
	}
	if !isEscape(err) {
		return nil, rel, w.mapErr(p, err)
	}
	r, err := w.resolve(p, rel)
	if err != nil {
		return nil, rel, err
	}
	st, err = w.root.Stat(osRel(r))
	if err != nil {
		return nil, r, w.mapErr(p, err)
	}
	return st, r, nil
}

// resolve follows the symbolic links in rel by hand, the way the kernel
// would, and returns an equivalent path without links (its trailing part
// may not exist yet). Absolute links are allowed when they point inside the
// workspace. This check is advisory: the caller then uses the result
// through os.Root, which refuses any link swapped in meanwhile that leads
// out, so there is no window for an escape.
func (w *Workspace) resolve(p, rel string) (string, error) {
	var done []string
	parts := splitRel(rel)
	hops := 0
	for len(parts) > 0 {
		name := parts[0]
		parts = parts[1:]
		if name == ".." {
			if len(done) == 0 {
				return "", refused(p, ErrOutside, "leads outside the workspace through a symbolic link")
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(append(append([]string{}, done...), name)...)
		fi, err := w.root.Lstat(osRel(cur))
		if errors.Is(err, fs.ErrNotExist) {
			return path.Join(append([]string{cur}, parts...)...), nil
		}
		if err != nil {
			return "", w.mapErr(p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, name)
			continue
		}
		if hops++; hops > maxLinks {
			return "", refused(p, ErrOutside, "goes through too many symbolic links")
		}
		target, err := w.root.Readlink(osRel(cur))
		if err != nil {
			return "", w.mapErr(p, err)
		}
		if filepath.IsAbs(target) {
			r, err := w.relFromAbs(target)
			if err != nil || hasDotDot(filepath.ToSlash(target)) {
				return "", refused(p, ErrOutside, "is a symbolic link (%s → %s) leading outside the workspace", cur, target)
			}
			done = nil
			parts = append(splitRel(r), parts...)
			continue
		}
		parts = append(splitRel(filepath.ToSlash(target)), parts...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return path.Join(done...), nil
}

func splitRel(rel string) []string {
	var out []string
	for _, e := range strings.Split(rel, "/") {
		if e != "" && e != "." {
			out = append(out, e)
		}
	}
	return out
}

// mapErr turns an os error on path p into a refusal or a clear error.
func (w *Workspace) mapErr(p string, err error) error {
	if err == nil {
		return nil
	}
	var re *RefusedError
	switch {
	case errors.As(err, &re):
		return err
	case isEscape(err):
		return refused(p, ErrOutside, "leads outside the workspace (through a symbolic link)")
	case errors.Is(err, syscall.ELOOP):
		return refused(p, ErrOutside, "goes through too many symbolic links")
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		if cerr := w.Check(); cerr != nil {
			return cerr
		}
		return fmt.Errorf("%s: no such file or folder: %w", p, fs.ErrNotExist)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied; check the file's permissions: %w", p, err)
	default:
		return fmt.Errorf("%s: %w", p, err)
	}
}

// kindOf describes a non-regular file for a refusal message.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	default:
		return "a special file"
	}
}

// checkRegular refuses anything but a regular file (a folder gets a plain
// error: it is inside the workspace, just not a file).
func checkRegular(p string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	if m.IsDir() {
		return fmt.Errorf("%s is a folder, not a file: %w", p, ErrNotRegular)
	}
	return refused(p, ErrNotRegular, "is %s, not a regular file", kindOf(m))
}

// sameFile reports whether two infos name one file (true where the
// platform cannot tell).
func sameFile(a, b fs.FileInfo) bool {
	ia, oka := idOf(a)
	ib, okb := idOf(b)
	if !oka || !okb {
		return true
	}
	return ia == ib
}

// rootPerm is the mode new folders get (before the umask).
const rootPerm os.FileMode = 0o755
