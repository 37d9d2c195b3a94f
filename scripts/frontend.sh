#!/usr/bin/env bash
# The UI: `frontend.sh build` builds frontend/dist (embedded, gzipped, by
# the Go binary); `frontend.sh test` type-checks and runs the vitest suite.
# npm ci runs only when package-lock.json changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/../frontend"

command -v npm >/dev/null ||
	{ echo "frontend: npm is missing: install Node.js 20.19 or newer (https://nodejs.org or your distribution's nodejs + npm)" >&2; exit 1; }
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a==20&&b>=19)?0:1)' ||
	{ echo "frontend: Node.js $(node --version) is too old: the UI build needs 20.19 or newer" >&2; exit 1; }

stamp=node_modules/.mnote-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ ! -f $stamp || "$(cat "$stamp")" != "$want" ]]; then
	npm ci --no-audit --no-fund --loglevel=error
	echo "$want" >"$stamp"
fi

case "${1:-build}" in
build)
	npm run --silent build
	# The binary embeds the UI compressed (package mnote/internal/gzfs reads
	# it back): 1.6 MB becomes about 0.5 MB. -n: the same bytes every build.
	find dist -type f ! -name .gitkeep ! -name '*.gz' -exec gzip -9 -n -f {} +
	;;
test)
	npm run --silent check
	# `make test` keeps each suite's results in $TEST_REPORTS (for its list of
	# the slowest tests).
	if [[ -n ${TEST_REPORTS:-} ]]; then
		npm test -- --reporter=default --reporter=json --outputFile.json="$TEST_REPORTS/frontend.vitest.json"
	else
		npm test
	fi
	;;
*) echo "usage: frontend.sh build|test" >&2; exit 2 ;;
esac
