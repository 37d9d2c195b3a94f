package registry

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzUnpack feeds arbitrary bytes as each kind of archive: unpacking
// never panics, and whatever it leaves stays inside the folder (no link
// pointing out, nothing but files, folders and links).
func FuzzUnpack(f *testing.F) {
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	tw.WriteHeader(&tar.Header{Name: "a/b", Mode: 0o755, Size: 2, Typeflag: tar.TypeReg})
	tw.Write([]byte("hi"))
	tw.WriteHeader(&tar.Header{Name: "a/l", Typeflag: tar.TypeSymlink, Linkname: "b"})
	tw.WriteHeader(&tar.Header{Name: "a/h", Typeflag: tar.TypeLink, Linkname: "a/b"})
	tw.Close()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(tb.Bytes())
	zw.Close()
	var zb bytes.Buffer
	z := zip.NewWriter(&zb)
	w, _ := z.Create("x/y")
	w.Write([]byte("zip"))
	z.Close()
	f.Add(tb.Bytes(), uint8(0))
	f.Add(gz.Bytes(), uint8(1))
	f.Add(zb.Bytes(), uint8(2))
	kinds := []string{"tar", "tar.gz", "zip", "tar.bz2", "tar.xz", ""}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		base := t.TempDir()
		dir := filepath.Join(base, "in")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(base, "archive")
		if err := os.WriteFile(src, data, 0o600); err != nil {
			t.Fatal(err)
		}
		af, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		defer af.Close()
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				panic(fmt.Sprintf("unpack hangs on kind %d, input %q", k, data))
			}
		}()
		_ = unpack(root, af, kinds[int(k)%len(kinds)], "cmd", Limits{Total: 1 << 20, Files: 1000})
		close(done)
		ents, _ := os.ReadDir(base)
		if len(ents) != 2 {
			t.Fatalf("something was written beside the folder: %v", ents)
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch m := d.Type(); {
			case m&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				full := filepath.Join(filepath.Dir(p), target)
				if filepath.IsAbs(target) || !strings.HasPrefix(full+string(filepath.Separator), dir+string(filepath.Separator)) {
					t.Fatalf("link %s points to %s", p, target)
				}
			case m.IsDir(), m.IsRegular():
			default:
				t.Fatalf("%s is a %v", p, m)
			}
			return nil
		})
	})
}
