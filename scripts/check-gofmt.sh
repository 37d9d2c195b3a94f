#!/usr/bin/env bash
# Fails, listing the files, if any Go file in the repository is not gofmt'ed.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -d '' files < <(find . \( -name .git -o -name node_modules -o -name .cache \) -prune -o -name '*.go' -type f -print0)
((${#files[@]})) || exit 0
bad=$(gofmt -l "${files[@]}")
if [[ -n $bad ]]; then
	echo "gofmt: these files need formatting (run: gofmt -w FILE):" >&2
	sed 's/^/  /' <<<"$bad" >&2
	exit 1
fi
echo "gofmt: ${#files[@]} files ok"
