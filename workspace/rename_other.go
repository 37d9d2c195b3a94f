//go:build !linux

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// renameBetween renames srcPath/srcName to dstPath/dstName. Without
// renameat in the standard library here, it goes by path.
func renameBetween(_ *os.File, srcPath, srcName string, _ *os.File, dstPath, dstName string) error {
	return os.Rename(filepath.Join(srcPath, srcName), filepath.Join(dstPath, dstName))
}

func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }

// renameNoReplace is renameBetween refusing to replace dstName (an error
// wrapping fs.ErrExist). Here it looks first, so something appearing in
// between is not caught.
func renameNoReplace(src *os.File, srcPath, srcName string, dst *os.File, dstPath, dstName string) error {
	if _, err := os.Lstat(filepath.Join(dstPath, dstName)); err == nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(srcPath, srcName), New: filepath.Join(dstPath, dstName), Err: fs.ErrExist}
	}
	return renameBetween(src, srcPath, srcName, dst, dstPath, dstName)
}
