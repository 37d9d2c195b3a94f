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
//
// Shared sessions (shared.go, sharedclient.go, devices.go): members and
// roles, the shared log of sealed entries (compare and append by seq;
// 409 conflict with Head), the one-turn-at-a-time lease and its queue,
// the live stream (Server-Sent Events, read with Client.Live and
// LiveStream.Next), devices, key envelopes and pairing. Blobs — a
// ciphertext, a signed statement, a public key, an envelope, a pairing
// message — are []byte, base64 in JSON, opaque to the server: the client
// side of keys and signatures is package collab's.
package api
