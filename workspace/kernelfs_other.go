//go:build !linux

package workspace

import (
	"io/fs"
	"os"
)

// kernelFS names the kernel file system f lies on; only Linux is checked.
func kernelFS(*os.File, fs.FileInfo) string { return "" }

func kernelFSAt(string, fs.FileInfo) string { return "" }
