package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// maxDenied bounds the folders collected under Options.Deny (mnote's own
// folders hold a handful).
const maxDenied = 4096

// denySet is the identity (device + inode) of every folder in or under
// Options.Deny, with the denied folder it belongs to, for messages.
type denySet map[fileID]string

// newDenySet collects the identities of the folders dirs (symbolic links
// followed) and of the folders under them (not followed). Folders that do
// not exist are skipped.
func newDenySet(dirs []string) denySet {
	d := denySet{}
	var add func(dir, top string)
	add = func(dir, top string) {
		if len(d) >= maxDenied {
			return
		}
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return
		}
		id, ok := idOf(fi)
		if !ok {
			return
		}
		if _, seen := d[id]; seen {
			return
		}
		d[id] = top
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.IsDir() { // a symbolic link is not followed here
				add(filepath.Join(dir, e.Name()), top)
			}
		}
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		add(dir, dir)
	}
	return d
}

// of names the denied folder fi is (or is under), or "".
func (d denySet) of(fi fs.FileInfo) string {
	if len(d) == 0 || fi == nil {
		return ""
	}
	id, ok := idOf(fi)
	if !ok {
		return ""
	}
	return d[id]
}

// deniedEntry reports whether the directory entry e, at rel, is one of
// the denied folders or a mount of a kernel file system, for the walks
// (tree, watcher, checkpoints) to skip it.
func (w *Workspace) deniedEntry(rel string, e fs.DirEntry) bool {
	if !e.IsDir() {
		return false
	}
	fi, err := e.Info()
	if err != nil {
		return true
	}
	if w.deny.of(fi) != "" {
		return true
	}
	if id, ok := idOf(fi); ok && id.dev != w.id.dev {
		// A mount point: what is mounted there?
		return kernelFSAt(filepath.Join(w.real, osRel(rel)), fi) != ""
	}
	return false
}

// checkAncestors refuses a workspace folder that is, or is inside, a
// denied folder or a kernel file system.
func checkAncestors(abs, real string, d denySet) error {
	for p := real; ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil {
			if top := d.of(fi); top != "" {
				return refused(abs, ErrDenied, "is mnote's own data (%s), which agents may not reach; choose a folder of notes", top)
			}
		}
		if parent := filepath.Dir(p); parent == p {
			return nil
		}
	}
}

// openDir opens the link-free folder rel one component at a time, each
// through the handle of its parent, and checks every folder opened: it
// must be the one its name showed (no link swapped in), not a denied
// folder (Options.Deny) and not on a kernel file system (/proc, /sys,
// /dev). With create, missing folders are made (0755 less the umask) as
// the walk reaches them, so nothing is created inside a denied folder. The
// result is w.root itself for "." (do not close it: use closeDir).
func (w *Workspace) openDir(p, rel string, create bool) (*os.Root, error) {
	cur := w.root
	for _, name := range splitRel(rel) {
		li, err := cur.Lstat(name)
		if create && errors.Is(err, fs.ErrNotExist) {
			if err = cur.Mkdir(name, rootPerm); err == nil || errors.Is(err, fs.ErrExist) {
				li, err = cur.Lstat(name)
			}
		}
		if err == nil && !li.IsDir() {
			if li.Mode()&fs.ModeSymlink != 0 {
				err = refused(p, ErrOutside, "changed while being opened (a folder on the way became a symbolic link); try again")
			} else {
				err = fmt.Errorf("%s: %s is not a folder: %w", p, name, fs.ErrNotExist)
			}
		}
		if err != nil {
			w.closeDir(cur)
			return nil, w.mapErr(p, err)
		}
		sub, err := cur.OpenRoot(name)
		w.closeDir(cur)
		if err != nil {
			return nil, w.mapErr(p, err)
		}
		if err := w.checkDir(p, li, sub); err != nil {
			sub.Close()
			return nil, err
		}
		cur = sub
	}
	return cur, nil
}

// closeDir closes a folder from openDir.
func (w *Workspace) closeDir(d *os.Root) {
	if d != nil && d != w.root {
		d.Close()
	}
}

// checkDir checks a folder openDir opened, whose entry in its parent
// showed want.
func (w *Workspace) checkDir(p string, want fs.FileInfo, d *os.Root) error {
	f, err := d.Open(".")
	if err != nil {
		return w.mapErr(p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return w.mapErr(p, err)
	}
	if !sameFile(want, fi) {
		return refused(p, ErrOutside, "changed while being opened (a folder on the way was replaced); try again")
	}
	if top := w.deny.of(fi); top != "" {
		return refused(p, ErrDenied, "is in mnote's own data (%s), which agents may not read or write", top)
	}
	if k := kernelFS(f, fi); k != "" {
		return refused(p, ErrOutside, "is on %s, a kernel file system, not a folder of notes", k)
	}
	return nil
}

// openParent opens the folder holding the link-free file rel (see
// openDir) and returns it with the file's name.
func (w *Workspace) openParent(p, rel string, create bool) (*os.Root, string, error) {
	d, err := w.openDir(p, path.Dir(rel), create)
	if err != nil {
		return nil, "", err
	}
	return d, path.Base(rel), nil
}

// checkPath refuses a workspace-relative path that leads into a denied
// folder or a kernel file system (for the tree operations; agents' reads
// and writes go through openDir itself).
func (w *Workspace) checkPath(p, rel string) error {
	r, err := w.resolve(p, rel)
	if err != nil {
		return err
	}
	d, err := w.openDir(p, r, false)
	if errors.Is(err, fs.ErrNotExist) {
		d, err = w.openDir(p, path.Dir(r), false)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the operation itself says what is missing
	}
	if err != nil {
		return err
	}
	w.closeDir(d)
	return nil
}
