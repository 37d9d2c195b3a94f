//go:build !linux

package workspace

import (
	"io/fs"
	"os"
)

// readDir lists the folder rel (link-free, workspace-relative) through the
// root.
func readDir(root *os.Root, rel string) ([]fs.DirEntry, error) {
	return fs.ReadDir(root.FS(), rel)
}
