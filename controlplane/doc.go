// Package controlplane is the server mnote syncs session metadata to and
// publishes shares on (cmd/mnote-controlplane runs it). The wire contract
// and a typed client are in package api.
//
// # Who is asking
//
// Every /v1 call needs "Authorization: Bearer <token>". The user is the
// token's user and nothing else: a body that names a user or owner is
// refused as an unknown field (400). Tokens are 32 random bytes, shown
// once by `mnote-controlplane user add`, and stored only as SHA-256 hashes
// (HashToken). Another user's session or share answers 404, exactly like a
// missing one.
//
// # Session records
//
// PUT /v1/sessions/{id} is an idempotent upsert keyed by a global id: a
// new id becomes the caller's; a higher version replaces the stored
// record; the same version changes nothing (200 with the stored record); a
// lower one is 409 stale with the stored record. An id that belongs to
// another user is 404, so nobody can overwrite another's session by
// reusing its id. The upsert is one SQL statement (INSERT … ON CONFLICT DO
// UPDATE … WHERE same user AND lower version), so concurrent writers
// cannot interleave.
//
// Free text (title, runtime) is normalized with api.SessionRecord.Normalize,
// the client's own normalization: NUL and other control characters are
// removed, invalid UTF-8 (a lone surrogate) becomes U+FFFD, lengths are
// cut. PostgreSQL refuses NUL where SQLite takes it; this way both stores
// keep the same record, and a value a store still refuses (PostgreSQL's
// data exceptions, SQLSTATE class 22) is a 400 naming the problem, never
// a 500 the client would retry for ever.
//
// # Shares
//
// A share is a snapshot the client has already redacted; the server keeps
// it byte for byte and shows it at /s/{token}: a self-contained HTML page
// with entry texts rendered as inert Markdown (package internal/inertmd:
// raw HTML, links and images shown as text), every other text escaped, no
// script but the page's own (a few lines that write its <time> elements
// in the viewer's time zone, in the page's language), and a
// Content-Security-Policy (PageCSP) that allows that one script by its
// hash and forbids every other. It speaks the viewer's language
// (Accept-Language: Chinese, else English; package internal/l10n); without
// the script its times read in UTC, marked so. The token is 256 random bits; the
// share's id, which names it in the API, is a different value. Like a
// user's token, the share's token is stored as its hash (HashToken) and
// given once, in the answer that creates the share; listing shares gives
// neither token nor URL (the client keeps its own record of the URL).
// Migration 0002 hashed the tokens stored in clear before. Revoking
// deletes the share; an expired one is refused on every read and purged in
// the background (Server.PurgeExpiredShares). Copying a share creates a
// new session owned by the copier, version 1, copiedFrom = the share's id,
// the runtime kept as a label: the server has no runtime binding to copy.
//
// # Stores
//
// Store has one implementation on database/sql for SQLite (one file, WAL,
// synchronous=FULL, one writing connection) and PostgreSQL (pgx); Open
// picks one from a URL and applies the embedded migrations (one SQL text
// for both). On SQLite, concurrent PUTs share a transaction and its fsync
// (group commit, groupcommit.go); each still succeeds or fails on its own
// and is answered only after the commit. The server keeps nothing else,
// so several servers can share a PostgreSQL database behind a load
// balancer. A store failure answers 500 and nothing is reported as saved
// that was not committed.
//
// # Limits
//
// Bodies: 16 KiB for a session record, 5 MiB for a share (413 beyond).
// JSON is decoded strictly: one value, no unknown fields, field names in
// the 400 messages. Each token has a token-bucket rate limit (429 with
// Retry-After) kept per server process: N servers allow up to N times the
// rate. Requests with a missing or bad token are limited per client
// address (IPv6 by /64; Config.FailedAuthPerMinute, 30 a minute by
// default): beyond it they get 429 with Retry-After instead of 401. Only
// failures count and a good token is never refused by it, so a hostile
// page sending junk tokens from the user's machine cannot lock the user
// out (and a 256-bit token cannot be guessed at any rate). The access log (log/slog) names the route pattern, status, size,
// duration and user id — never a token, a share token, a query or a body.
package controlplane
