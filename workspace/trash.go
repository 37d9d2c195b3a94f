package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Trashed is a deleted file or folder, kept so Restore can undo the
// delete. It round-trips through JSON.
type Trashed struct {
	// Path is the workspace-relative path it had.
	Path string `json:"path"`
	Dir  bool   `json:"dir,omitempty"`
	// Trash is the trash folder holding it; Name its name in Trash/files.
	Trash string `json:"trash"`
	Name  string `json:"name"`
	// Local: in the workspace's own .mnote-trash folder, used when the
	// user's trash is on another device (a move there would be a copy).
	Local     bool      `json:"local,omitempty"`
	DeletedAt time.Time `json:"deletedAt"`
}

// errOtherDevice: the user's trash is not on the workspace's device.
var errOtherDevice = errors.New("trash on another device")

// trashDir is the user's freedesktop trash ("home trash").
func (w *Workspace) trashDir() string {
	if w.opts.TrashDir != "" {
		return filepath.Clean(w.opts.TrashDir)
	}
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" || !filepath.IsAbs(data) {
		home, _ := os.UserHomeDir()
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "Trash")
}

// Delete moves rel (a file or a folder with its contents) to the user's
// trash following the freedesktop.org trash specification (Trash/files
// and Trash/info/*.trashinfo), or to the workspace's .mnote-trash folder
// when that trash is on another device. Restore undoes it.
func (w *Workspace) Delete(rel string) (Trashed, error) {
	r, err := cleanFileRel(rel)
	if err != nil {
		return Trashed{}, err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.Check(); err != nil {
		return Trashed{}, err
	}
	if err := w.checkPath(r, r); err != nil {
		return Trashed{}, err
	}
	fi, err := w.root.Lstat(osRel(r))
	if err != nil {
		return Trashed{}, w.mapErr(r, err)
	}
	t := Trashed{Path: r, Dir: fi.IsDir(), DeletedAt: time.Now()}
	err = w.trashHome(r, &t)
	if errors.Is(err, errOtherDevice) {
		err = w.trashLocal(r, &t)
	}
	if err != nil {
		return Trashed{}, err
	}
	w.afterOp(w.buffers.removed(r), r)
	return t, nil
}

func trashInfo(p string, at time.Time) []byte {
	return []byte("[Trash Info]\nPath=" + (&url.URL{Path: p}).EscapedPath() + "\nDeletionDate=" + at.Format("2006-01-02T15:04:05") + "\n")
}

// trashName is the n-th candidate name in the trash for base.
func trashName(base string, n int) string {
	if n == 1 {
		return base
	}
	ext := path.Ext(base)
	if ext == base {
		ext = ""
	}
	return strings.TrimSuffix(base, ext) + "." + strconv.Itoa(n) + ext
}

// reserve picks a free name in a trash by creating its .trashinfo file
// exclusively (the specification's way to avoid races).
func reserve(base string, info []byte, create func(name string) (*os.File, error), taken func(name string) bool, remove func(name string)) (string, error) {
	for n := 1; n < 10000; n++ {
		name := trashName(base, n)
		f, err := create(name + ".trashinfo")
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("trash: %w", err)
		}
		_, werr := f.Write(info)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil && !taken(name) {
			return name, nil
		}
		remove(name + ".trashinfo")
		if werr != nil {
			return "", fmt.Errorf("trash: %w", werr)
		}
	}
	return "", fmt.Errorf("trash: no free name for %s; empty the trash", base)
}

func (w *Workspace) trashHome(rel string, t *Trashed) error {
	home := w.trashDir()
	files, info := filepath.Join(home, "files"), filepath.Join(home, "info")
	for _, d := range []string{files, info} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("%w: %v", errOtherDevice, err)
		}
	}
	st, err := os.Stat(files)
	if err != nil {
		return fmt.Errorf("%w: %v", errOtherDevice, err)
	}
	if id, ok := idOf(st); ok && id.dev != w.id.dev {
		return errOtherDevice
	}
	name, err := reserve(path.Base(rel), trashInfo(w.Abs(rel), t.DeletedAt),
		func(n string) (*os.File, error) {
			return os.OpenFile(filepath.Join(info, n), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		},
		func(n string) bool { _, err := os.Lstat(filepath.Join(files, n)); return err == nil },
		func(n string) { _ = os.Remove(filepath.Join(info, n)) })
	if err != nil {
		return err
	}
	if err := w.renameOut(rel, files, name); err != nil {
		_ = os.Remove(filepath.Join(info, name+".trashinfo"))
		return err
	}
	t.Trash, t.Name = home, name
	return nil
}

