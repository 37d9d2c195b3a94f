#!/usr/bin/env bash
# Many sessions at once (see main.go): the time and peak memory of mnote and
# its agent processes for N = 1, 3 and 9 sessions prompted in parallel on the
# test agent, N = 1 as the reference. Extra arguments go to the program,
# e.g. -n 1,3,9,18 -turns 5.
set -euo pipefail
cd "$(dirname "$0")/../.."
args=()
[[ -x build/bin/mnote ]] && args+=(-mnote build/bin/mnote)
[[ -x build/bin/mnote-testagent ]] && args+=(-agent build/bin/mnote-testagent)
exec go run -tags sqlite_fts5 ./bench/sessions "${args[@]}" "$@"
