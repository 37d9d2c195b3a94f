package registry

import (
	"archive/tar"
	"archive/zip"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/ulikunitz/xz"
)

// Limits bound what an archive may unpack to.
type Limits struct {
	Download int64 // the archive's size (default 1 GiB)
	Total    int64 // all files unpacked (default 2 GiB)
	Files    int   // number of entries (default 100 000)
	// Ratio bounds the unpacked size against the archive's (default
	// 200): more is an archive bomb.
	Ratio int64
}

func (l Limits) withDefaults() Limits {
	if l.Download <= 0 {
		l.Download = 1 << 30
	}
	if l.Total <= 0 {
		l.Total = 2 << 30
	}
	if l.Files <= 0 {
		l.Files = 100_000
	}
	if l.Ratio <= 0 {
		l.Ratio = 200
	}
	return l
}

// ErrUnsafeArchive reports an archive entry that would escape its
// folder, or a kind of file an agent never needs.
var ErrUnsafeArchive = errors.New("unsafe archive")

// ErrTooLarge reports an archive that unpacks to more than Limits allow.
var ErrTooLarge = errors.New("the archive unpacks to more than allowed")

// archiveKind is how the file at an archive URL is unpacked: "zip",
// "tar", "tar.gz", "tar.bz2", "tar.xz", or "" for a bare executable.
func archiveKind(u string) string {
	p := u
	if pu, err := url.Parse(u); err == nil {
		p = pu.Path
	}
	p = strings.ToLower(p)
	for _, k := range []struct{ suffix, kind string }{
		{".zip", "zip"}, {".tar.gz", "tar.gz"}, {".tgz", "tar.gz"}, {".tar.bz2", "tar.bz2"},
		{".tbz2", "tar.bz2"}, {".tar.xz", "tar.xz"}, {".txz", "tar.xz"}, {".tar", "tar"},
	} {
		if strings.HasSuffix(p, k.suffix) {
			return k.kind
		}
	}
	return ""
}

// unpacker writes an archive's entries beneath root, counting what it
// writes against the limits.
type unpacker struct {
	root     *os.Root
	lim      Limits
	maxTotal int64 // min(lim.Total, archive size × lim.Ratio)
	total    int64
	files    int
}

func newUnpacker(root *os.Root, lim Limits, archiveSize int64) *unpacker {
	lim = lim.withDefaults()
	maxTotal := lim.Total
	if r := max(archiveSize, 1) * lim.Ratio; r < maxTotal {
		maxTotal = r
	}
	return &unpacker{root: root, lim: lim, maxTotal: maxTotal}
}

// name checks an entry's name and returns it cleaned, or "" for the
// archive's top folder itself.
func (u *unpacker) name(raw string) (string, error) {
	if u.files++; u.files > u.lim.Files {
		return "", fmt.Errorf("%w: more than %d entries", ErrTooLarge, u.lim.Files)
	}
	n := strings.TrimPrefix(raw, "./")
	n = strings.TrimSuffix(n, "/")
	if n == "" || n == "." {
		return "", nil
	}
	c, err := localPath(n)
	if err != nil || c != n && c+"/" != n {
		return "", fmt.Errorf("%w: entry %q is outside the folder", ErrUnsafeArchive, clip(raw))
	}
	return c, nil
}

func (u *unpacker) mkdir(name string) error {
	if err := u.root.MkdirAll(name, 0o755); err != nil {
		return fmt.Errorf("unpack %s: %w", name, err)
	}
	return nil
}

// file writes one regular file from r, with the mode's permission bits
// (at most 0755, at least 0600).
func (u *unpacker) file(name string, mode fs.FileMode, r io.Reader) error {
	if d := path.Dir(name); d != "." {
		if err := u.mkdir(d); err != nil {
			return err
		}
	}
	perm := mode.Perm()&0o755 | 0o600
	f, err := u.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("unpack %s: %w", name, err)
	}
	left := u.maxTotal - u.total
	n, err := io.Copy(f, io.LimitReader(r, left+1))
	u.total += n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unpack %s: %w", name, err)
	}
	if n > left {
		return fmt.Errorf("%w (more than %d bytes)", ErrTooLarge, u.maxTotal)
	}
	return nil
}

