package workspace

import (
	"io/fs"
	"syscall"
)

// ctimeOf is fi's inode change time in nanoseconds (0 where unknown).
// Programs can set a file's mtime back, not its ctime.
func ctimeOf(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
