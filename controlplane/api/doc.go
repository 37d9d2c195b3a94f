// Package api is the control plane's wire contract: the JSON types that
// travel between mnote and mnote-controlplane, and Client, a small typed
// client for them.
//
// The server (package controlplane) and the desktop sync client (package
// cloudsync) both use these types, so this package imports nothing of
// mnote's: only the standard library.
//
// Every /v1 call carries "Authorization: Bearer <token>"; the user is the
// token's user, never a field of a body. Errors come back as a status code
// and {"error":{"code":"…","message":"…"}}, which Client returns as *Error
// (see the Code* constants).
package api
