#!/usr/bin/env bash
# Installs the published ACP agents that the offline end-to-end tests
# (e2e/agents) drive, pinned, into .cache/agents/ (git-ignored), and links
# their commands into .cache/agents/bin/. An agent already installed at the
# pinned version is reused, so a second run takes a moment.
#
# Usage: scripts/agents.sh [--print-bin]
#   --print-bin  print only the bin folder (for PATH=$(scripts/agents.sh --print-bin):$PATH)
#
# Optional dependencies are kept on purpose: Reasonix's binary is the
# optional package @reasonix/cli-<os>-<arch>, OpenCode's is opencode-<os>-<arch>.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD/.cache/agents
bin=$root/bin

# package@version  command(s) it provides
agents=(
	"@qwen-code/qwen-code@0.24.4 qwen"
	"opencode-ai@1.18.33 opencode"
	"reasonix@1.38.11 reasonix"
)

quiet=false
[[ ${1:-} == --print-bin ]] && quiet=true
say() { $quiet || echo "$@"; }
die() {
	echo "agents.sh: $*" >&2
	exit 1
}

command -v npm >/dev/null || die "npm is missing: install Node.js 20 or newer with npm (Debian: apt-get install nodejs npm)"
command -v node >/dev/null || die "node is missing: install Node.js 20 or newer"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
	die "Node.js $(node --version) is too old: the agents need 20 or newer"

mkdir -p "$root" "$bin"

# installed DIR PKG VERSION: the package in DIR is at VERSION.
installed() {
	local f=$1/node_modules/$2/package.json
	[[ -f $f && -f $1/.complete ]] || return 1
	[[ $(node -p "require(process.argv[1]).version" "$f" 2>/dev/null) == "$3" ]]
}

for row in "${agents[@]}"; do
	read -r spec cmds <<<"$row"
	pkg=${spec%@*}
	ver=${spec##*@}
	dir=$root/${pkg//\//+}@$ver
	if installed "$dir" "$pkg" "$ver"; then
		say "$spec: already installed in $dir"
	else
		say "$spec: installing into $dir"
		tmp=$(mktemp -d "$root/.install-XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		echo '{"private":true}' >"$tmp/package.json"
		start=$SECONDS
		if ! npm install --prefix "$tmp" --no-audit --no-fund --no-save --loglevel=error "$spec" >"$tmp.log" 2>&1; then
			cat "$tmp.log" >&2
			rm -f "$tmp.log"
			die "npm install $spec failed (output above); check that the npm registry is reachable (npm config get registry) and retry"
		fi
		rm -f "$tmp.log"
		touch "$tmp/.complete"
		installed "$tmp" "$pkg" "$ver" || die "npm installed $spec but $tmp/node_modules/$pkg is not version $ver"
		rm -rf "$dir"
		mv "$tmp" "$dir"
		trap - EXIT
		say "$spec: installed in $((SECONDS - start)) s"
	fi
	for c in $cmds; do
		target=$dir/node_modules/.bin/$c
		[[ -x $target ]] || die "$spec has no command $c ($target missing)"
		ln -sfn "$target" "$bin/$c"
		# The command must start: a broken optional binary shows here. Its
		# HOME and XDG folders are a scratch folder: agents create state
		# there even for --version.
		scratch=$root/.home
		if ! out=$(HOME=$scratch XDG_CONFIG_HOME=$scratch/config XDG_DATA_HOME=$scratch/data \
			XDG_CACHE_HOME=$scratch/cache XDG_STATE_HOME=$scratch/state \
			OPENCODE_DISABLE_AUTOUPDATE=1 REASONIX_TELEMETRY=0 DO_NOT_TRACK=1 \
			"$bin/$c" --version 2>&1 </dev/null); then
			die "$bin/$c --version failed: $out"
		fi
		say "  $c -> $target ($(head -n1 <<<"$out"))"
	done
done

if $quiet; then
	echo "$bin"
else
	echo "agents installed; their commands are in $bin"
fi
