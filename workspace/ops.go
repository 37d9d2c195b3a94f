package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Tree operations for the UI. Paths are workspace-relative and
// slash-separated, confined like agents' requests; targets that exist are
// refused with an error wrapping ErrExists. Each operation updates open
// buffers at once and counts as the user's own change for checkpoints.

// CreateFile creates the file rel with content (parent folders as
// needed). An existing file is never overwritten.
func (w *Workspace) CreateFile(rel string, content []byte) error {
	r, err := cleanFileRel(rel)
	if err != nil {
		return err
	}
	if len(content) > MaxFile {
		return fmt.Errorf("content for %s is %s, over the %s limit: %w", r, humanSize(int64(len(content))), humanSize(MaxFile), ErrTooLarge)
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.Check(); err != nil {
		return err
	}
	if err := w.checkPath(r, r); err != nil {
		return err
	}
	if err := w.mkParent(r); err != nil {
		return err
	}
	f, err := w.root.OpenFile(osRel(r), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return w.existsErr(r, err)
	}
	_, werr := f.Write(content)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = w.root.Remove(osRel(r))
		return fmt.Errorf("create %s: %w; nothing was created", r, werr)
	}
	w.syncDir(path.Dir(r))
	w.afterOp(nil, r)
	return nil
}

// CreateFolder creates the folder rel (parent folders as needed).
func (w *Workspace) CreateFolder(rel string) error {
	r, err := cleanFileRel(rel)
	if err != nil {
		return err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.Check(); err != nil {
		return err
	}
	if err := w.checkPath(r, r); err != nil {
		return err
	}
	if err := w.mkParent(r); err != nil {
		return err
	}
	if err := w.root.Mkdir(osRel(r), rootPerm); err != nil {
		return w.existsErr(r, err)
	}
	w.afterOp(nil, r)
	return nil
}

// Rename renames or moves from to to (a full path; its folder is created
// if missing). A folder cannot move inside itself.
func (w *Workspace) Rename(from, to string) error {
	f, err := cleanFileRel(from)
	if err != nil {
		return err
	}
	t, err := cleanFileRel(to)
	if err != nil {
		return err
	}
	if f == t {
		return nil
	}
	if strings.HasPrefix(t, f+"/") {
		return fmt.Errorf("cannot move %s inside itself (to %s); choose another folder", f, t)
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.Check(); err != nil {
		return err
	}
	if err := w.checkPath(f, f); err != nil {
		return err
	}
	if err := w.checkPath(t, t); err != nil {
		return err
	}
	src, err := w.root.Lstat(osRel(f))
	if err != nil {
		return w.mapErr(f, err)
	}
	// The target may be the source itself (a case-only rename on a
	// case-insensitive file system); anything else there is refused, also
	// when it appears after this look (moveNoReplace).
	self := false
	if dst, err := w.root.Lstat(osRel(t)); err == nil {
		a, oka := idOf(src)
		b, okb := idOf(dst)
		if !oka || !okb || a != b {
			return w.existsErr(t, fs.ErrExist)
		}
		self = true
	}
	if err := w.mkParent(t); err != nil {
		return err
	}
	if self {
		err = w.root.Rename(osRel(f), osRel(t))
	} else {
		err = w.moveNoReplace(f, t)
	}
	if errors.Is(err, fs.ErrExist) {
		return w.existsErr(t, err)
	}
	if err != nil {
		return fmt.Errorf("rename %s to %s: %w", f, t, w.mapErr(f, err))
	}
	w.syncDir(path.Dir(t))
	w.afterOp(w.buffers.moved(f, t), f, t)
	return nil
}

// Move moves rel into the folder dir ("" = the workspace folder), keeping
// its name.
func (w *Workspace) Move(rel, dir string) (string, error) {
	r, err := cleanFileRel(rel)
	if err != nil {
		return "", err
	}
	d, err := cleanRel(dir)
	if err != nil {
		return "", err
	}
	to := join(d, path.Base(r))
	return to, w.Rename(r, to)
}

// mkParent creates the folders above rel.
func (w *Workspace) mkParent(rel string) error {
	dir := path.Dir(rel)
	if dir == "." {
		return nil
	}
	if err := w.root.MkdirAll(osRel(dir), rootPerm); err != nil {
		return w.mapErr(dir, err)
	}
	return nil
}

// existsErr explains a failed create.
func (w *Workspace) existsErr(rel string, err error) error {
	if errors.Is(err, fs.ErrExist) {
		what := "a file"
		if st, serr := w.root.Lstat(osRel(rel)); serr == nil && st.IsDir() {
			what = "a folder"
		}
		return fmt.Errorf("%s already exists (%s); choose another name: %w", rel, what, ErrExists)
	}
	return w.mapErr(rel, err)
}

// afterOp tells buffers' subscribers, the watcher's origin log and the
// checkpoints about a tree operation on paths. The caller holds writeMu.
func (w *Workspace) afterOp(events []BufferEvent, paths ...string) {
	w.origins.note(OriginApp, paths...)
	if w.cps != nil {
		w.cps.userChanged(paths...)
	}
	w.events.emit(Event{Buffers: events})
}
