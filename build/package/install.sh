#!/bin/sh
# Installs this mnote for one user (or uninstalls it):
#
#   ./install.sh [install|uninstall]     PREFIX=DIR to choose (default ~/.local)
#
# bin/mnote (the command line) goes to $PREFIX/bin, lib/mnote/mnote-app (the
# window, which mnote starts) to $PREFIX/lib/mnote, the .desktop entry, the
# icons and the man page below $PREFIX/share; the entry's Exec names the
# installed mnote. Uninstall removes those files; your notes, sessions and
# settings stay.
set -eu
cd "$(dirname "$0")"
action=${1:-install}
prefix=${PREFIX:-${HOME:?}/.local}
prefix=${prefix%/}
case $prefix in /*) ;; *) echo "install: PREFIX must be an absolute path" >&2; exit 1 ;; esac
case $prefix in *[!A-Za-z0-9/._+,:@=-]*) echo "install: PREFIX '$prefix' has a character a .desktop Exec line cannot hold here" >&2; exit 1 ;; esac
files=$(find bin lib share -type f | sort)
case $action in
install)
	for f in $files; do
		mkdir -p "$prefix/$(dirname "$f")"
		if [ "$f" = share/applications/mnote.desktop ]; then
			sed -e "s|^Exec=mnote|Exec=$prefix/bin/mnote|" -e "s|^TryExec=mnote\$|TryExec=$prefix/bin/mnote|" "$f" >"$prefix/$f.tmp"
			mv "$prefix/$f.tmp" "$prefix/$f"
			chmod 644 "$prefix/$f"
		else
			cp "$f" "$prefix/$f.tmp" && mv "$prefix/$f.tmp" "$prefix/$f"
		fi
		echo "installed $prefix/$f"
	done
	;;
uninstall)
	for f in $files; do
		[ ! -e "$prefix/$f" ] || { rm -f "$prefix/$f"; echo "removed $prefix/$f"; }
	done
	rmdir "$prefix/lib/mnote" 2>/dev/null || true
	echo "your notes, sessions and settings are kept"
	;;
*) echo "usage: $0 [install|uninstall]" >&2; exit 2 ;;
esac
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$prefix/share/applications" 2>/dev/null || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -f -t "$prefix/share/icons/hicolor" 2>/dev/null || true
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "note: $prefix/bin is not on your PATH (the menu entry works anyway)" ;; esac
