package controlplane

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"mnote/controlplane/api"
	"mnote/internal/inertmd"
	"mnote/internal/l10n"
)

// PageCSP is the Content-Security-Policy of share pages: no requests of
// any kind; only the page's own inline CSS, data: images, and the one
// inline script of page.html (by its hash), which writes the page's times
// in the viewer's time zone. No other script can run, inline or not.
var PageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '" + scriptHash(pageHTML) + "'"

// scriptHash is the CSP source of the one <script> of page (its sha256).
func scriptHash(page string) string {
	_, rest, ok := strings.Cut(page, "<script>")
	body, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 || strings.Contains(rest[len(body):], "<script") {
		panic("page.html must hold exactly one <script>")
	}
	sum := sha256.Sum256([]byte(body))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

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
	Meta     template.HTML // escaped text and <time> elements
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
	var meta []string
	if snap.Runtime != "" {
		meta = append(meta, template.HTMLEscapeString(l.T("share.agent", snap.Runtime)))
	}
	for _, at := range []struct {
		key string
		t   time.Time
	}{{"share.started", snap.CreatedAt}, {"share.shared", shared}, {"share.expires", expires}} {
		if !at.t.IsZero() {
			meta = append(meta, timeMessage(l, at.key, at.t))
		}
	}
	d.Meta = template.HTML(strings.Join(meta, " · "))
	budget := pageMarkdownBudget
	for _, en := range snap.Entries {
		pe := pageEntry{Kind: en.Kind, Label: entryLabel(l, en.Kind), Title: en.Title}
		switch en.Kind {
		case api.EntryUser, api.EntryAssistant, api.EntryThought, api.EntryTool, api.EntryPlan, api.EntryQuestion:
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
		if en.Kind == api.EntryQuestion {
			pe.Status = l.QuestionStatus(en.Status)
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

// timeMarker stands for the time in a message until it is escaped.
const timeMarker = "\x00"

// timeMessage is the message key with t in it as a <time> element: its
// datetime the instant (RFC 3339, UTC), its text the instant in UTC in l
// ("1 Dec 2026 15:04 UTC"), which the page's script rewrites in the
// viewer's time zone. The message's own words are escaped.
func timeMessage(l l10n.Locale, key string, t time.Time) string {
	before, after, _ := strings.Cut(l.T(key, timeMarker), timeMarker)
	t = t.UTC()
	return template.HTMLEscapeString(before) +
		`<time datetime="` + t.Format(time.RFC3339) + `">` + template.HTMLEscapeString(l.DateUTC(t)) + `</time>` +
		template.HTMLEscapeString(after)
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
	case api.EntryQuestion:
		return l.T("export.question_asked")
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
