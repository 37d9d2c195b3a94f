package app

import (
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"mnote/workspace"
)

// files.attach saves a file pasted or dropped into a note (API.md), and
// files.image reads an image a note shows, for the preview.

// maxAttachBytes is the largest file files.attach saves: what the
// workspace's writer takes (workspace.MaxFile).
const maxAttachBytes = workspace.MaxFile

// maxAttachTries bounds the de-duplicated names tried ("a 1.png", "a 2.png", …).
const maxAttachTries = 1000

type attachArgs struct {
	Path string `json:"path"` // the name wanted, workspace-relative
	Data string `json:"data"` // the bytes, base64
}

// Attached is where files.attach saved the file.
type Attached struct {
	Path string `json:"path"`
}

func (s *Services) filesAttach(_ context.Context, a attachArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	// Checked before decoding: a huge body is refused without being held twice.
	if base64.StdEncoding.DecodedLen(len(a.Data)) > maxAttachBytes+3 {
		return nil, attachTooLarge(a.Path, base64.StdEncoding.DecodedLen(len(a.Data)))
	}
	data, err := base64.StdEncoding.DecodeString(a.Data)
	if err != nil {
		return nil, badRequest("data is not base64: %v", err).why(ReasonInvalidArguments)
	}
	if len(data) > maxAttachBytes {
		return nil, attachTooLarge(a.Path, len(data))
	}
	if strings.HasSuffix(a.Path, "/") || path.Base(a.Path) == "." {
		return nil, badRequest("path must name a file, not %q", a.Path).why(ReasonInvalidArguments)
	}
	// The workspace's own writer confines the path (no "..", no absolute
	// path, no link out, no denied folder) and never overwrites: a name
	// taken gets " 1", " 2", … before its extension.
	for i := 0; i < maxAttachTries; i++ {
		p := dedupName(a.Path, i)
		err := w.CreateFile(p, data)
		if err == nil {
			return Attached{Path: path.Clean(strings.TrimPrefix(p, "./"))}, nil
		}
		if !errors.Is(err, workspace.ErrExists) {
			return nil, workspaceError("save "+a.Path, err).with("path", a.Path)
		}
	}
	return nil, newError(CodeConflict, "%s and %d other names for it are taken: %w", a.Path, maxAttachTries-1, fs.ErrExist).
		why(ReasonFileExists, "path", a.Path)
}

func attachTooLarge(p string, n int) *Error {
	return newError(CodeBadRequest, "%s is %d bytes, over the %d MiB a pasted or dropped file may be: make it smaller, or copy it into the folder and link to it: %w",
		p, n, maxAttachBytes>>20, workspace.ErrTooLarge).why(ReasonTooLarge, "path", p)
}

// dedupName is p with " i" before its extension (p itself for 0):
// "attachments/a b.png", "attachments/a b 1.png", …
func dedupName(p string, i int) string {
	if i == 0 {
		return p
	}
	dir, base := path.Split(p)
	ext := path.Ext(base)
	if ext == base { // ".png": a name that is all extension
		ext = ""
	}
	return dir + strings.TrimSuffix(base, ext) + " " + strconv.Itoa(i) + ext
}

// filesImage reads an image of the workspace for the notes preview: PNG,
// JPEG, GIF or WebP by its bytes, at most maxAttachBytes, confined like
// every read.
func (s *Services) filesImage(_ context.Context, a pathArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	b, err := w.ReadFile(a.Path)
	if err != nil {
		return nil, workspaceError("read "+a.Path, err).with("path", a.Path)
	}
	mime := sniffImage(b)
	if mime == "" {
		return nil, badRequest("%s is not a PNG, JPEG, GIF or WebP image", a.Path).why(ReasonInvalidArguments).with("path", a.Path)
	}
	return ImageData{MimeType: mime, Data: base64.StdEncoding.EncodeToString(b)}, nil
}
