package controlplane

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"mnote/controlplane/api"
)

// Body limits of the contract.
const (
	maxSessionBody = 16 << 10 // PUT /v1/sessions/{id}
	maxShareBody   = 5 << 20  // POST /v1/shares
	maxEmptyBody   = 4 << 10  // calls that take no body
)

// Field limits (well inside maxSessionBody).
const (
	maxIDLen   = 64
	maxHashLen = 128
)

// Times outside this range are refused: they are mistakes, and the stores
// keep nanoseconds in an int64.
var (
	minTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// readBody reads a request body of at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, tooLarge(limit)
	}
	if err != nil {
		return nil, badRequest("could not read the request body: %v", err)
	}
	return b, nil
}

func tooLarge(limit int64) error {
	return &httpError{http.StatusRequestEntityTooLarge, api.CodeTooLarge, fmt.Sprintf("the request body is over the limit of %d bytes for this call", limit)}
}

// decodeStrict decodes body, which must be one JSON object, into v,
// refusing unknown fields. what names the value in messages ("the body",
// "snapshot").
func decodeStrict(body []byte, v any, what string, fields string) error {
	if !utf8.Valid(body) {
		return badRequest("%s is not valid UTF-8", what)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return badRequest("%s is empty; send a JSON object", what)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("%s", describeJSONError(err, what, fields))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("%s must be a single JSON value; found more after it", what)
	}
	return nil
}

// describeJSONError turns a decoding error into a message naming the field.
func describeJSONError(err error, what, fields string) string {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("%s is malformed JSON at byte %d: %s", what, syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("%s is malformed JSON: it ends too early", what)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("%s must be a JSON object, not %s", what, typ.Value)
		}
		return fmt.Sprintf("field %q of %s: expected %s, got JSON %s", typ.Field, what, kindOf(typ.Type.Kind().String()), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return fmt.Sprintf("unknown field %s in %s (the user is always the token's; allowed fields: %s)", name, what, fields)
	default:
		return fmt.Sprintf("%s: %s", what, strings.TrimPrefix(err.Error(), "json: "))
	}
}

func kindOf(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"):
		return "an integer"
	case goKind == "string":
		return "a string"
	case goKind == "slice":
		return "an array"
	case goKind == "struct", goKind == "map":
		return "an object"
	default:
		return "a " + goKind
	}
}

// sessionIn is the wire SessionRecord as received; times stay strings so a
// bad one is reported with its field name.
type sessionIn struct {
	ID          string `json:"id"`
	Version     int64  `json:"version"`
	Runtime     string `json:"runtime"`
	WorkspaceID string `json:"workspaceId"`
	Title       string `json:"title"`
	Status      string `json:"status"`
	CreatedAt   string `json:"createdAt"`
	UpdatedAt   string `json:"updatedAt"`
	Turns       int    `json:"turns"`
	Messages    int    `json:"messages"`
	ToolCalls   int    `json:"toolCalls"`
	CopiedFrom  string `json:"copiedFrom"` // the server's; accepted and ignored
}

const sessionFields = "id, version, runtime, workspaceId, title, status, createdAt, updatedAt, turns, messages, toolCalls, copiedFrom"

// decodeSession parses and checks a PUT body for the session pathID.
func decodeSession(body []byte, pathID string) (api.SessionRecord, error) {
	var in sessionIn
	if err := decodeStrict(body, &in, "the body", sessionFields); err != nil {
		return api.SessionRecord{}, err
	}
	if in.ID != "" && in.ID != pathID {
		return api.SessionRecord{}, badRequest("field \"id\" (%q) is not the id in the path (%q)", in.ID, pathID)
	}
	rec := api.SessionRecord{
		ID: pathID, Version: in.Version, Runtime: in.Runtime, WorkspaceID: in.WorkspaceID,
		Title: in.Title, Status: in.Status, Turns: in.Turns, Messages: in.Messages, ToolCalls: in.ToolCalls,
	}
	// The same normalization as the client's: NUL, control characters
	// and lone surrogates (which PostgreSQL refuses) are taken out, long
	// text is cut. The client has done it already, so what it hashed is
	// what is stored.
	rec = rec.Normalize()
	var err error
	switch {
	case in.Version <= 0:
		return rec, badRequest("field \"version\" must be an integer > 0")
	case len(in.WorkspaceID) > maxHashLen || !isHex(in.WorkspaceID):
		return rec, badRequest("field \"workspaceId\" must be a hex hash of at most %d digits (never a path)", maxHashLen)
	case !validStatus(in.Status):
		return rec, badRequest("field \"status\" must be one of idle, running, error, ended (got %q)", in.Status)
	case in.Turns < 0, in.Messages < 0, in.ToolCalls < 0:
		return rec, badRequest("fields \"turns\", \"messages\" and \"toolCalls\" must be >= 0")
	}
	if rec.CreatedAt, err = parseTime("createdAt", in.CreatedAt, true); err != nil {
		return rec, err
	}
	if rec.UpdatedAt, err = parseTime("updatedAt", in.UpdatedAt, true); err != nil {
		return rec, err
	}
	return rec, nil
}

