package app_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
	"mnote/thread"
)

// pngOf is a PNG-looking image of n bytes (the magic number, then filler
// that differs with seed).
func pngOf(n int, seed byte) []byte {
	b := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{seed}, n-8)...)
	return b
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// imageBlocks are the image blocks of the thread's user messages.
func imageBlocks(t *testing.T, entries []thread.Entry) []thread.ContentBlock {
	t.Helper()
	var out []thread.ContentBlock
	for _, e := range entries {
		if e.Kind != thread.EntryUserMessage {
			continue
		}
		for _, b := range e.Blocks {
			if b.Type != "image" {
				continue
			}
			var cb thread.ContentBlock
			if err := json.Unmarshal(b.Raw, &cb); err != nil {
				t.Fatal(err)
			}
			out = append(out, cb)
		}
	}
	return out
}

// An attached image goes to the agent as an ACP image block (the test
// agent reports its type and size); the transcript keeps it as a file
// beside it, named by its hash, and never its base64; a reopened session
// shows it and sessions.image gives its bytes back.
func TestPromptImages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	img := pngOf(300, 7)
	from := h.rec.Len()
	var r app.TurnStarted
	h.mustCall("sessions.prompt", map[string]any{"id": sum.ID, "text": "what is this",
		"images": []map[string]string{{"mimeType": "image/png", "data": b64(img)}}}, &r)
	h.waitTurnEnded(sum.ID, from, r.Turn)
	snap := h.open(sum.ID)
	if !hasText(snap.Thread.Entries, thread.EntryAssistantMessage, "echo: what is this\nimage image/png 300 bytes") {
		t.Fatalf("the agent did not get the image:\n%s", h.dump(sum.ID))
	}
	if snap.Session.Images == nil || !*snap.Session.Images {
		t.Errorf("the summary does not say the agent takes images: %+v", snap.Session.Images)
	}
	file := filepath.Join(strings.TrimSuffix(h.paths.TranscriptPath(sum.ID), ".jsonl")+".files", sha(img)+".png")
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(file); !bytes.Equal(got, img) || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kept image: %d bytes, mode %v", len(got), fi.Mode())
	}
	tr, err := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(tr, []byte(b64(img)[:40])) {
		t.Fatalf("the transcript holds the image's base64")
	}
	if n := bytes.Count(tr, []byte(sha(img))); n < 2 { // the prompt record and the request sent
		t.Fatalf("the transcript names the image %d times", n)
	}
	if got := imageBlocks(t, snap.Thread.Entries); len(got) != 1 || got[0].Hash != sha(img) || got[0].MimeType != "image/png" || got[0].Data != "" {
		t.Fatalf("live user message blocks: %+v", got)
	}

	// After a restart the thread is rebuilt from the transcript.
	h.svc.Shutdown()
	h.start()
	snap = h.open(sum.ID)
	got := imageBlocks(t, snap.Thread.Entries)
	if len(got) != 1 || got[0].Hash != sha(img) || got[0].MimeType != "image/png" {
		t.Fatalf("reopened user message blocks: %+v", got)
	}
	var data app.ImageData
	h.mustCall("sessions.image", map[string]any{"sessionId": sum.ID, "hash": got[0].Hash}, &data)
	if data.MimeType != "image/png" || data.Data != b64(img) {
		t.Fatalf("sessions.image: %s, %d chars", data.MimeType, len(data.Data))
	}
	// A hash names a file of that session's folder only.
	other := h.create("test")
	for _, bad := range []string{"../" + sum.ID + ".files/" + sha(img), "/etc/passwd", sha(img) + ".png", strings.ToUpper(sha(img)), ""} {
		if e := h.call("sessions.image", map[string]any{"sessionId": sum.ID, "hash": bad}, nil); codeOf(e) != app.CodeBadRequest {
			t.Errorf("hash %q: %v", bad, e)
		}
	}
	if e := h.call("sessions.image", map[string]any{"sessionId": other.ID, "hash": sha(img)}, nil); codeOf(e) != app.CodeNotFound {
		t.Errorf("another session's image: %v", e)
	}
	if e := h.call("sessions.image", map[string]any{"sessionId": "../x", "hash": sha(img)}, nil); codeOf(e) != app.CodeBadRequest {
		t.Errorf("a crafted session id: %v", e)
	}

	// Exports embed (HTML) or name (Markdown) the image when asked, and
	// leave it out otherwise.
	for _, c := range []struct {
		format string
		images bool
		want   string
	}{{"html", true, `src="data:image/png;base64,` + b64(img) + `"`}, {"md", true, "](" + sha(img) + ".png)"}, {"html", false, ""}, {"md", false, ""}} {
		var out app.Exported
		h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": c.format, "images": c.images}, &out)
		if c.want != "" && !strings.Contains(out.Content, c.want) || c.want == "" && (strings.Contains(out.Content, "<img") || strings.Contains(out.Content, sha(img))) {
			t.Errorf("export %s images %v:\n%.600s", c.format, c.images, out.Content)
		}
	}

	// Deleted for good, the session's images go too.
	h.mustCall("sessions.delete", map[string]any{"id": sum.ID}, nil)
	h.mustCall("sessions.purge", map[string]any{"id": sum.ID}, nil)
	if _, err := os.Stat(filepath.Dir(file)); !os.IsNotExist(err) {
		t.Errorf("the images folder of a purged session: %v", err)
	}
}

