package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"unsafe"
)

// readDir lists the folder rel (link-free, workspace-relative) through the
// root, with each entry's type as the kernel's getdents gives it.
// fs.ReadDir on an os.Root costs an lstat per entry (Go cannot load a
// root's entries lazily); a folder of ten notes then costs eleven system
// calls instead of one. Types the file system does not report
// (DT_UNKNOWN) are asked with an lstat through the root; Info always is.
// The entries are in the folder's own order, not sorted.
func readDir(root *os.Root, rel string) ([]fs.DirEntry, error) {
	f, err := root.Open(osRel(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("read folder %s: %w", rel, err)
	}
	var ents []fs.DirEntry
	var rerr error
	buf := make([]byte, 16<<10)
	cerr := rc.Control(func(fd uintptr) {
		for {
			n, err := syscall.ReadDirent(int(fd), buf)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				rerr = &fs.PathError{Op: "readdirent", Path: rel, Err: err}
				return
			}
			if n <= 0 {
				return
			}
			ents = appendDirents(ents, root, rel, buf[:n])
		}
	})
	if cerr != nil {
		return nil, fmt.Errorf("read folder %s: %w", rel, cerr)
	}
	if rerr != nil {
		return nil, rerr
	}
	return ents, nil
}

// Offsets in struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16,
// d_type u8, then the NUL-terminated name.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

func appendDirents(ents []fs.DirEntry, root *os.Root, rel string, b []byte) []fs.DirEntry {
	for len(b) >= direntName {
		reclen := int(*(*uint16)(unsafe.Pointer(&b[direntReclen])))
		if reclen < direntName || reclen > len(b) {
			break
		}
		rec := b[:reclen]
		b = b[reclen:]
		name := rec[direntName:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		nm := string(name)
		if nm == "" || nm == "." || nm == ".." {
			continue
		}
		e := &dirent{root: root, path: join(rel, nm), name: nm}
		if t, ok := direntMode(rec[direntType]); ok {
			e.typ = t
		} else if fi, err := root.Lstat(osRel(e.path)); err == nil {
			e.typ, e.info = fi.Mode().Type(), fi
		} else {
			continue // gone since
		}
		ents = append(ents, e)
	}
	return ents
}

// direntMode maps a d_type; false for DT_UNKNOWN.
func direntMode(t byte) (fs.FileMode, bool) {
	switch t {
	case syscall.DT_REG:
		return 0, true
	case syscall.DT_DIR:
		return fs.ModeDir, true
	case syscall.DT_LNK:
		return fs.ModeSymlink, true
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe, true
	case syscall.DT_SOCK:
		return fs.ModeSocket, true
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case syscall.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

// dirent is an entry of readDir: Info lstats it through the root.
type dirent struct {
	root *os.Root
	path string
	name string
	typ  fs.FileMode
	info fs.FileInfo
}

func (d *dirent) Name() string      { return d.name }
func (d *dirent) IsDir() bool       { return d.typ.IsDir() }
func (d *dirent) Type() fs.FileMode { return d.typ }
func (d *dirent) String() string    { return fs.FormatDirEntry(d) }

func (d *dirent) Info() (fs.FileInfo, error) {
	if d.info != nil {
		return d.info, nil
	}
	return d.root.Lstat(osRel(d.path))
}
