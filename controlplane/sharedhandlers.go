package controlplane

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"mnote/controlplane/api"
)

// Limits of shared sessions.
const (
	maxCiphertext    = 1 << 20                   // one entry's ciphertext (413 beyond)
	maxEntryBody     = maxCiphertext*4/3 + 4<<10 // its JSON, base64 and metadata
	maxStatement     = 64 << 10                  // a signed roster or device statement
	maxStatementBody = maxStatement*4/3 + 4<<10
	maxEntriesPage   = 1000 // entries in one GET (a page's ciphertexts stay under maxEntriesBytes)
	maxAccountLen    = 100
	maxKindLen       = 32
)

// sharedPaths are the shared sessions' paths and their methods (for 405).
var sharedPaths = map[string]string{
	"/v1/shared":                          "GET",
	"/v1/sessions/{id}/shared":            "GET, PUT",
	"/v1/sessions/{id}/members":           "GET",
	"/v1/sessions/{id}/members/{account}": "PUT, DELETE",
	"/v1/sessions/{id}/roster":            "GET",
	"/v1/sessions/{id}/entries":           "GET",
	"/v1/sessions/{id}/entries/{seq}":     "PUT",
	"/v1/sessions/{id}/lease":             "GET, POST",
	"/v1/sessions/{id}/lease/{run}":       "DELETE",
	"/v1/sessions/{id}/live":              "GET",
	"/v1/devices":                         "GET",
	"/v1/devices/{device}":                "PUT, DELETE",
	"/v1/accounts/{account}/devices":      "GET",
	"/v1/sessions/{id}/keys/{epoch}":      "PUT",
	"/v1/sessions/{id}/keys":              "GET",
	"/v1/pairings":                        "POST",
	"/v1/pairings/join":                   "POST",
	"/v1/pairings/{pairing}/messages":     "GET, POST",
}

func (s *Server) sharedRoutes() {
	m := s.mux
	m.HandleFunc("GET /v1/shared", s.api(s.listShared))
	m.HandleFunc("GET /v1/sessions/{id}/shared", s.api(s.getShared))
	m.HandleFunc("PUT /v1/sessions/{id}/shared", s.api(s.shareSession))
	m.HandleFunc("GET /v1/sessions/{id}/members", s.api(s.listMembers))
	m.HandleFunc("PUT /v1/sessions/{id}/members/{account}", s.api(s.setMember))
	m.HandleFunc("DELETE /v1/sessions/{id}/members/{account}", s.api(s.removeMember))
	m.HandleFunc("GET /v1/sessions/{id}/roster", s.api(s.getRoster))
	m.HandleFunc("POST /v1/sessions/{id}/roster", s.api(s.appendRoster))
	m.HandleFunc("GET /v1/sessions/{id}/entries", s.api(s.listEntries))
	m.HandleFunc("PUT /v1/sessions/{id}/entries/{seq}", s.api(s.appendEntry))
	m.HandleFunc("GET /v1/sessions/{id}/lease", s.api(s.getLease))
	m.HandleFunc("POST /v1/sessions/{id}/lease", s.api(s.requestLease))
	m.HandleFunc("DELETE /v1/sessions/{id}/lease/{run}", s.api(s.releaseLease))
	m.HandleFunc("GET /v1/sessions/{id}/live", s.api(s.live))
	s.deviceRoutes()
}

// memberErr turns "not a member" into the 404 of a missing session.
func memberErr(err error) error {
	if errors.Is(err, ErrNotFound) {
		return notFound("session")
	}
	return err
}

// queryInt reads an integer query parameter in [lo, hi] (def when absent).
func queryInt(r *http.Request, name string, def, lo, hi int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, badRequest("query parameter %q must be an integer from %d to %d (got %q)", name, lo, hi, v)
	}
	return n, nil
}

// accountName returns the checked {account} of the path.
func accountName(r *http.Request) (string, error) {
	a := r.PathValue("account")
	if a == "" || len(a) > maxAccountLen || !utf8.ValidString(a) {
		return "", badRequest("the account name in the path must be 1-%d bytes of UTF-8", maxAccountLen)
	}
	return a, nil
}

// checkBlob refuses an empty or oversized opaque field.
func checkBlob(field string, b []byte, limit int) error {
	if len(b) == 0 {
		return badRequest("field %q is required (base64)", field)
	}
	if len(b) > limit {
		return &httpError{http.StatusRequestEntityTooLarge, api.CodeTooLarge, fmt.Sprintf("field %q is over the limit of %d bytes", field, limit)}
	}
	return nil
}

