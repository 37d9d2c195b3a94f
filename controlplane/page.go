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
)

// PageCSP is the Content-Security-Policy of share pages: no scripts, no
// requests of any kind; only the page's own inline CSS and data: images.
const PageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

//go:embed page.html
var pageHTML string

// pageTmpl escapes every text it is given (html/template); entry texts
// are shown as preformatted text, so Markdown and HTML in them stay inert.
var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"date": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2 Jan 2006 15:04 UTC")
	},
	"label": func(kind string) string {
		switch kind {
		case api.EntryUser:
			return "You"
		case api.EntryAssistant:
			return "Assistant"
		case api.EntryThought:
			return "Thought"
		case api.EntryTool:
			return "Tool call"
		case api.EntryPlan:
			return "Plan"
		}
		return kind
	},
}).Parse(pageHTML))

type pageData struct {
	NotFound bool
	Snapshot api.ShareSnapshot
	Shared   time.Time
	Expires  time.Time
}

// sharePage serves GET /s/{token}: the read-only page of a share, or a
// 404 page when the share is unknown, revoked or expired.
func (s *Server) sharePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", PageCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Robots-Tag", "noindex, nofollow")
	// Revoking must take effect at once: no cache may keep a copy.
	h.Set("Cache-Control", "no-store")
	token := r.PathValue("token")
	if !looksLikeShareToken(token) {
		s.renderPage(w, r, http.StatusNotFound, pageData{NotFound: true})
		return
	}
	sh, err := s.store.ShareByToken(r.Context(), token, s.now())
	if errors.Is(err, ErrNotFound) {
		s.renderPage(w, r, http.StatusNotFound, pageData{NotFound: true})
		return
	}
	if err != nil {
		s.log.Error("store failure", "route", r.Pattern, "err", err)
		http.Error(w, "The share could not be read; try again later.", http.StatusInternalServerError)
		return
	}
	var snap api.ShareSnapshot
	if err := json.Unmarshal(sh.Snapshot, &snap); err != nil {
		s.log.Error("share snapshot unreadable", "share", sh.ID, "err", err)
		http.Error(w, "The share could not be read.", http.StatusInternalServerError)
		return
	}
	s.renderPage(w, r, http.StatusOK, pageData{Snapshot: snap, Shared: sh.CreatedAt, Expires: sh.ExpiresAt})
}

func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, status int, d pageData) {
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, d); err != nil {
		s.log.Error("render share page", "err", err)
		http.Error(w, "The share could not be shown.", http.StatusInternalServerError)
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
