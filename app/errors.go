package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"mnote/acp"
	"mnote/acp/runtimes"
	"mnote/store"
	"mnote/store/sqlitedb"
	"mnote/workspace"
)

// Error codes (API.md, "Errors").
const (
	CodeBadRequest   = "bad_request"
	CodeNotFound     = "not_found"
	CodeAgentMissing = "agent_missing"
	CodeAgentFailed  = "agent_failed"
	CodeNeedsAuth    = "needs_auth"
	CodeBusy         = "busy"
	CodeWriteFailed  = "write_failed"
	CodeInternal     = "internal"
	// CodeConflict: a file changed on disk since it was read (a save over
	// someone else's change, a revert of a turn whose files changed since).
	CodeConflict = "conflict"
	// CodeUnauthorized is only answered by `mnote serve`, to a request
	// without the token.
	CodeUnauthorized = "unauthorized"
	// CodeUnavailable: a service mnote needs (the sync control plane)
	// cannot be reached, failed (5xx) or asked to wait (429); trying
	// again later may work.
	CodeUnavailable = "unavailable"
	// CodeSyncAuth: the control plane refused the sync token (not
	// `mnote serve`'s own token: that is CodeUnauthorized).
	CodeSyncAuth = "sync_auth"
)

// Error is every failure the bridge reports. In the window the rejected
// promise's message is its JSON; `mnote serve` answers {"error": <it>}.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details string `json:"details,omitempty"`

	cause error
}

// Error returns the JSON form, so that Wails hands it to the page as the
// rejection message.
func (e *Error) Error() string {
	b, err := json.Marshal(e)
	if err != nil {
		return `{"code":"internal","message":"unencodable error"}`
	}
	return string(b)
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.cause }

// newError makes an Error whose message is formatted like fmt.Errorf
// (a %w operand becomes the cause).
func newError(code, format string, a ...any) *Error {
	err := fmt.Errorf(format, a...)
	return &Error{Code: code, Message: err.Error(), cause: errors.Unwrap(err)}
}

func badRequest(format string, a ...any) *Error { return newError(CodeBadRequest, format, a...) }

// errorFrom classifies err. what, when not empty, starts the message
// ("start Claude Code", "rename session x").
func errorFrom(what string, err error) *Error {
	if err == nil {
		return nil
	}
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	msg := err.Error()
	if what != "" {
		msg = what + ": " + msg
	}
	e := &Error{Code: CodeInternal, Message: msg, cause: err}
	var ee *acp.ExitError
	var refused *workspace.RefusedError
	switch {
	case errors.Is(err, acp.ErrAuthRequired):
		e.Code = CodeNeedsAuth
	case errors.As(err, &ee):
		e.Code = CodeAgentFailed
		e.Details = strings.TrimSpace(ee.StderrTail)
		// The message repeats the tail; keep the sentence short.
		e.Message, _, _ = strings.Cut(msg, "; its last output on stderr:")
	case errors.Is(err, acp.ErrTimeout):
		e.Code = CodeAgentFailed
		if m, tail, ok := strings.Cut(msg, "; the agent's stderr ends with:\n"); ok {
			e.Message, e.Details = m, strings.TrimSpace(tail)
		}
	case errors.Is(err, runtimes.ErrNotInstalled), errors.Is(err, runtimes.ErrNoCommand):
		e.Code = CodeAgentMissing
	case errors.Is(err, store.ErrSessionBusy), sqlitedb.IsBusy(err):
		// SQLITE_BUSY/LOCKED by its code (another process holds the
		// database past the busy timeout): try again.
		e.Code = CodeBusy
	case errors.As(err, &refused), errors.Is(err, fs.ErrInvalid):
		// A path refused by the workspace's confinement (outside, mnote's
		// own data, a kernel file system, a FIFO...): the caller's.
		e.Code = CodeBadRequest
	case errors.Is(err, store.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		e.Code = CodeNotFound
	}
	return e
}
