package app

import (
	"context"
	"errors"
	"path"
	"strings"

	"mnote/internal/opener"
)

// files.openInApp opens an attachment of the workspace — a PDF, an office
// document, audio or video — in the program the desktop chooses for it,
// as a note's link to it is followed. Only these kinds are opened: never a
// program, a script, a desktop entry, a web page or anything else a note
// (or an agent writing one) could link to and a click would run.

// openInAppExt are the kinds of file files.openInApp opens.
var openInAppExt = map[string]bool{
	".pdf": true, ".epub": true, ".djvu": true,
	".doc": true, ".docx": true, ".xls": true, ".xlsx": true, ".ppt": true, ".pptx": true,
	".odt": true, ".ods": true, ".odp": true, ".rtf": true, ".csv": true,
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true, ".tif": true, ".tiff": true, ".heic": true,
	".mp3": true, ".m4a": true, ".wav": true, ".ogg": true, ".oga": true, ".opus": true, ".flac": true, ".aac": true,
	".mp4": true, ".m4v": true, ".webm": true, ".mov": true, ".mkv": true, ".avi": true,
}

// OpensInApp reports whether files.openInApp opens a file of this name.
func OpensInApp(name string) bool { return openInAppExt[strings.ToLower(path.Ext(name))] }

func (s *Services) filesOpenInApp(_ context.Context, a pathArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	if !OpensInApp(a.Path) {
		return nil, badRequest("%s is not a document, picture, audio or video file mnote opens in another program: open it from your file manager", a.Path).
			why(ReasonNotOpenable, "path", a.Path)
	}
	abs, err := w.RegularFile(a.Path)
	if err != nil {
		return nil, workspaceError("open "+a.Path, err).with("path", a.Path)
	}
	open := s.cfg.OpenInApp
	if open == nil {
		open = opener.Open
	}
	if err := open(abs); err != nil {
		code := CodeInternal
		if errors.Is(err, opener.ErrNoDisplay) {
			code = CodeBadRequest
		}
		return nil, newError(code, "open %s in another program: %w", a.Path, err).why(ReasonNoOpener, "path", a.Path)
	}
	return struct{}{}, nil
}
