#!/usr/bin/env bash
# Installs what `make build` and `make test` need, when it is missing.
# Idempotent, and fast (no apt, no network) when everything is present.
# As root it installs with apt-get; otherwise it prints the sudo command and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

build_pkgs=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.0-dev) # cgo, GTK 3, WebKitGTK
test_pkgs=(xvfb xauth xdotool imagemagick tesseract-ocr chromium postgresql patch util-linux iproute2) # e2e/window (OCR), e2e/web (Chromium), controlplane (PostgreSQL), workspace diffs (patch), offline agents (unshare, ip)

die() { printf 'deps: %s\n' "$*" >&2; exit 1; }

command -v go >/dev/null ||
	die "Go is not installed; install Go $(sed -n 's/^go //p' go.mod) or newer from https://go.dev/dl/ and put it on PATH"

missing=()
if command -v dpkg-query >/dev/null; then
	for p in "${build_pkgs[@]}" "${test_pkgs[@]}"; do
		[[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == "install ok installed" ]] || missing+=("$p")
	done
else
	# Not Debian/Ubuntu: check for the tools and libraries themselves.
	for c in cc pkg-config Xvfb xauth xdotool convert import; do
		command -v "$c" >/dev/null || missing+=("$c")
	done
	for m in gtk+-3.0 webkit2gtk-4.0; do
		pkg-config --exists "$m" 2>/dev/null || missing+=("$m (pkg-config)")
	done
	((${#missing[@]} == 0)) ||
		die "missing: ${missing[*]}; install the equivalents of the Debian packages: ${build_pkgs[*]} ${test_pkgs[*]}"
fi

if ((${#missing[@]})); then
	if [[ $(id -u) -eq 0 ]]; then
		echo "deps: installing ${missing[*]}"
		apt-get update -q
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
	else
		printf 'deps: missing packages: %s\n' "${missing[*]}" >&2
		printf 'deps: install them with:\n  sudo apt-get update && sudo apt-get install -y --no-install-recommends %s\n' "${missing[*]}" >&2
		die "then run make again"
	fi
fi

if [[ -f frontend/package.json ]]; then
	command -v npm >/dev/null || die "frontend/package.json exists but npm is not installed (Node 20 or newer)"
fi

go mod download
