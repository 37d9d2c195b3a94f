package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
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
// messages). Special files are refused before they are opened, and the
// open itself is non-blocking so a FIFO swapped in meanwhile cannot hang
// it; the opened file must be the one that was checked.
func (w *Workspace) readRegular(p, rel string) ([]byte, fs.FileInfo, error) {
	if err := w.Check(); err != nil {
		return nil, nil, err
	}
	st, r, err := w.stat(p, rel)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRegular(p, st); err != nil {
		return nil, nil, err
	}
	if st.Size() > MaxFile {
		return nil, nil, tooLarge(p, st.Size())
	}
	f, err := w.root.OpenFile(osRel(r), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
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
	res := written{rel: r}
	mode := os.FileMode(0o644)
	fi, err := w.root.Lstat(osRel(r))
	switch {
	case err == nil:
		if err := checkRegular(p, fi); err != nil {
			return res, err
		}
		if n := nlinkOf(fi); n > 1 {
			return res, refused(p, ErrHardLink, "has %d hard links; writing it would change the other names too", n)
		}
		before, _, err := w.readRegular(p, r)
		if err != nil {
			return res, err
		}
		res.before, res.existed, mode = before, true, fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		if dir := path.Dir(r); dir != "." {
			if err := w.root.MkdirAll(osRel(dir), rootPerm); err != nil {
				return res, w.mapErr(p, err)
			}
		}
	default:
		return res, w.mapErr(p, err)
	}
	tmp := path.Join(path.Dir(r), tmpName(path.Base(r)))
	f, err := w.root.OpenFile(osRel(tmp), os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
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
		werr = w.root.Rename(osRel(tmp), osRel(r))
	}
	if werr != nil {
		_ = w.root.Remove(osRel(tmp))
		return res, fmt.Errorf("write %s: %w; nothing was changed", p, w.mapErr(p, werr))
	}
	w.syncDir(path.Dir(r))
	return res, nil
}

// syncDir makes a rename in dir durable; failures only cost durability.
func (w *Workspace) syncDir(dir string) {
	d, err := w.root.Open(osRel(dir))
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
