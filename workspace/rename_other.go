//go:build !linux

package workspace

import (
	"errors"
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
