#!/usr/bin/env bash
# The ingest benchmark (see main.go): mnote prompt vs a plain decode loop.
# mnote is the command line (the headless build).
set -euo pipefail
cd "$(dirname "$0")/../.."
args=()
# build/bin/mnote is the command line a package installs (no GTK): measure it
# (the window, build/bin/mnote-app, runs no commands: it passes them to mnote).
[[ -x build/bin/mnote ]] && args+=(-mnote build/bin/mnote)
[[ -x build/bin/mnote-testagent ]] && args+=(-agent build/bin/mnote-testagent)
exec go run -tags sqlite_fts5 ./bench/ingest "${args[@]}" "$@"