// symlink makes a link whose target stays inside the folder.
func (u *unpacker) symlink(name, target string) error {
	if target == "" || path.IsAbs(target) || strings.Contains(target, `\`) {
		return fmt.Errorf("%w: link %q points to %q, outside the folder", ErrUnsafeArchive, name, clip(target))
	}
	if _, err := localPath(path.Join(path.Dir(name), target)); err != nil {
		return fmt.Errorf("%w: link %q points to %q, outside the folder", ErrUnsafeArchive, name, clip(target))
	}
	if d := path.Dir(name); d != "." {
		if err := u.mkdir(d); err != nil {
			return err
		}
	}
	if err := u.root.Symlink(target, name); err != nil {
		return fmt.Errorf("unpack %s: %w", name, err)
	}
	return nil
}

// untar unpacks a tar stream.
func (u *unpacker) untar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the archive: %w", err)
		}
		name, err := u.name(h.Name)
		if err != nil {
			return err
		}
		if name == "" {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = u.mkdir(name)
		case tar.TypeReg, tar.TypeRegA: //nolint:staticcheck // old archives
			err = u.file(name, fs.FileMode(h.Mode), tr)
		case tar.TypeSymlink:
			err = u.symlink(name, h.Linkname)
		case tar.TypeLink:
			old, lerr := localPath(strings.TrimPrefix(h.Linkname, "./"))
			if lerr != nil {
				return fmt.Errorf("%w: hard link %q points outside the folder", ErrUnsafeArchive, name)
			}
			if err = u.root.Link(old, name); err != nil {
				err = fmt.Errorf("unpack %s: %w", name, err)
			}
		case tar.TypeXGlobalHeader:
		default:
			return fmt.Errorf("%w: entry %q is a device, FIFO or other special file", ErrUnsafeArchive, name)
		}
		if err != nil {
			return err
		}
	}
}

// unzip unpacks a zip file.
func (u *unpacker) unzip(f *os.File, size int64) error {
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return fmt.Errorf("read the archive: %w", err)
	}
	for _, zf := range zr.File {
		name, err := u.name(zf.Name)
		if err != nil {
			return err
		}
		if name == "" {
			continue
		}
		mode := zf.Mode()
		switch {
		case mode.IsDir():
			err = u.mkdir(name)
		case mode&fs.ModeSymlink != 0:
			var target []byte
			target, err = readEntry(zf, 4096)
			if err == nil {
				err = u.symlink(name, string(target))
			}
		case mode.IsRegular():
			var rc io.ReadCloser
			if rc, err = zf.Open(); err == nil {
				err = u.file(name, mode, rc)
				rc.Close()
			}
		default:
			err = fmt.Errorf("%w: entry %q is a device, FIFO or other special file", ErrUnsafeArchive, name)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func readEntry(zf *zip.File, limit int64) ([]byte, error) {
	rc, err := zf.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", zf.Name, err)
	}
	return b, nil
}

// unpack unpacks the archive file f (of the given kind) beneath root.
// A bare executable (kind "") is copied to cmd.
func unpack(root *os.Root, f *os.File, kind, cmd string, lim Limits) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	u := newUnpacker(root, lim, st.Size())
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	switch kind {
	case "zip":
		return u.unzip(f, st.Size())
	case "tar":
		return u.untar(f)
	case "tar.gz":
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("read the archive: %w", err)
		}
		return u.untar(zr)
	case "tar.bz2":
		return u.untar(bzip2.NewReader(f))
	case "tar.xz":
		xr, err := xz.NewReader(f)
		if err != nil {
			return fmt.Errorf("read the archive: %w", err)
		}
		return u.untar(xr)
	case "":
		u.maxTotal = u.lim.Total
		return u.file(cmd, 0o755, f)
	}
	return fmt.Errorf("archives of kind %q are not supported", kind)
}
