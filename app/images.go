package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"mnote/acp"
	"mnote/app/export"
	"mnote/thread"
	"mnote/workspace"
)

// Images going with a prompt (API.md "sessions.prompt", images): at most
// maxImages per prompt, maxImageBytes each, of the types imageTypes
// names, told apart by their first bytes.
const (
	maxImageBytes = 5 << 20
	maxImages     = 10
)

// imageTypes maps the image types a prompt takes to their file extension.
var imageTypes = map[string]string{
	"image/png":  ".png",
	"image/jpeg": ".jpg",
	"image/gif":  ".gif",
	"image/webp": ".webp",
}

// ImageArg is an image the page attaches to a prompt: its type and its
// bytes in base64.
type ImageArg struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

// promptImage is an image of a prompt, read and checked.
type promptImage struct {
	mime, hash string
	data       []byte
	// rel is the workspace file it came from (a mentioned image, or one
	// a mentioned note shows); "" for an attached one. direct: the file
	// itself was mentioned.
	rel, abs string
	direct   bool
}

// sniffImage is the type of image bytes by their magic numbers, "" when
// they are none of imageTypes.
func sniffImage(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// decodeImages checks the page's images: how many, how big, of which
// type (the declared one, when given, must be what the bytes are).
func decodeImages(in []ImageArg) ([]promptImage, *Error) {
	if len(in) > maxImages {
		return nil, badRequest("a prompt can carry at most %d images, not %d", maxImages, len(in)).
			why(ReasonTooManyImages, "max", strconv.Itoa(maxImages), "count", strconv.Itoa(len(in)))
	}
	out := make([]promptImage, 0, len(in))
	for i, a := range in {
		n := strconv.Itoa(i + 1)
		if base64.StdEncoding.DecodedLen(len(a.Data)) > maxImageBytes+3 {
			return nil, imageTooBig(n, base64.StdEncoding.DecodedLen(len(a.Data)))
		}
		data, err := base64.StdEncoding.DecodeString(a.Data)
		if err != nil {
			return nil, badRequest("image %s is not base64: %w", n, err).why(ReasonImageType, "n", n)
		}
		if len(data) > maxImageBytes {
			return nil, imageTooBig(n, len(data))
		}
		mime := sniffImage(data)
		declared := strings.ToLower(strings.TrimSpace(a.MimeType))
		if declared == "image/jpg" {
			declared = "image/jpeg"
		}
		if mime == "" || (declared != "" && declared != mime) {
			return nil, badRequest("image %s is not a PNG, JPEG, GIF or WebP image (declared %q)", n, a.MimeType).
				why(ReasonImageType, "n", n)
		}
		out = append(out, promptImage{mime: mime, hash: thread.ImageHash(data), data: data})
	}
	return out, nil
}

func imageTooBig(n string, size int) *Error {
	return badRequest("image %s is %d bytes; an image can be at most %d", n, size, maxImageBytes).
		why(ReasonImageTooBig, "n", n, "size", strconv.Itoa(size), "max", strconv.Itoa(maxImageBytes))
}

// withImages adds the page's images to a prompt's parts.
func withImages(p *promptParts, in []ImageArg) (*promptParts, *Error) {
	if len(in) == 0 {
		return p, nil
	}
	imgs, e := decodeImages(in)
	if e != nil {
		return nil, e
	}
	if p == nil {
		p = &promptParts{}
	}
	p.images = imgs
	return p, nil
}

// takesImages reports whether the agent takes image blocks.
func takesImages(a *acp.Agent) bool {
	return a != nil && a.Init.AgentCapabilities.PromptCapabilities.Image
}

// checkImages refuses attached images for a running agent that does not
// take them (a prompt that starts its agent is checked in prepareImages).
func (l *liveSession) checkImages(p *promptParts) *Error {
	if p == nil || len(p.images) == 0 {
		return nil
	}
	if a := l.agent.Load(); a != nil && !exited(a) && !takesImages(a) {
		return l.imagesUnsupported()
	}
	return nil
}

// imagesTaken is whether the session's running agent takes images; nil
// while none runs.
func (l *liveSession) imagesTaken() *bool {
	a := l.agent.Load()
	if a == nil || exited(a) {
		return nil
	}
	ok := takesImages(a)
	return &ok
}

func (l *liveSession) imagesUnsupported() *Error {
	l.mu.Lock()
	agent := l.runtime
	l.mu.Unlock()
	return badRequest("%s does not take images; send the prompt without them", agent).why(ReasonImagesUnsupported, "agent", agent)
}

// prepareImages runs once the turn's agent is bound, before the prompt is
// recorded: attached images need an agent that takes them; the images of
// mentioned notes go only to such an agent (a mentioned image file is a
// link for others); and each image that goes is written beside the
// transcript before the entry that names it.
func (l *liveSession) prepareImages(p *promptParts, a *acp.Agent) *Error {
	if p == nil || len(p.images)+len(p.noteImages) == 0 {
		return nil
	}
	p.imagesOK = takesImages(a)
	if !p.imagesOK && len(p.images) > 0 {
		return l.imagesUnsupported()
	}
	dir := l.s.imagesDir(l.id)
	for _, list := range [][]promptImage{p.images, p.noteImages} {
		if !p.imagesOK {
			break
		}
		for _, img := range list {
			if err := storeImage(dir, img); err != nil {
				return newError(CodeWriteFailed, "keep an image of the prompt: %w", err).why(ReasonTranscriptWriteFailed)
			}
		}
	}
	return nil
}

// imagesDir is the folder beside a session's transcript that holds its
// images: <session>.files.
func (s *Services) imagesDir(id string) string {
	t := s.paths.TranscriptPath(id)
	return strings.TrimSuffix(t, filepath.Ext(t)) + ".files"
}

// storeImage writes an image as <hash><ext> (mode 0600, atomically) unless
// it is there already.
func storeImage(dir string, img promptImage) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	p := filepath.Join(dir, img.hash+imageTypes[img.mime])
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(img.data)) {
		return nil
	}
	if err := writeFileAtomic(p, img.data); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// imageBlocks are the prompt's images as ACP image blocks, Hash set (the