// renameOut moves rel to dir/name outside the root, through a handle on
// rel's folder opened beneath the root, so a link swapped into rel's path
// cannot redirect the move.
func (w *Workspace) renameOut(rel, dir, name string) error {
	parent, err := w.root.Open(osRel(path.Dir(rel)))
	if err != nil {
		return w.mapErr(rel, err)
	}
	defer parent.Close()
	dst, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("trash: %w", err)
	}
	defer dst.Close()
	if err := renameBetween(parent, w.Abs(path.Dir(rel)), path.Base(rel), dst, dir, name); err != nil {
		if isCrossDevice(err) {
			return errOtherDevice
		}
		return fmt.Errorf("move %s to the trash: %w", rel, err)
	}
	return nil
}

func (w *Workspace) trashLocal(rel string, t *Trashed) error {
	files, info := localTrash+"/files", localTrash+"/info"
	for _, d := range []string{files, info} {
		if err := w.root.MkdirAll(osRel(d), 0o700); err != nil {
			return w.mapErr(d, err)
		}
	}
	name, err := reserve(path.Base(rel), trashInfo(rel, t.DeletedAt),
		func(n string) (*os.File, error) {
			return w.root.OpenFile(osRel(info+"/"+n), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		},
		func(n string) bool { _, err := w.root.Lstat(osRel(files + "/" + n)); return err == nil },
		func(n string) { _ = w.root.Remove(osRel(info + "/" + n)) })
	if err != nil {
		return err
	}
	if err := w.root.Rename(osRel(rel), osRel(files+"/"+name)); err != nil {
		_ = w.root.Remove(osRel(info + "/" + name + ".trashinfo"))
		return fmt.Errorf("move %s to %s: %w", rel, localTrash, w.mapErr(rel, err))
	}
	t.Trash, t.Name, t.Local = w.Abs(localTrash), name, true
	return nil
}

// Restore puts a deleted file or folder back where it was (re-creating
// its parent folders). It refuses, with an error wrapping ErrExists, when
// something else is there now.
func (w *Workspace) Restore(t Trashed) error {
	r, err := cleanFileRel(t.Path)
	if err != nil {
		return err
	}
	if t.Name == "" || t.Name == "." || t.Name == ".." || strings.ContainsAny(t.Name, `/\`) {
		return fmt.Errorf("restore %s: bad trash name %q", r, t.Name)
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	if err := w.Check(); err != nil {
		return err
	}
	if err := w.checkPath(r, r); err != nil {
		return err
	}
	exists := func() error {
		return fmt.Errorf("cannot restore %s: something else is there now; rename or move it first: %w", r, ErrExists)
	}
	if _, err := w.root.Lstat(osRel(r)); err == nil {
		return exists()
	}
	if err := w.mkParent(r); err != nil {
		return err
	}
	if t.Local {
		from := localTrash + "/files/" + t.Name
		if err := w.moveNoReplace(from, r); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return exists() // it appeared since we looked
			}
			return fmt.Errorf("restore %s: %w", r, w.mapErr(from, err))
		}
		_ = w.root.Remove(osRel(localTrash + "/info/" + t.Name + ".trashinfo"))
	} else {
		home := w.trashDir()
		if filepath.Clean(t.Trash) != home {
			return fmt.Errorf("restore %s: %s is not the trash mnote uses (%s); restore it from your file manager", r, t.Trash, home)
		}
		if err := w.renameIn(filepath.Join(home, "files"), t.Name, r); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return exists()
			}
			return err
		}
		_ = os.Remove(filepath.Join(home, "info", t.Name+".trashinfo"))
	}
	w.syncDir(path.Dir(r))
	w.afterOp(w.buffers.recheck(r), r)
	return nil
}

// renameIn moves dir/name to rel beneath the root, never replacing what
// is at rel.
func (w *Workspace) renameIn(dir, name, rel string) error {
	src, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("restore %s: %w", rel, err)
	}
	defer src.Close()
	parent, err := w.root.Open(osRel(path.Dir(rel)))
	if err != nil {
		return w.mapErr(rel, err)
	}
	defer parent.Close()
	if err := renameNoReplace(src, dir, name, parent, w.Abs(path.Dir(rel)), path.Base(rel)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restore %s: it is no longer in the trash (emptied?): %w", rel, fs.ErrNotExist)
		}
		return fmt.Errorf("restore %s: %w", rel, err)
	}
	return nil
}

// moveNoReplace renames from to to, both beneath the root (to's folder
// exists), never replacing what is at to: the error then wraps
// fs.ErrExist, even if it appeared after the caller looked.
func (w *Workspace) moveNoReplace(from, to string) error {
	src, err := w.root.Open(osRel(path.Dir(from)))
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := w.root.Open(osRel(path.Dir(to)))
	if err != nil {
		return err
	}
	defer dst.Close()
	return renameNoReplace(src, w.Abs(path.Dir(from)), path.Base(from), dst, w.Abs(path.Dir(to)), path.Base(to))
}
