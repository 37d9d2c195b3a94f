//go:build !unix

package workspace

import "io/fs"

// fileID is a file's identity: device and inode.
type fileID struct{ dev, ino uint64 }

// idOf gives no identity on this platform: the workspace falls back to
// checking that its folder still exists.
func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }

func nlinkOf(fs.FileInfo) uint64 { return 1 }