// transcript keeps that in place of the data). A mentioned image file
// for an agent that does not take images is a resource link.
func (p *promptParts) imageBlocks() []thread.ContentBlock {
	var out []thread.ContentBlock
	for _, list := range [][]promptImage{p.images, p.noteImages} {
		for _, img := range list {
			switch {
			case p.imagesOK:
				out = append(out, thread.ContentBlock{Type: "image", MimeType: img.mime,
					Data: base64.StdEncoding.EncodeToString(img.data), Hash: img.hash})
			case img.direct:
				uri := (&url.URL{Scheme: "file", Path: img.abs}).String()
				out = append(out, thread.ContentBlock{Type: "resource_link", URI: uri, Name: path.Base(img.rel), MimeType: img.mime})
			}
		}
	}
	return out
}

// isImagePath reports whether a workspace path names an image by its
// extension.
func isImagePath(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return true
	}
	return false
}

// readImageFile reads a workspace image for a prompt; ok false when it is
// missing, too big or not an image of the types a prompt takes.
func readImageFile(w *workspace.Workspace, rel string) (promptImage, bool) {
	b, err := w.ReadFile(rel)
	if err != nil || len(b) > maxImageBytes {
		return promptImage{}, false
	}
	mime := sniffImage(b)
	if mime == "" {
		return promptImage{}, false
	}
	return promptImage{mime: mime, hash: thread.ImageHash(b), data: b, rel: rel, abs: w.Abs(rel)}, true
}

var (
	mdImage   = regexp.MustCompile(`!\[[^\]\n]*\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+["'(][^)\n]*)?\)`)
	wikiImage = regexp.MustCompile(`!\[\[([^\]|#\n]+)(?:[|#][^\]\n]*)?\]\]`)
)

// noteImageRefs are the workspace paths of the images a note shows
// (![alt](path) relative to the note, ![[name]] beside it or from the
// root), in order, once each; links with a scheme are left out.
func noteImageRefs(noteRel, text string) []string {
	var out []string
	add := func(rel string) {
		rel = strings.TrimPrefix(path.Clean(rel), "/")
		if rel != "." && !strings.HasPrefix(rel, "../") && rel != ".." && isImagePath(rel) && !contains(out, rel) {
			out = append(out, rel)
		}
	}
	dir := path.Dir(noteRel)
	for _, m := range mdImage.FindAllStringSubmatch(text, -1) {
		t := strings.TrimSuffix(strings.TrimPrefix(m[1], "<"), ">")
		if strings.Contains(t, ":") {
			continue // http:, data:, file: …
		}
		if u, err := url.PathUnescape(t); err == nil {
			t = u
		}
		if strings.HasPrefix(t, "/") {
			add(t)
		} else {
			add(path.Join(dir, t))
		}
	}
	for _, m := range wikiImage.FindAllStringSubmatch(text, -1) {
		add(path.Join(dir, strings.TrimSpace(m[1])))
	}
	return out
}

