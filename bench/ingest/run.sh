#!/usr/bin/env bash
# The ingest benchmark (see main.go): mnote prompt vs a plain decode loop.
# mnote is the command line (the headless build); the app's build (with GTK
# and WebKit linked) only shows what its libraries add.
set -euo pipefail
cd "$(dirname "$0")/../.."
args=()
# build/bin/mnote is the command line a package installs (no GTK): measure it;
# build/bin/mnote-app, the window's build, only for what its libraries add.
[[ -x build/bin/mnote ]] && args+=(-mnote build/bin/mnote)
[[ -x build/bin/mnote-app ]] && args+=(-desktop build/bin/mnote-app)
[[ -x build/bin/mnote-testagent ]] && args+=(-agent build/bin/mnote-testagent)
exec go run -tags sqlite_fts5 ./bench/ingest "${args[@]}" "$@"
