package app

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"

	"mnote/acp"
	"mnote/app/shared"
	"mnote/thread"
	"mnote/workspace"
)

// PromptContext is the open file (and selection) the page offers with a
// prompt (API.md "sessions.prompt").
type PromptContext struct {
	Path      string     `json:"path"`
	Selection *Selection `json:"selection,omitempty"`
}

// Selection is the selected text of the open file.
type Selection struct {
	Text     string `json:"text"`
	FromLine int    `json:"fromLine"`
	ToLine   int    `json:"toLine"`
}

// maxContextFiles bounds the files one prompt carries.
const maxContextFiles = 20

// attachment is a workspace file going with a prompt, read when the
// prompt was accepted (an open buffer's unsaved text when there is one).
type attachment struct {
	abs, rel, text string
}

// promptParts is what goes with a prompt's text.
type promptParts struct {
	files     []attachment
	selection *Selection
	selPath   string
	// earlier: a fork's earlier turns, for an agent that did not fork its
	// session (fork.go); earlierFrom is the original session.
	earlier, earlierFrom string
	// images: attached by the page; noteImages: mentioned image files and
	// the images mentioned notes show (images.go). imagesOK: the turn's
	// agent takes them (set by prepareImages).
	images, noteImages []promptImage
	imagesOK           bool
	// share: what members see beyond the projection's minimum, in a
	// shared session (the actor's choice).
	share shared.Share
}

// readParts reads the context file and the mentions from the open
// workspace; a path outside it, missing or unreadable is the caller's
// error (nothing is sent).
func (s *Services) readParts(ctx *PromptContext, mentions []string) (*promptParts, *Error) {
	if ctx == nil && len(mentions) == 0 {
		return nil, nil
	}
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	paths := []string{}
	if ctx != nil && ctx.Path != "" {
		paths = append(paths, ctx.Path)
	}
	for _, m := range mentions {
		m = strings.TrimPrefix(strings.TrimSpace(m), "@")
		if m != "" && !contains(paths, m) {
			paths = append(paths, m)
		}
	}
	if len(paths) > maxContextFiles {
		return nil, badRequest("a prompt can carry at most %d files, not %d", maxContextFiles, len(paths)).why(ReasonTooManyFiles, "max", strconv.Itoa(maxContextFiles), "count", strconv.Itoa(len(paths)))
	}
	p := &promptParts{}
	for _, rel := range paths {
		if isImagePath(rel) {
			if img, ok := readImageFile(w, rel); ok {
				if len(p.noteImages) < maxImages && !p.hasImage(img.hash) {
					img.direct = true
					p.noteImages = append(p.noteImages, img)
				}
				continue
			}
		}
		text, err := readForPrompt(w, rel)
		if err != nil {
			return nil, workspaceError("attach "+rel, err).with("path", rel)
		}
		p.files = append(p.files, attachment{abs: w.Abs(rel), rel: rel, text: text})
	}
	if ctx != nil && ctx.Selection != nil && strings.TrimSpace(ctx.Selection.Text) != "" {
		p.selection, p.selPath = ctx.Selection, ctx.Path
	}
	p.addNoteImages(w)
	return p, nil
}

// readForPrompt is an open buffer's text (unsaved edits included) or the
// file on disk.
func readForPrompt(w *workspace.Workspace, rel string) (string, error) {
	if st, ok := w.Buffers().Get(rel); ok && !st.Deleted {
		return st.Content, nil
	}
	b, err := w.ReadFile(rel)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// blocks makes the prompt's content: the text, the selection quoted, and
// each file as an embedded resource when the agent takes them
// (promptCapabilities.embeddedContext), else as a resource link.
func (p *promptParts) blocks(text string, a *acp.Agent) []thread.ContentBlock {
	out := []thread.ContentBlock{{Type: "text", Text: text}}
	if p == nil {
		return out
	}
	if text == "" && len(p.images) > 0 {
		out = out[:0] // an image alone
	}
	if sel := p.selection; sel != nil {
		out = append(out, thread.ContentBlock{Type: "text", Text: fmt.Sprintf(
			"Selected in %s (lines %d–%d):\n```\n%s\n```", p.selPath, sel.FromLine, sel.ToLine, strings.TrimRight(sel.Text, "\n"))})
	}
	embed := a != nil && a.Init.AgentCapabilities.PromptCapabilities.EmbeddedContext
	for _, f := range p.files {
		uri := (&url.URL{Scheme: "file", Path: f.abs}).String()
		mime := mimeOf(f.rel)
		if embed {
			res, _ := json.Marshal(map[string]string{"uri": uri, "mimeType": mime, "text": f.text})
			out = append(out, thread.ContentBlock{Type: "resource", Resource: res})
			continue
		}
		out = append(out, thread.ContentBlock{Type: "resource_link", URI: uri, Name: path.Base(f.rel), MimeType: mime})
	}
	out = append(out, p.imageBlocks()...)
	if p.earlier != "" {
		out = append(out, p.earlierBlock(a))
	}
	return out
}

func mimeOf(rel string) string {
	switch strings.ToLower(path.Ext(rel)) {
	case ".md", ".markdown":
		return "text/markdown"
	default:
		return "text/plain"
	}
}
