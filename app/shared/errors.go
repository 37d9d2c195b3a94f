package shared

import (
	"errors"

	"mnote/collab/client"
	"mnote/collab/roster"
	"mnote/controlplane/api"
)

// Codes and reasons of the errors this package's methods return; the app
// turns them into its Error (API.md "Errors"), the page words them.
const (
	CodeBadRequest = "bad_request"
	CodeForbidden  = "forbidden"
	CodeNotFound   = "not_found"

	ReasonRoleRefused   = "shared_role_refused"   // the role does not allow it (a viewer's prompt). Params: role (when known).
	ReasonNotOwner      = "shared_not_owner"      // only the session's owner changes members
	ReasonNotPaired     = "shared_not_paired"     // this device is not in its account's device list: pair it
	ReasonKeyChanged    = "shared_key_changed"    // an account's devices changed: compare and accept first. Params: account.
	ReasonUnverified    = "shared_unverified"     // a membership or device change did not verify. Params: message.
	ReasonRevoked       = "shared_revoked"        // this account is no longer a member
	ReasonSASRejected   = "shared_sas_rejected"   // the person said the 12 digits differ
	ReasonPairCancelled = "shared_pair_cancelled" // the other device ended the pairing
	ReasonNotShared     = "shared_not_shared"     // the session is not shared with members (or not with this account)
	ReasonBadRole       = "shared_bad_role"       // a role that is not editor, commenter or viewer. Params: role.
	ReasonNoPairing     = "shared_no_pairing"     // no pairing waits for an answer
	ReasonNoKey         = "shared_no_key"         // this device has no key for the session yet (the owner's next turn gives it)
)

// Reasons are this package's reasons, for the app's list.
var Reasons = []string{
	ReasonRoleRefused, ReasonNotOwner, ReasonNotPaired, ReasonKeyChanged, ReasonUnverified, ReasonRevoked,
	ReasonSASRejected, ReasonPairCancelled, ReasonNotShared, ReasonBadRole, ReasonNoPairing, ReasonNoKey,
}

// Error is a failure with its code and reason.
type Error struct {
	Code, Reason string
	Params       map[string]string
	Err          error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return e.Reason
}

func (e *Error) Unwrap() error { return e.Err }

func fail(code, reason string, err error, kv ...string) *Error {
	e := &Error{Code: code, Reason: reason, Err: err}
	for i := 0; i+1 < len(kv); i += 2 {
		if e.Params == nil {
			e.Params = map[string]string{}
		}
		e.Params[kv[i]] = kv[i+1]
	}
	return e
}

// Classify names the shared-session refusals of the engine; ok is false
// for anything else (the control plane's own failures, files), which the
// caller classifies as sync failures.
func Classify(err error) (*Error, bool) {
	var se *Error
	if errors.As(err, &se) {
		return se, true
	}
	var kc *roster.KeyChangedError
	var ae *api.Error
	switch {
	case errors.As(err, &kc):
		return fail(CodeForbidden, ReasonKeyChanged, err, "account", kc.Account), true
	case errors.Is(err, client.ErrRole):
		return fail(CodeForbidden, ReasonRoleRefused, err), true
	case errors.Is(err, client.ErrRevoked):
		return fail(CodeForbidden, ReasonRevoked, err), true
	case errors.Is(err, client.ErrNotOwner):
		return fail(CodeForbidden, ReasonNotOwner, err), true
	case errors.Is(err, client.ErrNotPaired):
		return fail(CodeBadRequest, ReasonNotPaired, err), true
	case errors.Is(err, client.ErrNoKey):
		return fail(CodeForbidden, ReasonNoKey, err), true
	case errors.Is(err, client.ErrSASRejected):
		return fail(CodeBadRequest, ReasonSASRejected, err), true
	case errors.Is(err, client.ErrPairCancelled):
		return fail(CodeBadRequest, ReasonPairCancelled, err), true
	case errors.Is(err, roster.ErrNotOwnerDevice), errors.Is(err, roster.ErrUnknownSigner), errors.Is(err, roster.ErrBrokenChain),
		errors.Is(err, roster.ErrBadSignature), errors.Is(err, roster.ErrFork), errors.Is(err, roster.ErrRollback), errors.Is(err, client.ErrOwnerChanged),
		errors.Is(err, client.ErrKeyCommitment):
		return fail(CodeForbidden, ReasonUnverified, err, "message", err.Error()), true
	case errors.As(err, &ae) && ae.Code == api.CodeForbidden:
		return fail(CodeForbidden, ReasonRoleRefused, err), true
	}
	return nil, false
}
