package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
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
	// CodeForbidden: a shared session's owner or role does not allow it
	// (a viewer's prompt, a member who is not the owner changing members).
	CodeForbidden = "forbidden"
)

// Error is every failure the bridge reports. In the window the rejected
// promise's message is its JSON; `mnote serve` answers {"error": <it>}.
//
// Code is the broad class (an API: the page acts on it); Reason names the
// case (reasons.go) and Params its values (agent, path, count…), so that
// the page words it in its own language. Message is the English sentence:
// the fallback for a page that does not know the reason, and what logs and
// the CLI print.
type Error struct {
	Code    string            `json:"code"`
	Reason  string            `json:"reason,omitempty"`
	Message string            `json:"message"`
	Details string            `json:"details,omitempty"`
	Params  map[string]string `json:"params,omitempty"`

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

// why sets the reason and params (key, value pairs) and returns e.
func (e *Error) why(reason string, kv ...string) *Error {
	e.Reason = reason
	return e.with(kv...)
}

// with adds params (key, value pairs; an empty value is left out) without
// replacing one already set, and returns e.
func (e *Error) with(kv ...string) *Error {
	e.Params = addParams(e.Params, kv...)
	return e
}

// addParams adds key, value pairs to m (made when needed), keeping the
// values m has.
func addParams(m map[string]string, kv ...string) map[string]string {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		if _, ok := m[kv[i]]; !ok {
			m[kv[i]] = kv[i+1]
		}
	}
	return m
}

// reasonOf names the case of a failure from the errors it wraps, with its
// params; "" when none is known.
func reasonOf(err error) (string, []string) {
	var ee *acp.ExitError
	var refused *workspace.RefusedError
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, errShutdown):
		return ReasonShuttingDown, nil
	case errors.Is(err, acp.ErrAuthRequired):
		return ReasonAgentNeedsAuth, nil
	case errors.As(err, &ee):
		return ReasonAgentExited, exitParams(ee)
	case errors.Is(err, acp.ErrTimeout):
		return ReasonAgentTimeout, nil
	case errors.Is(err, runtimes.ErrNotInstalled):
		return ReasonAgentNotInstalled, nil
	case errors.Is(err, runtimes.ErrNoCommand):
		return ReasonAgentNoCommand, nil
	case errors.Is(err, store.ErrSessionBusy):
		return ReasonSessionBusy, nil
	case sqlitedb.IsBusy(err):
		return ReasonDatabaseBusy, nil
	case errors.As(err, &refused):
		p := []string{"path", refused.Path}
		switch {
		case errors.Is(refused.Err, workspace.ErrDenied):
			return ReasonMnoteData, p
		case errors.Is(refused.Err, workspace.ErrNotRegular):
			return ReasonNotRegularFile, p
		case errors.Is(refused.Err, workspace.ErrHardLink):
			return ReasonHardLink, p
		case errors.Is(refused.Err, workspace.ErrReplaced):
			return ReasonFolderReplaced, p
		}
		return ReasonOutsideFolder, p
	case errors.Is(err, workspace.ErrTooLarge):
		return ReasonTooLarge, nil
	case errors.Is(err, workspace.ErrNotText):
		return ReasonNotUTF8, nil
	case errors.Is(err, workspace.ErrNotRegular):
		return ReasonNotRegularFile, nil
	case errors.Is(err, workspace.ErrTooBig):
		return ReasonCheckpointsTooBig, nil
	case errors.Is(err, workspace.ErrConflict):
		return ReasonFileChangedOnDisk, nil
	case errors.Is(err, workspace.ErrReplaced):
		return ReasonFolderReplaced, nil
	case errors.Is(err, fs.ErrExist):
		return ReasonFileExists, nil
	case errors.Is(err, store.ErrNotFound):
		return ReasonSessionNotFound, nil
	case errors.Is(err, fs.ErrNotExist):
		return ReasonFileNotFound, nil
	case errors.Is(err, context.Canceled):
		return ReasonCancelled, nil
	case errors.Is(err, context.DeadlineExceeded):
		return ReasonTimedOut, nil
	}
	return "", nil
}

// shutdownError is the error of a call that raced with Shutdown.
func shutdownError() *Error {
	return &Error{Code: CodeInternal, Reason: ReasonShuttingDown, Message: errShutdown.Error(), cause: errShutdown}
}

// exitParams are the params of an agent that exited: its exit code, or
// the signal that killed it.
func exitParams(ee *acp.ExitError) []string {
	if ee.Signal != "" {
		return []string{"signal", ee.Signal}
	}
	return []string{"code", strconv.Itoa(ee.Code)}
}

// classify sets e's reason from err when it has none.
func (e *Error) classify(err error) *Error {
	if e.Reason == "" {
		if r, kv := reasonOf(err); r != "" {
			e.why(r, kv...)
		}
	}
	return e
}

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
	e := (&Error{Code: CodeInternal, Message: msg, cause: err}).classify(err)
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

// heldBackHint is what a needs-auth error or notice adds when mnote held
// back variables of its environment that look like keys (held, from
// runtimes' Resolved.HeldBack) from the agent named agent: the params
// heldBack (the names, comma-separated) and agentName (for `mnote agents
// --set-key`), and the English sentence. Empty when nothing was held back.
func heldBackHint(agent string, held []string) (params []string, sentence string) {
	if len(held) == 0 {
		return nil, ""
	}
	names, example := strings.Join(held, ", "), "NAME"
	if len(held) == 1 {
		example = held[0]
	}
	return []string{"heldBack", names, "agentName", agent}, fmt.Sprintf(
		"mnote did not give it these variables of its environment: %s. If it needs one, give it with `mnote agents --set-key %s %s` (or in the agent's \"env\" in config.json).",
		names, agent, example)
}

// heldBack adds heldBackHint to a needs-auth error.
func (e *Error) heldBack(agent string, held []string) *Error {
	if e.Code != CodeNeedsAuth || e.Params["heldBack"] != "" {
		return e
	}
	kv, sentence := heldBackHint(agent, held)
	if sentence == "" {
		return e
	}
	e.Message = strings.TrimSpace(e.Message + " " + sentence)
	return e.with(kv...)
}
