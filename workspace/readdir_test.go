package workspace_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"mnote/workspace"
)

// The tree's folder listing gives what os.ReadDir gives: every name (a
// folder bigger than one read of entries included), each entry's type and
// its Info, for files, folders, links and FIFOs; none of "." and "..".
func TestReadDirMatchesOSReadDir(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "many")
	for i := range 700 { // more than one 16 KiB getdents batch
		write(t, filepath.Join(sub, fmt.Sprintf("a rather long note name to fill the buffer %04d.md", i)), "x")
	}
	must(t, os.Mkdir(filepath.Join(sub, "folder"), 0o755))
	must(t, os.Symlink("folder", filepath.Join(sub, "link")))
	must(t, syscall.Mkfifo(filepath.Join(sub, "fifo"), 0o600))
	w, _ := openDir(t, dir, workspace.Options{})

	got, err := w.ReadDirForTest("many")
	must(t, err)
	want, err := os.ReadDir(sub)
	must(t, err)
	describe := func(e os.DirEntry) string {
		fi, err := e.Info()
		if err != nil {
			return e.Name() + " info: " + err.Error()
		}
		return fmt.Sprintf("%s %v dir=%v info=%s,%v,%d", e.Name(), e.Type(), e.IsDir(), fi.Name(), fi.Mode(), fi.Size())
	}
	var g, wl []string
	for _, e := range got {
		g = append(g, describe(e))
	}
	for _, e := range want {
		wl = append(wl, describe(e))
	}
	slices.Sort(g)
	if !slices.Equal(g, wl) {
		t.Fatalf("readDir (%d entries) differs from os.ReadDir (%d):\n%s\nwant\n%s", len(g), len(wl), strings.Join(g[:min(5, len(g))], "\n"), strings.Join(wl[:min(5, len(wl))], "\n"))
	}
	if _, err := w.ReadDirForTest("many/a rather long note name to fill the buffer 0000.md"); err == nil {
		t.Error("readDir of a file succeeded")
	}
	if _, err := w.ReadDirForTest("missing"); err == nil {
		t.Error("readDir of a missing folder succeeded")
	}
}
