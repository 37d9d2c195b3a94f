#!/usr/bin/env bash
# The control plane load benchmark (see main.go): 200 clients x 500 PUTs
# against a real mnote-controlplane on SQLite and on PostgreSQL, checked
# for lost or duplicated writes; prints throughput and p50/p99 latency.
# Extra arguments go to the program, e.g. -clients 20 -puts 50.
set -euo pipefail
cd "$(dirname "$0")/../.."
args=()
[[ -x build/bin/mnote-controlplane ]] && args+=(-server build/bin/mnote-controlplane)
exec go run -tags sqlite_fts5 ./bench/controlplane "${args[@]}" "$@"
