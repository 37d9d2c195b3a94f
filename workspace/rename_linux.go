package workspace

import (
	"errors"
	"os"
	"runtime"
	"syscall"
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