func validStatus(s string) bool {
	switch s {
	case api.StatusIdle, api.StatusRunning, api.StatusError, api.StatusEnded:
		return true
	}
	return false
}

// validID: 1–64 characters of [A-Za-z0-9_-].
func validID(s string) bool {
	if len(s) == 0 || len(s) > maxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func parseTime(field, s string, required bool) (time.Time, error) {
	if s == "" {
		if required {
			return time.Time{}, badRequest("field %q is required (an RFC 3339 time)", field)
		}
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, badRequest("field %q must be an RFC 3339 time like 2026-01-02T15:04:05Z (got %q)", field, s)
	}
	if t.Before(minTime) || !t.Before(maxTime) {
		return time.Time{}, badRequest("field %q is out of range (1970 to 2199)", field)
	}
	return t.UTC(), nil
}

// shareIn is the body of POST /v1/shares. The snapshot is kept as sent.
type shareIn struct {
	SessionID string          `json:"sessionId"`
	Snapshot  json.RawMessage `json:"snapshot"`
	ExpiresAt string          `json:"expiresAt"`
}

type snapshotIn struct {
	Title     string    `json:"title"`
	Runtime   string    `json:"runtime"`
	CreatedAt string    `json:"createdAt"`
	Entries   []entryIn `json:"entries"`
	// StrictBreaks: how the page shows the texts' line breaks (api.ShareSnapshot).
	StrictBreaks bool `json:"strictBreaks"`
}

type entryIn struct {
	Kind     string `json:"kind"`
	Text     string `json:"text"`
	Title    string `json:"title"`
	ToolKind string `json:"toolKind"`
	Status   string `json:"status"`
}

// shareRequest is a checked POST /v1/shares body.
type shareRequest struct {
	SessionID string
	Snapshot  []byte // exactly as sent
	ExpiresAt time.Time
}

// decodeShare parses and checks a POST /v1/shares body.
func decodeShare(body []byte, now time.Time) (shareRequest, error) {
	var in shareIn
	if err := decodeStrict(body, &in, "the body", "sessionId, snapshot, expiresAt"); err != nil {
		return shareRequest{}, err
	}
	if !validID(in.SessionID) {
		return shareRequest{}, badRequest("field \"sessionId\" must be 1-%d characters of A-Z a-z 0-9 _ -", maxIDLen)
	}
	if len(in.Snapshot) == 0 || string(in.Snapshot) == "null" {
		return shareRequest{}, badRequest("field \"snapshot\" is required")
	}
	var snap snapshotIn
	if err := decodeStrict(in.Snapshot, &snap, "snapshot", "title, runtime, createdAt, entries (kind, text, title, toolKind, status), strictBreaks"); err != nil {
		return shareRequest{}, err
	}
	if _, err := parseTime("snapshot.createdAt", snap.CreatedAt, true); err != nil {
		return shareRequest{}, err
	}
	for i, e := range snap.Entries {
		switch e.Kind {
		case api.EntryUser, api.EntryAssistant, api.EntryThought, api.EntryTool, api.EntryPlan, api.EntryQuestion:
		default:
			return shareRequest{}, badRequest("field \"snapshot.entries[%d].kind\" must be one of user, assistant, thought, tool, plan, question (got %q)", i, e.Kind)
		}
	}
	exp, err := parseTime("expiresAt", in.ExpiresAt, false)
	if err != nil {
		return shareRequest{}, err
	}
	if !exp.IsZero() && !exp.After(now) {
		return shareRequest{}, badRequest("field \"expiresAt\" is in the past")
	}
	return shareRequest{SessionID: in.SessionID, Snapshot: in.Snapshot, ExpiresAt: exp}, nil
}

// decodeNoBody accepts an empty body or an empty JSON object: a call that
// takes no body must not be told who the user is either.
func decodeNoBody(body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	var none struct{}
	return decodeStrict(body, &none, "the body", "none")
}
