package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// MaxTextFile is the largest file served to or written by an agent.
const MaxTextFile = 10 << 20

// RootFS serves fs/* requests confined to one folder. It opens files through
// os.Root, so a path cannot leave the folder through "..", an absolute
// symlink or a symlink swapped in between a check and the open.
type RootFS struct {
	dir  string
	root *os.Root
	// OnWrite, when set, is told about every completed write.
	OnWrite func(path string, before, after []byte, existed bool)
}

// NewRootFS confines file access to dir.
func NewRootFS(dir string) (*RootFS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace folder %s: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace folder: %w", err)
	}
	return &RootFS{dir: abs, root: root}, nil
}

// Close releases the folder.
func (r *RootFS) Close() error { return r.root.Close() }

func refuse(format string, a ...any) *RPCError {
	return &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf(format, a...)}
}

// rel turns an agent's absolute path into one relative to the root.
func (r *RootFS) rel(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", refuse("path must be absolute: %q", p)
	}
	rel, err := filepath.Rel(r.dir, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", refuse("path is outside the workspace %s: %q", r.dir, p)
	}
	return rel, nil
}

func mapFSError(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &RPCError{Code: CodeNotFound, Message: "file not found: " + p}
	case strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes"):
		return refuse("path leads outside the workspace: %q", p)
	default:
		return fmt.Errorf("%s: %w", p, err)
	}
}

// ReadTextFile reads a UTF-8 text file, optionally from a 1-based line and
// for a number of lines.
func (r *RootFS) ReadTextFile(_ context.Context, p string, line, limit *int) (string, error) {
	rel, err := r.rel(p)
	if err != nil {
		return "", err
	}
	f, err := r.root.Open(rel)
	if err != nil {
		return "", mapFSError(p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", mapFSError(p, err)
	}
	if !st.Mode().IsRegular() {
		return "", refuse("not a regular file: %q", p)
	}
	if st.Size() > MaxTextFile {
		return "", refuse("file is %d bytes, over the %d-byte limit: %q", st.Size(), MaxTextFile, p)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxTextFile+1))
	if err != nil {
		return "", mapFSError(p, err)
	}
	if !utf8.Valid(b) {
		return "", refuse("not a UTF-8 text file: %q", p)
	}
	return sliceLines(string(b), line, limit), nil
}

func sliceLines(s string, line, limit *int) string {
	if line == nil && limit == nil {
		return s
	}
	start := 0
	if line != nil && *line > 1 {
		for i := 1; i < *line; i++ {
			j := strings.IndexByte(s[start:], '\n')
			if j < 0 {
				return ""
			}
			start += j + 1
		}
	}
	end := len(s)
	if limit != nil && *limit >= 0 {
		pos := start
		for i := 0; i < *limit; i++ {
			j := strings.IndexByte(s[pos:], '\n')
			if j < 0 {
				pos = len(s)
				break
			}
			pos += j + 1
		}
		end = pos
	}
	return s[start:end]
}

var tmpSeq atomic.Int64

// WriteTextFile writes a file atomically (temp file + rename), keeping the
// mode of an existing file.
func (r *RootFS) WriteTextFile(_ context.Context, p, content string) error {
	rel, err := r.rel(p)
	if err != nil {
		return err
	}
	if len(content) > MaxTextFile {
		return refuse("content is %d bytes, over the %d-byte limit", len(content), MaxTextFile)
	}
	mode := os.FileMode(0o644)
	var before []byte
	existed := false
	if st, err := r.root.Lstat(rel); err == nil {
		if !st.Mode().IsRegular() {
			return refuse("not a regular file: %q", p)
		}
		mode = st.Mode().Perm()
		existed = true
		if r.OnWrite != nil {
			before, _ = r.root.ReadFile(rel)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return mapFSError(p, err)
	}
	dir := filepath.Dir(rel)
	tmp := filepath.Join(dir, "."+filepath.Base(rel)+".mnote-tmp-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(tmpSeq.Add(1), 10))
	f, err := r.root.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return mapFSError(p, err)
	}
	_, werr := f.WriteString(content)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = r.root.Chmod(tmp, mode)
	}
	if werr == nil {
		werr = r.root.Rename(tmp, rel)
	}
	if werr != nil {
		_ = r.root.Remove(tmp)
		return mapFSError(p, werr)
	}
	if r.OnWrite != nil {
		r.OnWrite(p, before, []byte(content), existed)
	}
	return nil
}
