package gzfs

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestCompressedFilesReadUnderTheirNames(t *testing.T) {
	js := strings.Repeat("console.log('你好');\n", 1000)
	base := fstest.MapFS{
		"index.html.gz":      {Data: gz(t, "<!doctype html><title>mnote</title>")},
		"assets/app-1.js.gz": {Data: gz(t, js)},
		".gitkeep":           {Data: nil},
		"broken.js.gz":       {Data: []byte("not gzip")},
	}
	f := New(base)
	b, err := fs.ReadFile(f, "assets/app-1.js")
	if err != nil || string(b) != js {
		t.Fatalf("assets/app-1.js: %d bytes, %v; want the %d decompressed", len(b), err, len(js))
	}
	st, err := fs.Stat(f, "assets/app-1.js")
	if err != nil || st.Size() != int64(len(js)) || st.Name() != "app-1.js" || st.IsDir() {
		t.Fatalf("stat: %v %v", st, err)
	}
	if st, err := fs.Stat(f, "assets"); err != nil || !st.IsDir() {
		t.Fatalf("a folder: %v %v", st, err)
	}
	if _, err := fs.ReadFile(f, ".gitkeep"); err != nil {
		t.Fatalf("an uncompressed file: %v", err)
	}
	if _, err := f.Open("missing.js"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing file: %v, want ErrNotExist", err)
	}
	if _, err := f.Open("../index.html"); err == nil {
		t.Fatal("a path out of the tree was opened")
	}
	if _, err := f.Open("broken.js"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a corrupt file: %v, want a clear error", err)
	}

	// http.ServeFileFS (mnote serve): content type from the plain name, ranges.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/assets/app-1.js", nil)
	req.Header.Set("Range", "bytes=0-10")
	http.ServeFileFS(rec, req, f, "assets/app-1.js")
	if rec.Code != http.StatusPartialContent || rec.Body.String() != js[:11] || !strings.Contains(rec.Header().Get("Content-Type"), "javascript") {
		t.Fatalf("served %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
}
