package thread

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// The wire form of an image carries its data and not mnote's hash; the
// stored form the hash and not the data; the thread keeps the stored one.
func TestImageBlockForms(t *testing.T) {
	img := []byte("\x89PNG\r\n\x1a\nbytes")
	b := ContentBlock{Type: "image", MimeType: "image/png", Data: base64.StdEncoding.EncodeToString(img), Hash: ImageHash(img)}
	wire, err := json.Marshal([]ContentBlock{{Type: "text", Text: "hi"}, b})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(wire), `"data":"`+b.Data+`"`) || strings.Contains(string(wire), "hash") {
		t.Fatalf("wire form: %s", wire)
	}
	in := []ContentBlock{{Type: "text", Text: "hi"}, b}
	stored, _ := json.Marshal(StoredBlocks(in))
	if strings.Contains(string(stored), b.Data) || !strings.Contains(string(stored), `"hash":"`+b.Hash+`"`) {
		t.Fatalf("stored form: %s", stored)
	}
	if in[1].Data == "" {
		t.Fatal("StoredBlocks changed its argument")
	}
	th := New()
	th.AddUserPrompt(in)
	e := th.Entries()[0]
	if len(e.Blocks) != 1 || strings.Contains(string(e.Blocks[0].Raw), b.Data) || !strings.Contains(string(e.Blocks[0].Raw), b.Hash) {
		t.Fatalf("entry: %+v", e)
	}
}

// A session/prompt line is kept with each image's data replaced by its
// hash; other lines are kept as they are.
func TestRedactPromptLine(t *testing.T) {
	img := []byte("GIF89a-image")
	data := base64.StdEncoding.EncodeToString(img)
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"an image"},{"type":"image","mimeType":"image/gif","data":"` + data + `"}]}}`)
	got := string(RedactPromptLine(line))
	if strings.Contains(got, data) || !strings.Contains(got, `"hash":"`+ImageHash(img)+`"`) || !strings.Contains(got, `"id":7`) || !strings.Contains(got, `"text":"an image"`) {
		t.Fatalf("redacted: %s", got)
	}
	plain := []byte(`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"an image"}]}}`)
	if string(RedactPromptLine(plain)) != string(plain) {
		t.Fatal("a line without images changed")
	}
	if bad := []byte(`{"image" not json`); string(RedactPromptLine(bad)) != string(bad) {
		t.Fatal("an unreadable line changed")
	}
}
