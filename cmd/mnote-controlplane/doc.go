// Command mnote-controlplane is the server mnote syncs session metadata to
// and publishes read-only shares on (package controlplane).
//
// Usage:
//
//	mnote-controlplane serve [--addr 127.0.0.1:8080] [--db URL] [--base-url URL] [--rate 20] [--burst 100] [--lease-ttl 30s]
//	mnote-controlplane user add NAME      create a user; prints its token (shown once)
//	mnote-controlplane user list          users and their token ids
//	mnote-controlplane token add USER     another token for a user (by name or id)
//	mnote-controlplane token revoke ID    revoke a token by its id (tok_…) or the token itself
//	mnote-controlplane version
//
// --db is postgres://… (PostgreSQL) or sqlite:PATH; without it,
// $MNOTE_CONTROLPLANE_DB, else sqlite:mnote-controlplane.db in the current
// folder. The schema is created or migrated at start.
//
// serve speaks plain HTTP: put it behind a TLS-terminating proxy and give
// --base-url (the public https URL) so share links point there. It stops
// gracefully on SIGINT or SIGTERM, ending open live streams (their clients
// reconnect from their last entry). The rate limit is per token, kept in
// memory on SQLite and shared by every server on one PostgreSQL; requests with a missing or bad token are limited per client
// address (--failed-auth-per-minute, default 30). Behind a proxy every
// request comes from the proxy's address: raise that limit or use -1 and
// limit at the proxy. --lease-ttl is how long a shared session's turn
// lease lasts unless renewed: a member whose machine died holds it no
// longer.
package main
