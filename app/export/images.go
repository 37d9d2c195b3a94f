package export

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"mnote/thread"
)

// ImageLoader reads one of the session's kept images by its hash (the
// image blocks of its user messages name them); ok false when it is gone.
type ImageLoader func(hash string) (mime string, data []byte, ok bool)

// imageExts are the image types an export shows, with the file
// extension the session keeps them under.
var imageExts = map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}

// image is one image of a user message, ready to render.
type image struct {
	mime, hash string
	name       string // <hash><ext>, the file beside the transcript
}

// collectImages finds the image blocks of the user messages (before
// redaction, which may take a hash for a secret), by entry id. Images of
// other types, or whose hash is not one, are left out.
func collectImages(entries []thread.Entry) map[string][]image {
	out := map[string][]image{}
	for _, en := range entries {
		if en.Kind != thread.EntryUserMessage {
			continue
		}
		for _, b := range en.Blocks {
			if b.Type != "image" {
				continue
			}
			var cb thread.ContentBlock
			if json.Unmarshal(b.Raw, &cb) != nil || !isHash(cb.Hash) || imageExts[cb.MimeType] == "" {
				continue
			}
			out[en.ID] = append(out[en.ID], image{mime: cb.MimeType, hash: cb.Hash, name: cb.Hash + imageExts[cb.MimeType]})
		}
	}
	return out
}

func isHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	return strings.Trim(h, "0123456789abcdef") == ""
}

// htmlImages writes a user message's images as data: URIs (the page's
// Content-Security-Policy allows img-src data: and nothing else); an
// image the loader no longer finds is left out.
func (d *doc) htmlImages(w io.Writer, id string) {
	if len(d.images[id]) == 0 || d.o.Image == nil {
		return
	}
	open := false
	for i, img := range d.images[id] {
		mime, data, ok := d.o.Image(img.hash)
		if !ok || imageExts[mime] == "" {
			continue
		}
		if !open {
			fmt.Fprint(w, "<div class=\"images\">")
			open = true
		}
		fmt.Fprintf(w, "<img src=\"data:%s;base64,%s\" alt=\"%s\">", mime, base64.StdEncoding.EncodeToString(data),
			esc(d.l.T("export.image", i+1)))
	}
	if open {
		fmt.Fprint(w, "</div>\n")
	}
}

// markdownImages names a user message's images by their files (kept
// beside the session's transcript, in <session>.files).
func (d *doc) markdownImages(w io.Writer, id string) {
	imgs := d.images[id]
	if len(imgs) == 0 {
		return
	}
	for i, img := range imgs {
		fmt.Fprintf(w, "![%s](%s)\n", d.l.T("export.image", i+1), img.name)
	}
	fmt.Fprintln(w)
}
