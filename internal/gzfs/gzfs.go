// Package gzfs serves a tree of gzip-compressed files under their plain
// names. The UI is embedded compressed (scripts/frontend.sh gzips
// frontend/dist after the build: 1.6 MB of JavaScript and CSS become about
// 0.5 MB in the binary); `mnote serve` and the window read it through this
// FS as if it were not.
package gzfs

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"
)

// Ext is the compressed files' extension.
const Ext = ".gz"

// maxSize bounds a decompressed file (the UI's largest is under 1 MB).
const maxSize = 64 << 20

// FS is base with every NAME.gz opened as NAME, decompressed. A name that
// exists uncompressed in base is served as it is.
type FS struct{ base fs.FS }

// New wraps base.
func New(base fs.FS) FS { return FS{base: base} }

// Open implements fs.FS.
func (f FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if file, err := f.base.Open(name); err == nil || !errors.Is(err, fs.ErrNotExist) || strings.HasSuffix(name, Ext) {
		return file, err
	}
	zf, err := f.base.Open(name + Ext)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	defer zf.Close()
	st, err := zf.Stat()
	if err != nil {
		return nil, fmt.Errorf("gzfs: %s: %w", name, err)
	}
	zr, err := gzip.NewReader(zf)
	if err != nil {
		return nil, fmt.Errorf("gzfs: %s%s is not gzip: %w", name, Ext, err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, maxSize+1))
	if err == nil {
		err = zr.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("gzfs: %s%s: %w", name, Ext, err)
	}
	if len(b) > maxSize {
		return nil, fmt.Errorf("gzfs: %s is larger than %d bytes decompressed", name, maxSize)
	}
	return &file{Reader: bytes.NewReader(b), info: info{name: path.Base(name), size: int64(len(b)), mod: st.ModTime()}}, nil
}

// file is a decompressed file: seekable, as http.ServeContent needs.
type file struct {
	*bytes.Reader
	info info
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }

type info struct {
	name string
	size int64
	mod  time.Time
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) Mode() fs.FileMode  { return 0o444 }
func (i info) ModTime() time.Time { return i.mod }
func (i info) IsDir() bool        { return false }
func (i info) Sys() any           { return nil }