// addNoteImages reads the images the prompt's Markdown files show, as
// many as the prompt has room for; ones that cannot be read are left
// out (the note goes as it is).
func (p *promptParts) addNoteImages(w *workspace.Workspace) {
	for _, f := range p.files {
		if mimeOf(f.rel) != "text/markdown" {
			continue
		}
		for _, rel := range noteImageRefs(f.rel, f.text) {
			if len(p.images)+len(p.noteImages) >= maxImages {
				return
			}
			img, ok := readImageFile(w, rel)
			if !ok && path.Dir(rel) != "." {
				// ![[name]] in a note in a folder: the root's name
				img, ok = readImageFile(w, path.Base(rel))
			}
			if ok && !p.hasImage(img.hash) {
				p.noteImages = append(p.noteImages, img)
			}
		}
	}
}

func (p *promptParts) hasImage(hash string) bool {
	for _, list := range [][]promptImage{p.images, p.noteImages} {
		for _, img := range list {
			if img.hash == hash {
				return true
			}
		}
	}
	return false
}

// ImageData is sessions.image's result: a kept image of a session.
type ImageData struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"` // base64
}

type imageArgs struct {
	SessionID string `json:"sessionId"`
	Hash      string `json:"hash"`
}

// validHash accepts a hex SHA-256 only, so a hash cannot name a path.
func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// sessionsImage returns one of a session's kept images (a user message's
// image block names it by hash), read from that session's folder only.
func (s *Services) sessionsImage(ctx context.Context, a imageArgs) (any, *Error) {
	if e := validID(a.SessionID); e != nil {
		return nil, e
	}
	if !validHash(a.Hash) {
		return nil, badRequest("%q is not an image hash", a.Hash)
	}
	mime, b, err := s.findImage(ctx, a.SessionID, a.Hash)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &Error{Code: CodeNotFound, Message: "the session has no image " + a.Hash, cause: err}
	case err != nil:
		return nil, errorFrom("read image", err)
	}
	return ImageData{MimeType: mime, Data: base64.StdEncoding.EncodeToString(b)}, nil
}

// readImage reads a kept image of a session (id and hash checked by the
// caller); fs.ErrNotExist when there is none, or what is there is not a
// regular file of at most maxImageBytes.
func (s *Services) readImage(id, hash string) (string, []byte, error) {
	dir := s.imagesDir(id)
	for mime, ext := range imageTypes {
		p := filepath.Join(dir, hash+ext)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("read image: %w", err)
		}
		if !fi.Mode().IsRegular() || fi.Size() > maxImageBytes {
			return "", nil, fmt.Errorf("%s is not a kept image: %w", p, fs.ErrNotExist)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return "", nil, fmt.Errorf("read image: %w", err)
		}
		return mime, b, nil
	}
	return "", nil, fmt.Errorf("no image %s: %w", hash, fs.ErrNotExist)
}

// findImage is readImage of the session, else of the session it was
// forked from (a fork's transcript copies the original's prompts, not
// its image files), and so on up.
func (s *Services) findImage(ctx context.Context, id, hash string) (string, []byte, error) {
	mime, b, err := s.readImage(id, hash)
	for hop := 0; hop < 16 && errors.Is(err, fs.ErrNotExist); hop++ {
		row, rerr := s.ix.GetSession(ctx, id)
		if rerr != nil || row.ForkedFrom == "" || validID(row.ForkedFrom) != nil {
			break
		}
		id = row.ForkedFrom
		mime, b, err = s.readImage(id, hash)
	}
	return mime, b, err
}

// removeImages deletes a session's kept images (the session is gone for
// good); a failure is logged, the folder stays.
func (s *Services) removeImages(id string) {
	if err := os.RemoveAll(s.imagesDir(id)); err != nil {
		s.log.Warn("the images of a deleted session were not removed", "session", id, "err", err)
	}
}

// exportImages is the export's image loader for a session.
func (s *Services) exportImages(ctx context.Context, id string) export.ImageLoader {
	return func(hash string) (string, []byte, bool) {
		if !validHash(hash) {
			return "", nil, false
		}
		mime, b, err := s.findImage(ctx, id, hash)
		if err != nil {
			s.log.Warn("export: image left out", "session", id, "hash", hash, "err", err)
			return "", nil, false
		}
		return mime, b, true
	}
}
