// Package loadgen drives a control plane with many concurrent clients
// upserting session records, then checks that every accepted write is
// there exactly once: the load test of the control plane (a small run in
// its tests, the full one in bench/controlplane).
//
// Each client has its own token (its own user) and SessionsPerClient
// session ids, and sends PutsPerClient PUTs round-robin over them with
// rising versions, so at the end session j of a client must hold a known
// version — and turns equal to it, as a check of the content.
//
// Its subpackage fanout is the load test of shared sessions' live
// streams across several servers.
package loadgen
