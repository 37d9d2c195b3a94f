package export

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"mnote/thread"
)

// imageSnapshot is a thread whose prompt carries a PNG (by hash), a block
// with a hash that is a path, and one of a type exports do not show.
func imageSnapshot(png []byte) thread.Snapshot {
	th := thread.New()
	th.AddUserPrompt([]thread.ContentBlock{
		{Type: "text", Text: "what is this"},
		{Type: "image", MimeType: "image/png", Hash: thread.ImageHash(png), Data: base64.StdEncoding.EncodeToString(png)},
		{Type: "image", MimeType: "image/png", Hash: "../../etc/passwd"},
		{Type: "image", MimeType: "image/svg+xml", Hash: thread.ImageHash([]byte("svg"))},
	})
	return th.Snapshot()
}

// With Images the HTML export embeds the prompt's images as data: URIs
// (allowed by its CSP, nothing else loads), the Markdown one names their
// files; without, both leave them out. A redacted export keeps them too.
func TestExportImages(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake")
	snap := imageSnapshot(png)
	var asked []string
	load := func(hash string) (string, []byte, bool) {
		asked = append(asked, hash)
		if hash == thread.ImageHash(png) {
			return "image/png", png, true
		}
		return "", nil, false
	}
	sess := Session{ID: "s1", Title: "pics", Workspace: "/home/u/notes"}
	uri := `<img src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `" alt="Image 1">`
	for _, redact := range []bool{false, true} {
		var on, off bytes.Buffer
		if err := HTML(&on, sess, snap, Options{Images: true, Image: load, Redact: redact}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(on.String(), uri) || strings.Count(on.String(), "<img ") != 1 {
			t.Fatalf("redact %v: the HTML export does not embed exactly the image:\n%s", redact, on.String())
		}
		if !strings.Contains(on.String(), "img-src data:") {
			t.Fatal("the CSP does not allow data: images")
		}
		if err := HTML(&off, sess, snap, Options{Image: load, Redact: redact}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(off.String(), "<img") {
			t.Fatalf("images off, still embedded")
		}
	}
	for _, h := range asked {
		if !isHash(h) {
			t.Fatalf("the loader was asked for %q", h)
		}
	}
	var md, mdOff bytes.Buffer
	if err := Markdown(&md, sess, snap, Options{Images: true, Locale: "zh-CN"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "![图片 1]("+thread.ImageHash(png)+".png)") || strings.Count(md.String(), "![") != 1 {
		t.Fatalf("Markdown export:\n%s", md.String())
	}
	if err := Markdown(&mdOff, sess, snap, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(mdOff.String(), "![") {
		t.Fatalf("images off, still named:\n%s", mdOff.String())
	}
}
