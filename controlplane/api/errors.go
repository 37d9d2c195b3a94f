package api

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Error codes of the wire contract.
const (
	CodeBadRequest       = "bad_request"        // 400: malformed JSON, unknown or invalid field
	CodeUnauthorized     = "unauthorized"       // 401: no token, or not a valid one
	CodeNotFound         = "not_found"          // 404: unknown, or not the caller's
	CodeMethodNotAllowed = "method_not_allowed" // 405
	CodeStale            = "stale"              // 409: the server holds a newer version
	CodeForbidden        = "forbidden"          // 403: the caller's role does not allow it
	CodeConflict         = "conflict"           // 409: another entry has that seq; Head is the log's head
	CodeLeaseRequired    = "lease_required"     // 409: the run does not hold the session's lease
	CodeGone             = "gone"               // 410: expired or used up (a pairing code)
	CodeTooLarge         = "too_large"          // 413
	CodeRateLimited      = "rate_limited"       // 429: see Retry-After
	CodeInternal         = "internal"           // 500: the store failed; nothing was saved
)

// Error is a non-2xx answer of the control plane.
type Error struct {
	Status  int    // HTTP status code
	Code    string // one of the Code* constants
	Message string // human text from the server
	// Session is the record the server holds, on a 409 stale answer to
	// PutSession.
	Session *SessionRecord
	// Head is the shared log's head on a 409 conflict answer to
	// AppendEntry: append at Head+1.
	Head *int64
	// RetryAfter is the server's Retry-After on a 429 answer.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("control plane: %s (%d %s)", msg, e.Status, e.Code)
}

// Is makes errors.Is(err, &Error{Code: CodeStale}) (or with Status) match
// any *Error with that code (or status).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return (t.Code == "" || t.Code == e.Code) && (t.Status == 0 || t.Status == e.Status)
}

// ErrorCode returns err's control plane error code, or "" when err is not
// an *Error (a network failure, say).
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// codeForStatus is the code assumed when an error body has none (a proxy's
// page, say).
func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return CodeBadRequest
	case http.StatusUnauthorized:
		return CodeUnauthorized
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusMethodNotAllowed:
		return CodeMethodNotAllowed
	case http.StatusConflict:
		return CodeStale
	case http.StatusForbidden:
		return CodeForbidden
	case http.StatusGone:
		return CodeGone
	case http.StatusRequestEntityTooLarge:
		return CodeTooLarge
	case http.StatusTooManyRequests:
		return CodeRateLimited
	default:
		return CodeInternal
	}
}
