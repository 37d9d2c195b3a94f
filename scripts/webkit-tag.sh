#!/usr/bin/env bash
# Prints the Go build tag that makes Wails v2 link the WebKitGTK installed here:
# "webkit2_41" when pkg-config finds webkit2gtk-4.1, else nothing (Wails'
# default, webkit2gtk-4.0). 4.1 wins when both are installed: it is the API of
# current distributions (the only one on Debian 13 and Ubuntu 24.04) and uses
# libsoup 3; 4.0 uses libsoup 2, which is no longer maintained.
#
# The one place that decides the tag: the Makefile adds it to every build of the
# app (build, install, the window tests' binary); scripts/deps.sh installs
# libwebkit2gtk-4.1-dev when the distribution has it. Always exits 0 and prints
# only "webkit2_41" or nothing, so `$(shell scripts/webkit-tag.sh)` is safe.
set -euo pipefail
if pkg-config --exists webkit2gtk-4.1 2>/dev/null; then
	echo webkit2_41
fi
