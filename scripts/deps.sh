#!/usr/bin/env bash
# Installs what `make build` and `make test` need, when it is missing.
# Idempotent, and fast (no apt-get, no network) when everything is present.
# As root it installs with apt-get; otherwise it prints the sudo command and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

build_pkgs=(build-essential pkg-config libgtk-3-dev) # cgo, GTK 3; WebKitGTK: see pick_webkit
test_pkgs=(xvfb xauth dbus-daemon xdotool imagemagick tesseract-ocr fonts-noto-cjk chromium postgresql patch util-linux iproute2) # e2e/window (OCR, CJK text, a session bus), e2e/web (Chromium), controlplane (PostgreSQL), workspace diffs (patch), offline agents (unshare, ip)
webkit41=libwebkit2gtk-4.1-dev webkit40=libwebkit2gtk-4.0-dev

die() { printf 'deps: %s\n' "$*" >&2; exit 1; }

installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]; }
# available PKG: apt knows a real package PKG (in its lists; no network)
available() {
	local out
	out=$(apt-cache show --no-all-versions "$1" 2>/dev/null) && [[ $out == *"Package: $1"* ]]
}
updated=
apt_update() {
	[[ -n $updated ]] || apt-get update -q
	updated=1
}

# pick_webkit sets webkit to the WebKitGTK development package to build
# against: 4.1 when the distribution has it (Debian 13 and Ubuntu 24.04 have
# nothing else), else 4.0; scripts/webkit-tag.sh then gives the Wails build tag
# for what is installed. A user who is not root and already has only 4.0 keeps
# it (nothing to install).
pick_webkit() {
	if installed $webkit41; then
		webkit=$webkit41
	elif available $webkit41; then
		webkit=$webkit41
		if [[ $(id -u) -ne 0 ]] && installed $webkit40; then
			printf 'deps: building against WebKitGTK 4.0; %s (4.1, libsoup 3) is available and preferred\n' $webkit41 >&2
			webkit=$webkit40
		fi
	elif installed $webkit40 || available $webkit40; then
		webkit=$webkit40
	elif [[ $(id -u) -eq 0 && -z $updated ]]; then
		# A fresh image may have empty apt lists: read them, then decide.
		apt_update
		pick_webkit
	else
		die "apt knows neither $webkit41 nor $webkit40: run apt-get update"
	fi
}

command -v go >/dev/null ||
	die "Go is not installed; install Go $(sed -n 's/^go //p' go.mod) or newer from https://go.dev/dl/ and put it on PATH"

missing=()
if command -v dpkg-query >/dev/null; then
	pick_webkit
	build_pkgs+=("$webkit")
	for p in "${build_pkgs[@]}" "${test_pkgs[@]}"; do
		installed "$p" || missing+=("$p")
	done
else
	# Not Debian/Ubuntu: check for the tools and libraries themselves.
	for c in cc pkg-config Xvfb xauth xdotool convert import; do
		command -v "$c" >/dev/null || missing+=("$c")
	done
	pkg-config --exists gtk+-3.0 2>/dev/null || missing+=("gtk+-3.0 (pkg-config)")
	pkg-config --exists webkit2gtk-4.1 2>/dev/null || pkg-config --exists webkit2gtk-4.0 2>/dev/null ||
		missing+=("webkit2gtk-4.1 or webkit2gtk-4.0 (pkg-config)")
	((${#missing[@]} == 0)) ||
		die "missing: ${missing[*]}; install the equivalents of the Debian packages: ${build_pkgs[*]} $webkit41 ${test_pkgs[*]}"
fi

if ((${#missing[@]})); then
	if [[ $(id -u) -eq 0 ]]; then
		echo "deps: installing ${missing[*]}"
		apt_update
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
	else
		printf 'deps: missing packages: %s\n' "${missing[*]}" >&2
		printf 'deps: install them with:\n  sudo apt-get update && sudo apt-get install -y --no-install-recommends %s\n' "${missing[*]}" >&2
		die "then run make again"
	fi
fi

# Node.js 20.19+ and npm for the UI build (a pinned copy in .cache/node
# where the system's is older, e.g. Debian 12's Node 18).
scripts/node.sh

go mod download
