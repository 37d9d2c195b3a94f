#!/usr/bin/env bash
# Makes sure the build has Node.js 20.19+ and npm: the ones on PATH when they
# are new enough, else a pinned Node and npm from the npm registry (the
# node-linux-<arch> package holds the official Node binary; npm's own
# package its CLI) unpacked into .cache/node, whose bin/ the Makefile puts
# first on PATH. Debian 12 ships Node 18, which the UI build (Vite 8) cannot
# use; Debian 13 and Ubuntu 24.04 ship 20+. Without any npm (a fresh
# machine) it apt-installs Debian's nodejs and npm first when root.
# Idempotent; no network when a good Node is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=20.20.2
NPM_VERSION=11.19.1
dir=.cache/node

die() { printf 'deps: %s\n' "$*" >&2; exit 1; }

# good NODE: NODE runs and is 20.19 or newer.
good() {
	"$1" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a==20&&b>=19)?0:1)' 2>/dev/null
}

if [[ -x $dir/bin/node ]] && good "$dir/bin/node" && [[ -x $dir/bin/npm ]]; then
	exit 0 # pinned copy already in place (the Makefile puts it first on PATH)
fi
if command -v node >/dev/null && good node && command -v npm >/dev/null; then
	exit 0
fi

if ! command -v npm >/dev/null; then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		echo "deps: installing nodejs npm (to fetch the pinned Node $NODE_VERSION if these are too old)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nodejs npm ||
			{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nodejs npm; }
	else
		die "npm is missing: install Node.js 20.19 or newer with npm (Debian/Ubuntu: sudo apt-get install nodejs npm), then run make again"
	fi
fi
if command -v node >/dev/null && good node; then
	exit 0
fi

case $(uname -m) in
x86_64) arch=x64 ;;
aarch64) arch=arm64 ;;
*) die "Node.js $(node --version 2>/dev/null || echo '(none)') is too old and no pinned Node exists for $(uname -m): install Node.js 20.19 or newer" ;;
esac

echo "deps: Node.js $(node --version 2>/dev/null || echo '(none)') is older than 20.19: fetching Node $NODE_VERSION and npm $NPM_VERSION from the npm registry into $dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# npm pack checks each tarball against the registry's integrity hash.
(cd "$tmp" && npm pack --silent "node-linux-$arch@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null) ||
	die "could not download Node $NODE_VERSION from the npm registry (is it reachable? npm config get registry)"
rm -rf "$dir.new"
mkdir -p "$dir.new/node" "$dir.new/npm" "$dir.new/bin"
tar -xzf "$tmp/node-linux-$arch-$NODE_VERSION.tgz" -C "$dir.new/node" --strip-components=1
tar -xzf "$tmp/npm-$NPM_VERSION.tgz" -C "$dir.new/npm" --strip-components=1
# The official binary trusts only its own CA list; Debian's node trusts the
# system's, which holds a site's own CAs (a company proxy): so does this one.
cat >"$dir.new/bin/node" <<'EOF'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")
if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r /etc/ssl/certs/ca-certificates.crt ]; then
	NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
	export NODE_EXTRA_CA_CERTS
fi
exec "$d/../node/bin/node" "$@"
EOF
cat >"$dir.new/bin/npm" <<'EOF'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")
exec "$d/node" "$d/../npm/bin/npm-cli.js" "$@"
EOF
cat >"$dir.new/bin/npx" <<'EOF'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")
exec "$d/node" "$d/../npm/bin/npx-cli.js" "$@"
EOF
chmod +x "$dir.new/bin/node" "$dir.new/bin/npm" "$dir.new/bin/npx"
good "$dir.new/bin/node" || die "the downloaded Node does not run here: install Node.js 20.19 or newer"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "deps: using $("$dir/bin/node" --version) and npm $("$dir/bin/npm" --version) from $dir"
