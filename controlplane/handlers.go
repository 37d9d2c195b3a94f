package controlplane

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"mnote/controlplane/api"
)

const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

func (s *Server) me(w http.ResponseWriter, r *http.Request, p Principal) error {
	writeJSON(w, http.StatusOK, api.Me{ID: p.ID, Name: p.Name})
	return nil
}

// sessionID returns the checked {id} of the path.
func sessionID(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if !validID(id) {
		return "", badRequest("the session id in the path must be 1-%d characters of A-Z a-z 0-9 _ -", maxIDLen)
	}
	return id, nil
}

func (s *Server) putSession(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r, maxSessionBody)
	if err != nil {
		return err
	}
	rec, err := decodeSession(body, id)
	if err != nil {
		return err
	}
	stored, err := s.store.PutSession(r.Context(), p.ID, rec)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			// Another user's id: the same answer as for a missing one
			// would be a lie here, so say only that it cannot be used.
			return notFound("session (that id cannot be used; make a new one)")
		}
		return err
	}
	writeJSON(w, http.StatusOK, stored)
	return nil
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	rec, err := s.store.GetSession(r.Context(), p.ID, id)
	if errors.Is(err, ErrNotFound) {
		return notFound("session")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rec)
	return nil
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	if err := s.store.DeleteSession(r.Context(), p.ID, id); errors.Is(err, ErrNotFound) {
		return notFound("session")
	} else if err != nil {
		return err
	}
	s.hub.ring(id) // a shared session's members' live streams end
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, p Principal) error {
	q := r.URL.Query()
	limit := defaultPageSize
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return badRequest("query parameter \"limit\" must be an integer from 1 to %d (got %q)", maxPageSize, v)
		}
		limit = min(n, maxPageSize)
	}
	var after Cursor
	if v := q.Get("cursor"); v != "" {
		c, err := decodeCursor(v)
		if err != nil {
			return badRequest("query parameter \"cursor\" is not a cursor this server gave out; start again without it")
		}
		after = c
	}
	// One more than asked tells whether there is a next page.
	recs, err := s.store.ListSessions(r.Context(), p.ID, limit+1, after)
	if err != nil {
		return err
	}
	page := api.SessionPage{Sessions: recs}
	if len(recs) > limit {
		page.Sessions = recs[:limit]
		last := recs[limit-1]
		page.NextCursor = encodeCursor(Cursor{UpdatedAt: last.UpdatedAt, ID: last.ID})
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// A cursor is base64url("<updatedAt unix ns>.<id>"): opaque to clients.
func encodeCursor(c Cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.UpdatedAt.UnixNano(), 10) + "." + c.ID))
}

func decodeCursor(s string) (Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, err
	}
	ns, id, ok := strings.Cut(string(b), ".")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || !validID(id) {
		return Cursor{}, fmt.Errorf("bad cursor")
	}
	return Cursor{UpdatedAt: time.Unix(0, n).UTC(), ID: id}, nil
}

func (s *Server) shareURL(r *http.Request, token string) string {
	base := s.baseURL
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	return base + "/s/" + token
}

// shareOut is a share as the API gives it. Its token and URL are known
// only when it is created (token set): the store keeps the token's hash,
// so a list has neither, and the client keeps its own record of the URL.
func (s *Server) shareOut(r *http.Request, sh StoredShare, token string) api.Share {
	out := api.Share{ID: sh.ID, SessionID: sh.SessionID, CreatedAt: sh.CreatedAt, ExpiresAt: sh.ExpiresAt}
	if token != "" {
		out.Token, out.URL = token, s.shareURL(r, token)
	}
	return out
}

func (s *Server) createShare(w http.ResponseWriter, r *http.Request, p Principal) error {
	body, err := readBody(w, r, maxShareBody)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	req, err := decodeShare(body, now)
	if err != nil {
		return err
	}
	token, err := newShareToken()
	if err != nil {
		return err
	}
	sh := StoredShare{
		ID: newID("shr_"), TokenHash: HashToken(token), UserID: p.ID, SessionID: req.SessionID,
		Snapshot: req.Snapshot, CreatedAt: now, ExpiresAt: req.ExpiresAt,
	}
	if err := s.store.CreateShare(r.Context(), p.ID, sh); errors.Is(err, ErrNotFound) {
		return notFound("session")
	} else if err != nil {
		return err
	}
	// The stores keep nanoseconds: answer what a later list will say.
	sh.CreatedAt, sh.ExpiresAt = fromNanos(nanos(now)), fromNullNanos(nullNanos(req.ExpiresAt))
	writeJSON(w, http.StatusCreated, s.shareOut(r, sh, token))
	return nil
}

func (s *Server) listShares(w http.ResponseWriter, r *http.Request, p Principal) error {
	shares, err := s.store.ListShares(r.Context(), p.ID, s.now())
	if err != nil {
		return err
	}
	out := api.ShareList{Shares: make([]api.Share, 0, len(shares))}
	for _, sh := range shares {
		out.Shares = append(out.Shares, s.shareOut(r, sh, ""))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) deleteShare(w http.ResponseWriter, r *http.Request, p Principal) error {
	id := r.PathValue("id")
	if len(id) > 100 {
		return notFound("share")
	}
	if err := s.store.DeleteShare(r.Context(), p.ID, id); errors.Is(err, ErrNotFound) {
		return notFound("share")
	} else if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// copyResult is api.CopyResult with the snapshot as stored.
type copyResult struct {
	Session  api.SessionRecord `json:"session"`
	Snapshot json.RawMessage   `json:"snapshot"`
}

func (s *Server) copyShare(w http.ResponseWriter, r *http.Request, p Principal) error {
	body, err := readBody(w, r, maxEmptyBody)
	if err != nil {
		return err
	}
	if err := decodeNoBody(body); err != nil {
		return err
	}
	token := r.PathValue("token")
	if !looksLikeShareToken(token) {
		return notFound("share")
	}
	now := s.now().UTC()
	rec, sh, err := s.store.CopyShare(r.Context(), p.ID, HashToken(token), now, func(sh StoredShare) (api.SessionRecord, error) {
		return copiedSession(sh, now)
	})
	if errors.Is(err, ErrNotFound) {
		return notFound("share")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, copyResult{Session: rec, Snapshot: sh.Snapshot})
	return nil
}

// copiedSession is the record of a new session made from a share: a new
// id, version 1, the runtime as a label only (the server binds nothing to
// any agent), no workspace, counts taken from the snapshot.
func copiedSession(sh StoredShare, now time.Time) (api.SessionRecord, error) {
	var snap api.ShareSnapshot
	if err := json.Unmarshal(sh.Snapshot, &snap); err != nil {
		return api.SessionRecord{}, fmt.Errorf("share %s: stored snapshot: %w", sh.ID, err)
	}
	rec := api.SessionRecord{
		ID:         newID(""),
		Version:    1,
		Runtime:    snap.Runtime,
		Title:      snap.Title,
		Status:     api.StatusIdle,
		CreatedAt:  fromNanos(nanos(now)),
		UpdatedAt:  fromNanos(nanos(now)),
		CopiedFrom: sh.ID,
	}
	for _, e := range snap.Entries {
		switch e.Kind {
		case api.EntryUser:
			rec.Turns++
			rec.Messages++
		case api.EntryAssistant:
			rec.Messages++
		case api.EntryTool:
			rec.ToolCalls++
		}
	}
	// The snapshot's text is the client's and may hold anything JSON
	// can (a NUL, say): the same normalization as a PUT.
	return rec.Normalize(), nil
}
