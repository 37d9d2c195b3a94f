package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"unicode/utf8"
)

// ReadFile reads the regular file rel (workspace-relative) from disk,
// confined like an agent's request, at most MaxFile bytes.
func (w *Workspace) ReadFile(rel string) ([]byte, error) {
	r, err := cleanFileRel(rel)
	if err != nil {
		return nil, err
	}
	b, _, err := w.readRegular(rel, r)
	return b, err
}

// readRegular reads the regular file rel (p is the path as given, for
// messages) through the handle of its folder (openDir: no denied folder,
// no kernel file system, no link swapped in on the way).
func (w *Workspace) readRegular(p, rel string) ([]byte, fs.FileInfo, error) {
	return w.readChecked(p, rel, nil)
}

// readChecked is readRegular with check applied to the file too (nil: no
// more), before it is opened and once it is.
func (w *Workspace) readChecked(p, rel string, check func(p string, fi fs.FileInfo) error) ([]byte, fs.FileInfo, error) {
	if err := w.Check(); err != nil {
		return nil, nil, err
	}
	r, err := w.resolve(p, rel)
	if err != nil {
		return nil, nil, err
	}
	if r == "." {
		return nil, nil, fmt.Errorf("%s is the workspace folder, not a file: %w", p, ErrNotRegular)
	}
	d, base, err := w.openParent(p, r, false)
	if err != nil {
		return nil, nil, err
	}
	defer w.closeDir(d)
	return w.readIn(p, d, base, check)
}

// readIn reads the regular file name in the folder d. Special files are
// refused before they are opened, and the open itself is non-blocking so a
// FIFO swapped in meanwhile cannot hang it; the opened file must be the
// one that was checked. check (when not nil) refuses more, before the file
// is opened.
func (w *Workspace) readIn(p string, d *os.Root, name string, check func(p string, fi fs.FileInfo) error) ([]byte, fs.FileInfo, error) {
	st, err := d.Lstat(name)
	if err != nil {
		return nil, nil, w.mapErr(p, err)
	}
	if err := checkRegular(p, st); err != nil {
		return nil, nil, err
	}
	if check != nil {
		if err := check(p, st); err != nil {
			return nil, nil, err
		}
	}
	if st.Size() > MaxFile {
		return nil, nil, tooLarge(p, st.Size())
	}
	f, err := d.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, w.mapErr(p, err)
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, nil, w.mapErr(p, err)
	}
	if err := checkRegular(p, fst); err != nil {
		return nil, nil, err
	}
	if !sameFile(st, fst) {
		return nil, nil, refused(p, ErrOutside, "was replaced while being opened; try again")
	}
	if check != nil {
		if err := check(p, fst); err != nil {
			return nil, nil, err
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, nil, w.mapErr(p, err)
	}
	if len(b) > MaxFile {
		return nil, nil, tooLarge(p, int64(len(b)))
	}
	return b, fst, nil
}

// readText is readRegular for UTF-8 text.
func (w *Workspace) readText(p, rel string) ([]byte, error) {
	b, _, err := w.readRegular(p, rel)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(b) {
		return nil, notText(p)
	}
	return b, nil
}

// readAgent is readText for an agent: a file with several hard links is
// refused too.
func (w *Workspace) readAgent(p, rel string) ([]byte, error) {
	b, _, err := w.readAgentFile(p, rel)
	return b, err
}

// readAgentFile is the one rule of what an agent may read from disk,
// whoever reads for it (fs/read_text_file, the notes tools, the notes
// index): readRegular's (inside the workspace, no denied folder or kernel
// file system on the way, a regular file of at most MaxFile bytes), one
// hard link only (told before the file is opened) and UTF-8 text.
func (w *Workspace) readAgentFile(p, rel string) ([]byte, fs.FileInfo, error) {
	b, fi, err := w.readChecked(p, rel, checkLinks)
	if err != nil {
		return nil, nil, err
	}
	if !utf8.Valid(b) {
		return nil, nil, notText(p)
	}
	return b, fi, nil
}

