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
	case errors.Is(err, store.ErrSessionBusy):
		e.Code = CodeBusy
	case errors.Is(err, store.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		e.Code = CodeNotFound
	}
	return e
}
