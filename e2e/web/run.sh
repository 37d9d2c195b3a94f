#!/usr/bin/env bash
# Browser end-to-end tests of the mnote UI: each test starts its own
# `build/bin/mnote serve` (fresh MNOTE_HOME, the scriptable test agent as the
# custom agent "Test Agent") and drives the page in Debian's headless
# Chromium with Playwright Test. Perf figures: e2e/web/out/perf.json.
#
#   e2e/web/run.sh                 # the whole suite
#   e2e/web/run.sh -g search       # Playwright Test arguments pass through
#
# Needs: build/bin/mnote and build/bin/mnote-testagent (`make build`),
# Chromium from Debian (`apt-get install chromium`, via `make deps`; no
# browser is ever downloaded), Node.js 20+ and npm. npm ci runs only when
# package-lock.json changed since the last install. Exits non-zero when a
# test fails. Kills only what it started; removes its temp folders.
set -euo pipefail
cd "$(dirname "$0")"
web=$PWD
root=$(cd ../.. && pwd)

die() { printf 'e2e/web: %s\n' "$*" >&2; exit 1; }

export MNOTE_BIN=${MNOTE_BIN:-$root/build/bin/mnote}
export MNOTE_TESTAGENT_BIN=${MNOTE_TESTAGENT_BIN:-$root/build/bin/mnote-testagent}
export MNOTE_CONTROLPLANE_BIN=${MNOTE_CONTROLPLANE_BIN:-$root/build/bin/mnote-controlplane}
export MNOTE_E2E_CHROMIUM=${MNOTE_E2E_CHROMIUM:-/usr/bin/chromium}
for b in "$MNOTE_BIN" "$MNOTE_TESTAGENT_BIN" "$MNOTE_CONTROLPLANE_BIN"; do
	[[ -x $b ]] || die "$b is missing: run 'make build' first (it builds the UI, the app and the test agent)"
done
[[ -x $MNOTE_E2E_CHROMIUM ]] ||
	die "Chromium is not installed at $MNOTE_E2E_CHROMIUM: install Debian's package ('make deps' as root, or: sudo apt-get install -y --no-install-recommends chromium); browsers are never downloaded"
command -v npm >/dev/null || die "npm is missing: install Node.js 20 or newer"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
	die "Node.js $(node --version) is too old: Playwright needs 20 or newer"

# npm ci only when the lock file changed since the last install.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
stamp=node_modules/.mnote-lock-sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ ! -f $stamp || "$(cat "$stamp")" != "$want" ]]; then
	npm ci --no-audit --no-fund --loglevel=error
	echo "$want" >"$stamp"
fi

rm -rf out
mkdir -p out

# Every temp folder of this run (MNOTE_HOMEs, workspaces, agent state) lives
# under one fresh folder. On exit, a process whose command line names that
# folder (a serve or test agent left behind by a crashed worker) is ours: it
# is stopped, then the folder is removed.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnote-e2e-web.XXXXXX")
export MNOTE_E2E_TMP=$tmp
leftovers() {
	local p cmd
	for p in /proc/[0-9]*; do
		cmd=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
		[[ $cmd == *"$tmp/"* ]] && echo "${p#/proc/}"
	done
	return 0
}
cleanup() {
	local pids
	pids=$(leftovers)
	if [[ -n $pids ]]; then
		echo "e2e/web: stopping leftover processes: $pids" >&2
		kill -TERM $pids 2>/dev/null || true
		sleep 2
		pids=$(leftovers)
		[[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# The tests tagged @perf are the other tests' teardown (playwright.config.ts),
# which Playwright runs whole whatever the filter: with arguments (a filter,
# a file), --no-deps runs only the tests they select.
(($# == 0)) || set -- --no-deps "$@"

start=$(date +%s)
rc=0
node_modules/.bin/playwright test "$@" || rc=$?

if [[ -s out/perf.json ]]; then
	echo "== e2e/web/out/perf.json =="
	cat out/perf.json
fi
echo "e2e/web: $(($(date +%s) - start)) s, exit $rc"
exit $rc
