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
// # Shared sessions
//
// The sharing contract's phase D: several accounts in one product
// session. The server is untrusted for content and trusted for liveness
// and roles. It keeps and relays, byte for byte and never read, the
// blobs the clients make (package collab): entries' ciphertexts, the
// owner's signed roster statements, devices' public keys and signed
// device statements, key envelopes, pairing messages (base64 in JSON,
// BYTEA in the store). What it reads is the metadata it needs: ids,
// sequence numbers, epoch, entry kind, actor, sizes, times.
//
//   - PUT /v1/sessions/{id}/shared makes one of the caller's sessions a
//     shared one (the caller its owner member; the body's statement the
//     roster log's first); GET it as a member sees it (role, head);
//     GET /v1/shared lists those the caller is a member of. GET
//     /v1/sessions/{id} answers members too; PUT and DELETE stay the
//     owner's, and GET /v1/sessions lists the caller's own only.
//
//   - Members: GET /v1/sessions/{id}/members (any member); PUT and
//     DELETE /v1/sessions/{id}/members/{account} (the owner only: 403
//     for other members) with role editor, commenter or viewer and the
//     owner's signed statement, which is appended to the roster log (GET
//     /v1/sessions/{id}/roster?after=n). A session has one owner, who
//     cannot be changed or removed.
//
//   - The shared log: PUT /v1/sessions/{id}/entries/{seq} appends by
//     compare and append — seq must be the head + 1, or 409 conflict
//     with the head (clients bind seq into the AEAD's associated data, so
//     the server cannot renumber). The head moves in the same statement
//     that checks it (UPDATE … WHERE head = seq-1), so concurrent
//     appenders, on one server or several, leave no gap and no duplicate.
//     The entry's actor is the caller's account, from the token: an
//     editor's run records the editor. A viewer appends nothing (403), a
//     commenter comments only (403), a run's kinds (prompt, answer,
//     thought, tool, plan, question, status) need the run's lease (409
//     lease_required). A ciphertext is at most 1 MiB (413). GET
//     /v1/sessions/{id}/entries?after=seq&limit= gives the entries after
//     seq in order, a page at most 1000 entries or about 8 MiB of
//     ciphertext (More says there is another): a member a week offline
//     catches up in one request or a few.
//
//   - The lease: one turn at a time. POST /v1/sessions/{id}/lease with a
//     runId grants the lease (Config.LeaseTTL, 30 s) or queues the run;
//     the holder renews it by asking again (a heartbeat); DELETE
//     /v1/sessions/{id}/lease/{run} ends it at the run's end or leaves the
//     queue (the owner may end anyone's). A lease not renewed expires and
//     the queue's head gets it, so a crashed member holds it no longer
//     than LeaseTTL. GET shows lease and queue to every member. Every
//     change runs in one transaction that first takes the session row's
//     lock, so two servers cannot grant it twice.
//
//   - Live: GET /v1/sessions/{id}/live?after=seq is Server-Sent Events:
//     the entries after seq (the event id is the seq, so Last-Event-ID
//     works too), "ready", then new entries and the members, lease and
//     queue, and presence (who has a stream open, who holds the lease)
//     whenever they change. Reconnecting with after = the last seq loses
//     nothing and repeats nothing. A stream reads everything from the
//     store, by sequence; what wakes it is a doorbell (hub.go) carrying
//     only a session id. Removing a member rings the session and that
//     member's streams end at once with "revoked"; it then gets 404.
//     On SQLite the doorbell is in-process. On PostgreSQL each server
//     also LISTENs, and rings go out as NOTIFY coalesced over a few
//     milliseconds into one statement (every NOTIFYing commit takes a
//     database-wide lock: never one per entry); after a LISTEN
//     connection is lost and made again, every stream reads again. A
//     keepalive (Config.LiveKeepalive, 15 s) refreshes presence and reads
//     again even without a ring.
//
//   - Devices: PUT /v1/devices/{device} with the device's public key and
//     its signed device statement (appended to the account's device
//     log); a device keeps its key (another key for the same id is 409).
//     GET /v1/devices lists the caller's; GET
//     /v1/accounts/{account}/devices and …/device-log?after=n those of
//     the caller or of an account it shares a session with (404
//     otherwise). DELETE /v1/devices/{device} (with a statement) also
//     deletes the envelopes wrapped for it.
//
//   - Keys: PUT /v1/sessions/{id}/keys/{epoch} (the owner only) stores
//     the epoch's content key wrapped for members' devices; GET
//     /v1/sessions/{id}/keys?device=&after=epoch gives the caller its own
//     device's envelopes.
//
//   - Pairing a second machine of one account: POST /v1/pairings gives a
//     mailbox and an 8-character code (40 random bits, Crockford base32)
//     shown once; the store keeps the hash of account and code. POST
//     /v1/pairings/join with the typed code finds it; a wrong code uses a
//     try of each live pairing of the account's, and one expired (10
//     minutes) or out of tries (5) is 410. Both machines post and read
//     ordered opaque messages on it (…/messages?after=n).
//
// Everything of a shared session answers a non-member 404, exactly like
// a missing session, so a private session stays invisible.
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
// that was not committed. bench/controlplane-fanout (package
// loadgen/fanout, a small run in its test) checks this for the live
// streams: three server processes on one PostgreSQL, one killed with
// SIGKILL midway, and every member of every shared session still gets
// every entry exactly once.
//
// # Limits
//
// Bodies: 16 KiB for a session record, 5 MiB for a share, 1 MiB for an
// entry's ciphertext, 64 KiB for a signed statement (413 beyond).
// JSON is decoded strictly: one value, no unknown fields, field names in
// the 400 messages. Each token has a token-bucket rate limit (429 with
// Retry-After). On PostgreSQL the buckets are rows of rate_buckets
// (migration 0004), taken from by one upsert per request, so all the
// servers on the database allow the rate once, not once each; on SQLite
// (one server) they are kept in memory. While the database does not
// answer, each server limits on its own. A live stream counts as one
// request. Requests with a missing or bad token are limited per client
// address (IPv6 by /64; Config.FailedAuthPerMinute, 30 a minute by
// default): beyond it they get 429 with Retry-After instead of 401. Only
// failures count and a good token is never refused by it, so a hostile
// page sending junk tokens from the user's machine cannot lock the user
// out (and a 256-bit token cannot be guessed at any rate). The access log (log/slog) names the route pattern, status, size,
// duration and user id — never a token, a share token, a query or a body.
package controlplane
