#!/usr/bin/env bash
# The fan-out load test of shared sessions (see main.go): 3
# mnote-controlplane processes on one PostgreSQL, 200 members in 50
# shared sessions streaming turns to each other, one server killed
# midway; fails on any lost or duplicated entry, prints fan-out latency
# against a one-server reference run. Extra arguments go to the program,
# e.g. -duration 2m -sessions 10.
set -euo pipefail
cd "$(dirname "$0")/../.."
args=()
[[ -x build/bin/mnote-controlplane ]] && args+=(-server build/bin/mnote-controlplane)
exec go run -tags sqlite_fts5 ./bench/controlplane-fanout "${args[@]}" "$@"
