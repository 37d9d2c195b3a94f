//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

// fileID is a file's identity: device and inode.
type fileID struct{ dev, ino uint64 }

// idOf is fi's identity; ok is false where the platform gives none.
func idOf(fi fs.FileInfo) (id fileID, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true //nolint:unconvert // Dev is int32 on darwin
}

// nlinkOf is fi's hard link count (1 where unknown).
func nlinkOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) //nolint:unconvert // Nlink is uint16 on darwin
	}
	return 1
}