// Images that break the rules are refused before anything is sent, with
// a reason the page words.
func TestPromptImagesRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	many := make([]map[string]string, 11)
	for i := range many {
		many[i] = map[string]string{"mimeType": "image/png", "data": b64(pngOf(20, byte(i)))}
	}
	cases := []struct {
		name   string
		images []map[string]string
		reason string
	}{
		{"too many", many, app.ReasonTooManyImages},
		{"too big", []map[string]string{{"mimeType": "image/png", "data": b64(pngOf(5<<20+1, 1))}}, app.ReasonImageTooBig},
		{"not an image", []map[string]string{{"mimeType": "image/png", "data": b64([]byte("<svg xmlns='http://www.w3.org/2000/svg'/>"))}}, app.ReasonImageType},
		{"svg", []map[string]string{{"mimeType": "image/svg+xml", "data": b64(pngOf(30, 1))}}, app.ReasonImageType},
		{"declared jpeg", []map[string]string{{"mimeType": "image/jpeg", "data": b64(pngOf(30, 1))}}, app.ReasonImageType},
		{"not base64", []map[string]string{{"mimeType": "image/png", "data": "%%%"}}, app.ReasonImageType},
	}
	for _, c := range cases {
		e := h.call("sessions.prompt", map[string]any{"id": sum.ID, "text": "x", "images": c.images}, nil)
		if codeOf(e) != app.CodeBadRequest || e.Reason != c.reason {
			t.Errorf("%s: %+v", c.name, e)
		}
	}
	if _, err := os.Stat(strings.TrimSuffix(h.paths.TranscriptPath(sum.ID), ".jsonl") + ".files"); err == nil {
		t.Errorf("refused images were kept")
	}
	// Exactly 10 of 5 MB each, GIF, JPEG and WebP, and an image alone.
	ok := []map[string]string{
		{"mimeType": "image/gif", "data": b64([]byte("GIF89a......"))},
		{"mimeType": "image/jpeg", "data": b64([]byte{0xff, 0xd8, 0xff, 0xe0, 1, 2})},
		{"mimeType": "", "data": b64([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "))},
		{"mimeType": "image/png", "data": b64(pngOf(5<<20, 3))},
	}
	from := h.rec.Len()
	var r app.TurnStarted
	h.mustCall("sessions.prompt", map[string]any{"id": sum.ID, "text": "", "images": ok}, &r)
	h.waitTurnEnded(sum.ID, from, r.Turn)
	if !hasText(h.open(sum.ID).Thread.Entries, thread.EntryAssistantMessage,
		"echo: \nimage image/gif 12 bytes\nimage image/jpeg 6 bytes\nimage image/webp 16 bytes\nimage image/png "+strconv.Itoa(5<<20)+" bytes") {
		t.Fatalf("the agent got:\n%s", h.dump(sum.ID))
	}
}

// An agent that does not advertise promptCapabilities.image gets no
// image: attached ones are refused (images_unsupported, before sending
// when it runs); the images a mentioned note shows are left out, a
// mentioned image file is a link.
func TestPromptImagesAgentWithout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.saveAgent("blind", acptest.Scenario(`{"promptCapabilities":{"image":false,"embeddedContext":true}}`)...)
	img := pngOf(64, 9)
	if err := os.WriteFile(filepath.Join(h.ws, "pic.png"), img, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.ws, "note.md"), []byte("see ![a pic](pic.png)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := h.create("blind")
	if sum.Images == nil || *sum.Images {
		t.Fatalf("summary images: %v", sum.Images)
	}
	e := h.call("sessions.prompt", map[string]any{"id": sum.ID, "text": "x",
		"images": []map[string]string{{"mimeType": "image/png", "data": b64(img)}}}, nil)
	if codeOf(e) != app.CodeBadRequest || e.Reason != app.ReasonImagesUnsupported || e.Params["agent"] != "blind" {
		t.Fatalf("images to an agent without them: %+v", e)
	}
	from := h.rec.Len()
	var r app.TurnStarted
	h.mustCall("sessions.prompt", map[string]any{"id": sum.ID, "text": "look", "mentions": []string{"note.md", "pic.png"}}, &r)
	h.waitTurnEnded(sum.ID, from, r.Turn)
	tr, _ := os.ReadFile(h.paths.TranscriptPath(sum.ID))
	if bytes.Contains(tr, []byte(`"type":"image"`)) || !bytes.Contains(tr, []byte(`"type":"resource_link"`)) {
		t.Fatalf("an agent without images got one, or no link to the mentioned image:\n%s", tr)
	}

	// A closed session: its agent starts with the prompt, and the turn
	// fails with the reason then.
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	from = h.rec.Len()
	h.mustCall("sessions.prompt", map[string]any{"id": sum.ID, "text": "x",
		"images": []map[string]string{{"mimeType": "image/png", "data": b64(img)}}}, &r)
	h.waitTurnEnded(sum.ID, from, r.Turn)
	_, ev := h.waitEvent(sum.ID, from, "notice", func(p json.RawMessage) bool { return strings.Contains(string(p), app.ReasonImagesUnsupported) })
	if ev.Type != "notice" {
		t.Fatalf("no images_unsupported notice:\n%s", h.dump(sum.ID))
	}
}

// The images a mentioned note shows go with it (Markdown and wiki
// embeds, once each), and so does a mentioned image file.
func TestPromptNoteImages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a, b, c := pngOf(40, 1), pngOf(50, 2), []byte("GIF89a-gif")
	if err := os.MkdirAll(filepath.Join(h.ws, "notes", "img"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, data := range map[string][]byte{"notes/img/a.png": a, "b.png": b, "c.gif": c,
		"notes/day.md": []byte("![a](img/a.png) ![[b.png]] ![again](img/a.png) ![web](https://example.com/x.png) ![](../../etc/x.png)\n")} {
		if err := os.WriteFile(filepath.Join(h.ws, filepath.FromSlash(p)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := h.create("test")
	from := h.rec.Len()
	var r app.TurnStarted
	h.mustCall("sessions.prompt", map[string]any{"id": sum.ID, "text": "look", "mentions": []string{"notes/day.md", "@c.gif"}}, &r)
	h.waitTurnEnded(sum.ID, from, r.Turn)
	snap := h.open(sum.ID)
	if !hasText(snap.Thread.Entries, thread.EntryAssistantMessage, "echo: look\nimage image/gif 10 bytes\nimage image/png 40 bytes\nimage image/png 50 bytes") {
		t.Fatalf("the agent got:\n%s", h.dump(sum.ID))
	}
	if got := imageBlocks(t, snap.Thread.Entries); len(got) != 3 {
		t.Fatalf("user message images: %+v", got)
	}
	for _, img := range [][]byte{a, b, c} {
		var data app.ImageData
		h.mustCall("sessions.image", map[string]any{"sessionId": sum.ID, "hash": sha(img)}, &data)
		if data.Data != b64(img) {
			t.Fatalf("image %s not kept", sha(img))
		}
	}
}
