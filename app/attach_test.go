package app_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mnote/app"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

// A pasted image is saved in the attachments folder (made as needed), a
// taken name gets " 1", " 2"; the preview reads it back with files.image.
func TestFilesAttach(t *testing.T) {
	h := newHarness(t)
	data := base64.StdEncoding.EncodeToString(pngBytes)
	var got app.Attached
	for i, want := range []string{"attachments/Pasted image 20261207-131500.png", "attachments/Pasted image 20261207-131500 1.png", "attachments/Pasted image 20261207-131500 2.png"} {
		h.mustCall("files.attach", map[string]any{"path": "attachments/Pasted image 20261207-131500.png", "data": data}, &got)
		if got.Path != want {
			t.Fatalf("attach %d: saved as %q, want %q", i, got.Path, want)
		}
		b, err := os.ReadFile(filepath.Join(h.ws, filepath.FromSlash(want)))
		if err != nil || !bytes.Equal(b, pngBytes) {
			t.Fatalf("%s: %v, %q", want, err, b)
		}
	}
	// Chinese names, beside a note in a folder, and a name with no extension.
	h.mustCall("files.attach", map[string]any{"path": "日记/截图 一.png", "data": data}, &got)
	if got.Path != "日记/截图 一.png" {
		t.Errorf("saved as %q", got.Path)
	}
	h.mustCall("files.attach", map[string]any{"path": "日记/截图 一.png", "data": data}, &got)
	if got.Path != "日记/截图 一 1.png" {
		t.Errorf("again: saved as %q", got.Path)
	}
	var img app.ImageData
	h.mustCall("files.image", map[string]any{"path": "日记/截图 一 1.png"}, &img)
	if img.MimeType != "image/png" || img.Data != data {
		t.Errorf("files.image: %+v", img)
	}
	if err := os.WriteFile(filepath.Join(h.ws, "notes.md"), []byte("# hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if e := h.call("files.image", map[string]any{"path": "notes.md"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Errorf("files.image of a note: %+v", e)
	}
}

// As an attacker: names leading out of the folder, absolute paths, a
// folder that is a link out, mnote's own data, a file name that is a
// link out, and files too big are refused, and nothing is written
// outside; an existing file is never overwritten.
func TestFilesAttachConfined(t *testing.T) {
	h := newHarness(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(h.ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x.png"), filepath.Join(h.ws, "link.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.ws, "keep.png"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := base64.StdEncoding.EncodeToString(pngBytes)
	for _, p := range []string{
		"../x.png", "attachments/../../x.png", "/tmp/x.png", filepath.Join(outside, "x.png"),
		"out/x.png", "out/sub/x.png", "attachments/", "", ".", "..",
	} {
		var got app.Attached
		e := h.call("files.attach", map[string]any{"path": p, "data": data}, &got)
		if e == nil {
			t.Errorf("attach %q: saved as %q", p, got.Path)
		}
	}
	// A link in the name's place: never written through, nor over.
	var got app.Attached
	if e := h.call("files.attach", map[string]any{"path": "link.png", "data": data}, &got); e == nil && got.Path == "link.png" {
		t.Errorf("wrote through the link")
	}
	h.mustCall("files.attach", map[string]any{"path": "keep.png", "data": data}, &got)
	if got.Path != "keep 1.png" {
		t.Errorf("over an existing file: %q", got.Path)
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "keep.png")); string(b) != "mine" {
		t.Errorf("keep.png overwritten: %q", b)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("written outside: %v", entries)
	}
	// Too big: refused before decoding, with what to do.
	huge := base64.StdEncoding.EncodeToString(make([]byte, 10<<20+1))
	e := h.call("files.attach", map[string]any{"path": "big.png", "data": huge}, nil)
	if codeOf(e) != app.CodeBadRequest || e.Reason != app.ReasonTooLarge || !strings.Contains(e.Message, "MiB") {
		t.Errorf("huge: %+v", e)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "big.png")); err == nil {
		t.Error("big.png written")
	}
	if e := h.call("files.attach", map[string]any{"path": "bad.png", "data": "not base64!"}, nil); codeOf(e) != app.CodeBadRequest {
		t.Errorf("bad base64: %+v", e)
	}
	// files.image is confined too.
	if err := os.WriteFile(filepath.Join(outside, "secret.png"), pngBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../secret.png", filepath.Join(outside, "secret.png"), "out/secret.png"} {
		if e := h.call("files.image", map[string]any{"path": p}, nil); e == nil {
			t.Errorf("files.image %q read outside the folder", p)
		}
	}
}
