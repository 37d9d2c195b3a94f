#!/usr/bin/env bash
# The ingest benchmark (see main.go): mnote prompt vs a plain decode loop.
# mnote is the headless build of the same code; the app's build (with GTK
# and WebKit linked) only shows what its libraries add.
set -euo pipefail
cd "$(dirname "$0")/../.."
args=()
[[ -x build/bin/mnote ]] && args+=(-desktop build/bin/mnote)
[[ -x build/bin/mnote-testagent ]] && args+=(-agent build/bin/mnote-testagent)
exec go run -tags sqlite_fts5 ./bench/ingest "${args[@]}" "$@"
