package workspace

import (
	"errors"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// renameBetween renames srcName in the folder src to dstName in the folder
// dst with renameat(2): the folders are open handles, so nothing on the
// way can be swapped for a symbolic link. The path arguments only name the
// folders in errors.
func renameBetween(src *os.File, srcPath, srcName string, dst *os.File, dstPath, dstName string) error {
	err := syscall.Renameat(int(src.Fd()), srcName, int(dst.Fd()), dstName)
	runtime.KeepAlive(src)
	runtime.KeepAlive(dst)
	if err != nil {
		return &os.LinkError{Op: "renameat", Old: srcPath + "/" + srcName, New: dstPath + "/" + dstName, Err: err}
	}
	return nil
}

func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }

// renameNoReplace is renameBetween refusing to replace dstName, even with
// something that appeared there after the caller looked
// (renameat2(RENAME_NOREPLACE): the error wraps fs.ErrExist). On a file
// system without the flag it renames as renameBetween does.
func renameNoReplace(src *os.File, srcPath, srcName string, dst *os.File, dstPath, dstName string) error {
	err := unix.Renameat2(int(src.Fd()), srcName, int(dst.Fd()), dstName, unix.RENAME_NOREPLACE)
	runtime.KeepAlive(src)
	runtime.KeepAlive(dst)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return renameBetween(src, srcPath, srcName, dst, dstPath, dstName)
	}
	return &os.LinkError{Op: "renameat2", Old: srcPath + "/" + srcName, New: dstPath + "/" + dstName, Err: err}
}