func (s *Server) listShared(w http.ResponseWriter, r *http.Request, p Principal) error {
	list, err := s.store.SharedSessions(r.Context(), p.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.SharedSessionList{Sessions: list})
	return nil
}

func (s *Server) getShared(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	sh, err := s.store.SharedSession(r.Context(), p.ID, id)
	if err != nil {
		return memberErr(err)
	}
	writeJSON(w, http.StatusOK, sh)
	return nil
}

func (s *Server) shareSession(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r, maxStatementBody)
	if err != nil {
		return err
	}
	var in api.ShareSessionRequest
	if err := decodeStrict(body, &in, "the body", "statement"); err != nil {
		return err
	}
	if err := checkBlob("statement", in.Statement, maxStatement); err != nil {
		return err
	}
	sh, err := s.store.ShareSession(r.Context(), p.ID, id, in.Statement, s.now().UTC())
	if err != nil {
		return memberErr(err)
	}
	s.hub.ring(id)
	writeJSON(w, http.StatusOK, sh)
	return nil
}

func (s *Server) listMembers(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	list, err := s.store.Members(r.Context(), p.ID, id)
	if err != nil {
		return memberErr(err)
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) setMember(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	account, err := accountName(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r, maxStatementBody)
	if err != nil {
		return err
	}
	var in api.SetMemberRequest
	if err := decodeStrict(body, &in, "the body", "role, statement"); err != nil {
		return err
	}
	switch in.Role {
	case api.RoleEditor, api.RoleCommenter, api.RoleViewer:
	default:
		return badRequest("field \"role\" must be editor, commenter or viewer (got %q); a session has one owner", in.Role)
	}
	if err := checkBlob("statement", in.Statement, maxStatement); err != nil {
		return err
	}
	m, err := s.store.SetMember(r.Context(), p.ID, id, account, in.Role, in.Statement, s.now().UTC())
	if errors.Is(err, ErrForbidden) {
		return &httpError{http.StatusForbidden, api.CodeForbidden, "only the session's owner adds and changes members"}
	}
	if err != nil {
		return memberErr(err)
	}
	s.hub.ring(id)
	writeJSON(w, http.StatusOK, m)
	return nil
}

func (s *Server) removeMember(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	account, err := accountName(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r, maxStatementBody)
	if err != nil {
		return err
	}
	var in api.RemoveMemberRequest
	if err := decodeStrict(body, &in, "the body", "statement"); err != nil {
		return err
	}
	if err := checkBlob("statement", in.Statement, maxStatement); err != nil {
		return err
	}
	err = s.store.RemoveMember(r.Context(), p.ID, id, account, in.Statement, s.now().UTC())
	if errors.Is(err, ErrForbidden) {
		return &httpError{http.StatusForbidden, api.CodeForbidden, "only the session's owner removes members"}
	}
	if err != nil {
		return memberErr(err)
	}
	// The removed member's live streams hear it and close.
	s.hub.ring(id)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// appendRoster appends one of the owner's signed statements that changes
// no member (a new epoch) to the roster log.
func (s *Server) appendRoster(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r, maxStatementBody)
	if err != nil {
		return err
	}
	var in api.AppendRosterRequest
	if err := decodeStrict(body, &in, "the body", "statement"); err != nil {
		return err
	}
	if err := checkBlob("statement", in.Statement, maxStatement); err != nil {
		return err
	}
	seq, err := s.store.AppendRoster(r.Context(), p.ID, id, in.Statement, s.now().UTC())
	if errors.Is(err, ErrForbidden) {
		return &httpError{http.StatusForbidden, api.CodeForbidden, "only the session's owner signs its roster"}
	}
	if err != nil {
		return memberErr(err)
	}
	s.hub.ring(id)
	writeJSON(w, http.StatusOK, api.RosterStatement{Seq: seq})
	return nil
}

func (s *Server) getRoster(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	after, err := queryInt(r, "after", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", maxPageSize, 1, maxPageSize)
	if err != nil {
		return err
	}
	page, err := s.store.Roster(r.Context(), p.ID, id, after, int(limit))
	if err != nil {
		return memberErr(err)
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// validKind: 1-32 characters of a-z, 0-9 and -.
func validKind(k string) bool {
	if k == "" || len(k) > maxKindLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func (s *Server) appendEntry(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	seq, err := strconv.ParseInt(r.PathValue("seq"), 10, 64)
	if err != nil || seq < 1 {
		return badRequest("the sequence number in the path must be an integer >= 1")
	}
	body, err := readBody(w, r, maxEntryBody)
	if err != nil {
		return err
	}
	var in api.AppendEntryRequest
	if err := decodeStrict(body, &in, "the body", "epoch, kind, runId, authorDevice, ciphertext"); err != nil {
		return err
	}
	switch {
	case in.Epoch < 1:
		return badRequest("field \"epoch\" must be an integer >= 1")
	case in.Kind != api.KindComment && !isRunKind(in.Kind):
		return badRequest("field \"kind\" must be comment or a run's kind (%v) (got %q)", api.RunKinds, in.Kind)
	case !validID(in.AuthorDevice):
		return badRequest("field \"authorDevice\" must be 1-%d characters of A-Z a-z 0-9 _ -", maxIDLen)
	case in.RunID != "" && !validID(in.RunID), isRunKind(in.Kind) && in.RunID == "":
		return badRequest("field \"runId\" must be 1-%d characters of A-Z a-z 0-9 _ - (required for a run's kinds)", maxIDLen)
	}
	if err := checkBlob("ciphertext", in.Ciphertext, maxCiphertext); err != nil {
		return err
	}
	e, err := s.store.AppendEntry(r.Context(), p.ID, id, api.Entry{
		Seq: seq, Epoch: in.Epoch, Kind: in.Kind, RunID: in.RunID, AuthorDevice: in.AuthorDevice, Ciphertext: in.Ciphertext,
	}, s.now().UTC())
	if errors.Is(err, ErrForbidden) {
		return &httpError{http.StatusForbidden, api.CodeForbidden, "your role in this session does not allow this entry (a viewer appends nothing, a commenter only comments)"}
	}
	if err != nil {
		return memberErr(err)
	}
	s.hub.ring(id)
	e.Ciphertext = nil // the caller has it
	writeJSON(w, http.StatusCreated, e)
	return nil
}

func (s *Server) listEntries(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	after, err := queryInt(r, "after", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", maxEntriesPage, 1, maxEntriesPage)
	if err != nil {
		return err
	}
	page, err := s.store.Entries(r.Context(), p.ID, id, after, int(limit))
	if err != nil {
		return memberErr(err)
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func (s *Server) getLease(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	st, changed, err := s.store.LeaseState(r.Context(), p.ID, id, s.now().UTC(), s.leaseTTL)
	if err != nil {
		return memberErr(err)
	}
	if changed {
		s.hub.ring(id)
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

func (s *Server) requestLease(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r, maxEmptyBody)
	if err != nil {
		return err
	}
	var in api.LeaseRequest
	if err := decodeStrict(body, &in, "the body", "runId, device"); err != nil {
		return err
	}
	if !validID(in.RunID) {
		return badRequest("field \"runId\" must be 1-%d characters of A-Z a-z 0-9 _ -", maxIDLen)
	}
	if in.Device != "" && !validID(in.Device) {
		return badRequest("field \"device\" must be 1-%d characters of A-Z a-z 0-9 _ -", maxIDLen)
	}
	st, changed, err := s.store.RequestLease(r.Context(), p.ID, id, in.RunID, in.Device, s.now().UTC(), s.leaseTTL)
	if errors.Is(err, ErrForbidden) {
		return &httpError{http.StatusForbidden, api.CodeForbidden, "only the owner and editors run turns in a shared session"}
	}
	if err != nil {
		return memberErr(err)
	}
	if changed {
		s.hub.ring(id)
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

func (s *Server) releaseLease(w http.ResponseWriter, r *http.Request, p Principal) error {
	id, err := sessionID(r)
	if err != nil {
		return err
	}
	run := r.PathValue("run")
	if !validID(run) {
		return badRequest("the run id in the path must be 1-%d characters of A-Z a-z 0-9 _ -", maxIDLen)
	}
	st, changed, err := s.store.ReleaseLease(r.Context(), p.ID, id, run, s.now().UTC(), s.leaseTTL)
	if err != nil {
		return memberErr(err)
	}
	if changed {
		s.hub.ring(id)
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}
