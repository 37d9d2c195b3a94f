package controlplane

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"mnote/controlplane/api"
	"mnote/internal/inertmd"
	"mnote/internal/l10n"
)

// PageCSP is the Content-Security-Policy of share pages: no scripts, no
// requests of any kind; only the page's own inline CSS and data: images.
const PageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

// pageMarkdownBudget bounds the bytes of entry text one page view renders
// as Markdown; the texts after it are shown preformatted, so the cost of
// a view stays bounded however large the share (maxShareBody).
const pageMarkdownBudget = 2 << 20

//go:embed page.html
var pageHTML string

// pageTmpl escapes every text it is given (html/template); the only HTML
// it takes as is, pageEntry.HTML, comes from inertmd, whose output links,
// loads and runs nothing.
var pageTmpl = template.Must(template.New("page").Parse(pageHTML))

// pageData is what the share page shows, in the viewer's language.
type pageData struct {
	Lang     l10n.Locale
	NotFound bool
	Title    string
	Meta     string
	Entries  []pageEntry
}

// T is a message of the page's language (for the template).
func (d pageData) T(key string, args ...any) string { return d.Lang.T(key, args...) }

// pageEntry is an entry of the thread ready to show.
type pageEntry struct {
	Kind     string // a CSS class: one of the api.Entry* kinds, else "other"
	Label    string
	Title    string
	ToolKind string
	Status   string
	HTML     template.HTML // the text, rendered by inertmd
}

// newPageData is the page of a share's snapshot in locale l.
func newPageData(l l10n.Locale, snap api.ShareSnapshot, shared, expires time.Time) pageData {
	d := pageData{Lang: l, Title: snap.Title}
	if d.Title == "" {
		d.Title = l.T("share.title_shared")
	}
	meta := ""
	add := func(s string) {
		if meta != "" {
			meta += " · "
		}
		meta += s
	}
	if snap.Runtime != "" {
		add(l.T("share.agent", snap.Runtime))
	}
	if !snap.CreatedAt.IsZero() {
		add(l.T("share.started", l.DateUTC(snap.CreatedAt)))
	}
	if !shared.IsZero() {
		add(l.T("share.shared", l.DateUTC(shared)))
	}
	if !expires.IsZero() {
		add(l.T("share.expires", l.DateUTC(expires)))
	}
	d.Meta = meta
	budget := pageMarkdownBudget
	for _, en := range snap.Entries {
		pe := pageEntry{Kind: en.Kind, Label: entryLabel(l, en.Kind), Title: en.Title}
		switch en.Kind {
		case api.EntryUser, api.EntryAssistant, api.EntryThought, api.EntryTool, api.EntryPlan:
		default:
			pe.Kind = "other"
		}
		if en.Kind == api.EntryTool {
			if pe.Title == "" {
				pe.Title = l.T("entry.tool")
			}
			if en.ToolKind != "" {
				pe.ToolKind = l.ToolKind(en.ToolKind)
			}
			pe.Status = l.ToolStatus(en.Status)
		}
		if en.Text != "" {
			if len(en.Text) <= budget {
				budget -= len(en.Text)
				pe.HTML = template.HTML(inertmd.RenderWith(en.Text, inertmd.Options{StrictBreaks: snap.StrictBreaks}))
			} else {
				budget = 0
				pe.HTML = template.HTML(inertmd.Preformatted(en.Text))
			}
		}
		d.Entries = append(d.Entries, pe)
	}
	return d
}

// entryLabel is who or what an entry is, in l.
func entryLabel(l l10n.Locale, kind string) string {
	switch kind {
	case api.EntryUser:
		return l.T("entry.you")
	case api.EntryAssistant:
		return l.T("entry.assistant")
	case api.EntryThought:
		return l.T("entry.thought")
	case api.EntryTool:
		return l.T("entry.tool")
	case api.EntryPlan:
		return l.T("entry.plan")
	}
	return kind
}

// sharePage serves GET /s/{token}: the read-only page of a share, or a
// 404 page when the share is unknown, revoked or expired, in the language
// the viewer's browser asks for (Accept-Language: Chinese, else English).
func (s *Server) sharePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", PageCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Robots-Tag", "noindex, nofollow")
	// Revoking must take effect at once: no cache may keep a copy.
	h.Set("Cache-Control", "no-store")
	h.Set("Vary", "Accept-Language")
	l := l10n.FromAcceptLanguage(r.Header.Get("Accept-Language"))
	token := r.PathValue("token")
	if !looksLikeShareToken(token) {
		s.renderPage(w, r, http.StatusNotFound, pageData{Lang: l, NotFound: true})
		return
	}
	sh, err := s.store.ShareByTokenHash(r.Context(), HashToken(token), s.now())
	if errors.Is(err, ErrNotFound) {
		s.renderPage(w, r, http.StatusNotFound, pageData{Lang: l, NotFound: true})
		return
	}
	if err != nil {
		s.log.Error("store failure", "route", r.Pattern, "err", err)
		http.Error(w, l.T("share.read_failed"), http.StatusInternalServerError)
		return
	}
	var snap api.ShareSnapshot
	if err := json.Unmarshal(sh.Snapshot, &snap); err != nil {
		s.log.Error("share snapshot unreadable", "share", sh.ID, "err", err)
		http.Error(w, l.T("share.unreadable"), http.StatusInternalServerError)
		return
	}
	s.renderPage(w, r, http.StatusOK, newPageData(l, snap, sh.CreatedAt, sh.ExpiresAt))
}

func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, status int, d pageData) {
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, d); err != nil {
		s.log.Error("render share page", "err", err)
		http.Error(w, d.Lang.T("share.render_failed"), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}
