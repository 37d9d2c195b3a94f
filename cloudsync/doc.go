// Package cloudsync is the desktop side of the opt-in metadata sync and of
// share links: it sends session records to a control plane (see package
// controlplane and its wire contract, controlplane/api) and publishes
// redacted snapshots.
//
// # Off by default
//
// Sync is off until the user turns it on (Syncer.Enable). While it is off
// a Syncer starts no goroutine and opens no connection: Enqueue does
// nothing, SyncNow and Publish return ErrDisabled. Turning it off
// (Disable) cancels a request in flight and stops the worker before it
// returns.
//
// # What is sent
//
// A record (api.SessionRecord) is built from SessionMeta, which holds only
// ids, runtime, the workspace path (sent as WorkspaceID, an HMAC-SHA256
// keyed with a random salt of this user's, never as a path: without the
// salt a guessed path cannot be confirmed), times, status, counts and the
// title; MetaFromRow fills it from the index's session row. The title is
// sent only when the user allows titles, with the workspace and home
// paths taken out. Message text, thoughts, tool input and output and file
// contents have no place in either type. A record is normalized with
// api.SessionRecord.Normalize, the control plane's own normalization (no
// NUL, control characters or invalid UTF-8; lengths cut), so what is
// sent is what is stored, on SQLite and PostgreSQL alike.
//
// # Outbox
//
// Records wait in their own SQLite file, <data>/sync.db (WAL, 0600), so
// they survive restarts and offline periods. Enqueue keeps only the
// latest change of a session and skips a record the control plane already
// has, so each change is sent once. Each new change of a session gets a
// version above every earlier one (at least its updatedMs), and the
// control plane keeps the highest: a retried or late request never
// overwrites a newer one, and a 409 stale answer means the change is
// superseded (done). Network errors, 5xx, 401 and 429 are retried with
// exponential backoff and jitter (Backoff), 429 no sooner than its
// Retry-After. Other 4xx answers (400, 404, 413 …: retrying cannot help)
// park the record: it leaves the queue with the refusal, the records after
// it go on in the same pass, and Status lists it (Parked, ParkedRecords)
// until the session changes again (the new change replaces it) or the URL
// or token changes (it waits again: another server may take it). One bad
// record never stalls the others. Failures to reach the control plane
// carry the user's next step (a new token, the URL in Settings).
//
// # Share links
//
// The control plane keeps only the hash of a share's token, so it gives
// the share's link once, in the answer to Publish, and lists shares
// without links. The outbox keeps the link of each share published from
// this machine (share_links, per control plane URL); Shares fills the
// links in from there, so the owner can copy one again. A share published
// on another machine is listed without a link; the link of a share that
// is revoked or no longer listed is forgotten.
//
// # Settings
//
// sync.json (URL, enabled, allow titles), sync-token (the bearer token
// alone) and sync-salt (the workspace id salt, made once sync is first
// used, never replaced) sit beside config.json, all mode 0600 in a 0700
// folder; the
// MNOTE_SYNC_TOKEN environment variable overrides the token file. The
// token is never logged, never part of an error and never given to
// agents.
package cloudsync
