#!/usr/bin/env bash
# Installs (or uninstalls) mnote for one user: `make install` / `make uninstall`.
#
#   scripts/install.sh install|uninstall
#
#   PREFIX   where to install (default $HOME/.local)
#   BINDIR   the binary's folder (default $PREFIX/bin)
#   DATADIR  the data folder (default $PREFIX/share)
#   DESTDIR  a staging root for packagers: files go below it, but the paths
#            written into the .desktop file do not include it
#
# install copies build/bin/mnote (the command line) to $BINDIR/mnote, the
# window build/bin/mnote-app to $PREFIX/lib/mnote/mnote-app (where mnote finds
# it: ../lib/mnote/ from its own folder), build/appicon.png to
# $DATADIR/icons/hicolor/256x256/apps/mnote.png and build/linux/mnote.desktop
# to $DATADIR/applications/mnote.desktop with Exec and TryExec set to the
# installed binary's absolute path, checks that file with desktop-file-validate
# and refreshes the menu and icon caches (each only if the tool is there).
# uninstall removes those files; your notes, sessions and settings stay.
set -euo pipefail
cd "$(dirname "$0")/.."

action=${1:-install}
prefix=${PREFIX:-${HOME:?}/.local}
prefix=${prefix%/}
bindir=${BINDIR:-$prefix/bin}
datadir=${DATADIR:-$prefix/share}
dest=${DESTDIR:-}
dest=${dest%/}

bin_path=$bindir/mnote
app_path=$(dirname "$bindir")/lib/mnote/mnote-app # mnote looks in ../lib/mnote/
apps_dir=$datadir/applications
icons_dir=$datadir/icons/hicolor
desktop_path=$apps_dir/mnote.desktop
icon_path=$icons_dir/256x256/apps/mnote.png

die() {
	printf 'install: %s\n' "$*" >&2
	exit 1
}

for p in "$bin_path" "$datadir"; do
	[[ $p == /* ]] || die "paths must be absolute (got '$p'); set PREFIX to an absolute path"
	[[ $p != *$'\n'* ]] || die "a path with a newline cannot go into a .desktop file"
done

# exec_arg PATH — PATH as one argument of a .desktop Exec key: quoted when it
# has a reserved character, then escaped as a desktop-entry string value
exec_arg() {
	local s=$1
	if [[ $s =~ [^A-Za-z0-9/._+,:@=-] ]]; then
		s=${s//\\/\\\\}
		s=${s//\"/\\\"}
		s=${s//\`/\\\`}
		s=${s//\$/\\\$}
		s="\"$s\""
	fi
	s=${s//\\/\\\\} # the string-level escape of the key's value
	s=${s//%/%%}    # % starts a field code
	printf '%s' "$s"
}
# string_value S — S escaped as a desktop-entry string value
string_value() {
	local s=$1
	s=${s//\\/\\\\}
	printf '%s' "$s"
}

refresh_caches() {
	[[ -z $dest ]] || return 0 # staged: the package's own scripts do it
	if command -v update-desktop-database >/dev/null && [[ -d $apps_dir ]]; then
		update-desktop-database -q "$apps_dir" || true
	fi
	if command -v gtk-update-icon-cache >/dev/null && [[ -d $icons_dir ]]; then
		gtk-update-icon-cache -q -f -t "$icons_dir" 2>/dev/null || true
	fi
}

case $action in
install)
	[[ -x build/bin/mnote && -x build/bin/mnote-app ]] || die "build/bin/mnote or build/bin/mnote-app not found; run 'make build' first"
	[[ -f build/appicon.png && -f build/linux/mnote.desktop ]] || die "build/appicon.png or build/linux/mnote.desktop is missing"
	tmpdir=$(mktemp -d)
	trap 'rm -rf "$tmpdir"' EXIT
	tmp=$tmpdir/mnote.desktop # desktop-file-validate wants the extension
	exec_value=$(exec_arg "$bin_path")
	tryexec_value=$(string_value "$bin_path")
	# Exec and TryExec name the installed binary; everything else as in the source.
	DESKTOP_EXEC=$exec_value DESKTOP_TRYEXEC=$tryexec_value awk '
		/^\[/ { group = $0 }
		group == "[Desktop Entry]" && /^TryExec=/ { next }
		group == "[Desktop Entry]" && /^Exec=/ {
			args = $0; sub(/^Exec=[^ ]*/, "", args) # keep the field codes (%f)
			print "Exec=" ENVIRON["DESKTOP_EXEC"] args; print "TryExec=" ENVIRON["DESKTOP_TRYEXEC"]; next
		}
		{ print }
	' build/linux/mnote.desktop >"$tmp"
	grep -q '^Exec=/' "$tmp" || grep -q '^Exec="/' "$tmp" || die "build/linux/mnote.desktop has no Exec line"
	if command -v desktop-file-validate >/dev/null; then
		desktop-file-validate "$tmp" || die "desktop-file-validate rejected the .desktop file"
	fi
	install -Dm755 build/bin/mnote "$dest$bin_path"
	install -Dm755 build/bin/mnote-app "$dest$app_path"
	install -Dm644 build/appicon.png "$dest$icon_path"
	install -Dm644 "$tmp" "$dest$desktop_path"
	refresh_caches
	printf 'installed:\n  %s\n  %s\n  %s\n  %s\n' "$dest$bin_path" "$dest$app_path" "$dest$desktop_path" "$dest$icon_path"
	case ":$PATH:" in
	*":$bindir:"*) ;;
	*) printf 'note: %s is not on your PATH (the menu entry works anyway; for the headless commands add it)\n' "$bindir" ;;
	esac
	;;
uninstall)
	removed=0
	for f in "$dest$bin_path" "$dest$app_path" "$dest$desktop_path" "$dest$icon_path"; do
		if [[ -e $f || -L $f ]]; then
			rm -f -- "$f"
			printf 'removed %s\n' "$f"
			removed=$((removed + 1))
		fi
	done
	refresh_caches
	((removed)) || printf 'nothing to remove under %s\n' "${dest}$prefix"
	printf 'your notes, sessions and settings are kept (see README "Data")\n'
	;;
*)
	die "usage: $0 install|uninstall"
	;;
esac