// checkAgentPath applies to a path served from a buffer what readAgent
// applies to one read from disk: no denied folder or kernel file system on
// the way, not a file with several hard links. A file deleted since its
// buffer was opened passes.
func (w *Workspace) checkAgentPath(p, rel string) error {
	r, err := w.resolve(p, rel)
	if err != nil {
		return err
	}
	d, base, err := w.openParent(p, r, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer w.closeDir(d)
	fi, err := d.Lstat(base)
	if err != nil {
		return nil //nolint:nilerr // gone: the buffer is all there is
	}
	return checkLinks(p, fi)
}

// checkLinks refuses a file with several hard links: its other names may
// be anywhere on the device, outside the workspace or in a denied folder.
func checkLinks(p string, fi fs.FileInfo) error {
	if n := nlinkOf(fi); n > 1 {
		return refused(p, ErrHardLink, "has %d hard links; its other names may be outside the workspace, so agents may not read or write it", n)
	}
	return nil
}

// written describes a completed atomic write.
type written struct {
	rel     string // the file written, symbolic links resolved
	before  []byte
	existed bool
}

var tmpSeq atomic.Int64

// tmpMarker is in every temporary file name of ours; the watcher and the
// tree ignore such names.
const tmpMarker = ".mnote-tmp-"

func tmpName(base string) string {
	if len(base) > 180 {
		cut := 180
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return "." + base + tmpMarker + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(tmpSeq.Add(1), 10)
}

// writeFile writes data to rel atomically: a temporary file in the same
// folder, fsync, rename over the target, fsync of the folder. An existing
// file keeps its mode; a new one gets 0644 less the umask, and its missing
// parent folders are created. A symbolic link is written through (to its
// target inside the workspace), never replaced. Special files and files
// with several hard links are refused. The caller holds w.writeMu.
func (w *Workspace) writeFile(p, rel string, data []byte) (written, error) {
	if err := w.Check(); err != nil {
		return written{}, err
	}
	if len(data) > MaxFile {
		return written{}, fmt.Errorf("content for %s is %s, over the %s limit; write less: %w", p, humanSize(int64(len(data))), humanSize(MaxFile), ErrTooLarge)
	}
	r, err := w.resolve(p, rel)
	if err != nil {
		return written{}, err
	}
	if r == "." {
		return written{}, fmt.Errorf("%s is the workspace folder, not a file: %w", p, ErrNotRegular)
	}
	d, base, err := w.openParent(p, r, true)
	if err != nil {
		return written{}, err
	}
	defer w.closeDir(d)
	res := written{rel: r}
	mode := os.FileMode(0o644)
	fi, err := d.Lstat(base)
	switch {
	case err == nil:
		if err := checkRegular(p, fi); err != nil {
			return res, err
		}
		if err := checkLinks(p, fi); err != nil {
			return res, err
		}
		before, _, err := w.readIn(p, d, base, nil)
		if err != nil {
			return res, err
		}
		res.before, res.existed, mode = before, true, fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return res, w.mapErr(p, err)
	}
	tmp := tmpName(base)
	f, err := d.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return res, w.mapErr(p, err)
	}
	_, werr := f.Write(data)
	if werr == nil && res.existed {
		werr = f.Chmod(mode) // the umask may have dropped bits of the old mode
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = d.Rename(tmp, base)
	}
	if werr != nil {
		_ = d.Remove(tmp)
		return res, fmt.Errorf("write %s: %w; nothing was changed", p, w.mapErr(p, werr))
	}
	syncDir(d)
	return res, nil
}

// syncDir makes a rename in the folder dir (workspace-relative) durable.
func (w *Workspace) syncDir(dir string) {
	if d, err := w.root.OpenRoot(osRel(dir)); err == nil {
		syncDir(d)
		d.Close()
	}
}

// syncDir makes a rename in the folder d durable; failures only cost
// durability.
func syncDir(d *os.Root) {
	f, err := d.Open(".")
	if err != nil {
		return
	}
	_ = f.Sync()
	_ = f.Close()
}

// RegularFile is the absolute, link-free path of the regular file rel
// (workspace-relative), confined like a read (no "..", no absolute path,
// no link out, no denied folder, no special file): for handing the file
// to another program, which opens it by name.
func (w *Workspace) RegularFile(rel string) (string, error) {
	r, err := cleanFileRel(rel)
	if err != nil {
		return "", err
	}
	if err := w.Check(); err != nil {
		return "", err
	}
	if r, err = w.resolve(rel, r); err != nil {
		return "", err
	}
	if err := w.checkPath(rel, r); err != nil {
		return "", err
	}
	st, err := w.root.Lstat(osRel(r))
	if err != nil {
		return "", w.mapErr(rel, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file: %w", rel, ErrNotRegular)
	}
	return filepath.Join(w.dir, filepath.FromSlash(r)), nil
}
