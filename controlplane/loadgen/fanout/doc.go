// Package fanout is the fan-out load test of shared sessions: several
// mnote-controlplane processes on one PostgreSQL, many members in shared
// sessions of a few, each with a live stream (Server-Sent Events) open
// on one of the servers, taking turns under the session's lease to
// append opaque ciphertext blobs. Midway one server is killed
// (SIGKILL); its clients reconnect to another with after = the last
// sequence number they saw.
//
// Every client records what it received by (session, seq) and the hash
// of each blob; at the end Run compares that with the log the store
// holds: an entry a member never received is lost, one received twice is
// duplicated, one received with other bytes is corrupt. All three must
// be zero. Fan-out latency is the time from an append's accepted answer
// to its arrival at each other member (clamped at zero: a stream may
// beat the appender's own answer).
//
// bench/controlplane-fanout runs the full test (3 servers, 200 clients);
// this package's test runs a small one with one kill.
package fanout
