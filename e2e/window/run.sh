#!/usr/bin/env bash
# Window smoke test for the real Wails window (called by `make test`).
#
#  1. build/bin/mnote --version works with no display (headless subcommand);
#     prints which WebKitGTK (4.0 or 4.1) build/bin/mnote-app links, and checks
#     that build/bin/mnote (the command line, which execs it) links neither.
#  2. Starts Xvfb on a free display, starts build/bin/mnote on it with MNOTE_HOME
#     and the XDG dirs in a temp dir, waits for the "mnote" window, waits until the
#     page has rendered (the window is not a single colour), screenshots the
#     screen to e2e/window/out/window.png.
#     A second `mnote FOLDER` (on the same D-Bus session bus) must hand the
#     folder to the running window and exit 0: one window, which opens it.
#  3. Sends SIGTERM and checks that the app and every process it started (the
#     WebKit children) exit within 10 s.
# Kills only what it started (the app's process group and tracked children,
# and its own Xvfb). Needs: Xvfb xdotool imagemagick (make deps).
set -euo pipefail
T_NAME='window test'
LOG_PREFIX=
# shellcheck source=lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"

# The test itself is one function, so bash has parsed all of it before it runs
# (a signal arriving while bash reads the script could otherwise confuse it).
main() {
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM

	[[ -x $bin && -x $app_bin ]] || fail "$bin or $app_bin not found; run 'make build' first"
	need Xvfb xdotool import convert identify timeout ldd
	mkdir -p "$out"
	rm -f "$out"/{window.png,window-blank.png,app.log,xvfb.log}
	make_tmp

	# --- 1. headless: a subcommand needs no display
	v=$(env -u DISPLAY -u WAYLAND_DISPLAY timeout 10 "$bin" --version 2>&1) ||
		fail "'mnote --version' without a display failed: $v"
	[[ $v == "mnote "* ]] || fail "'mnote --version' printed '$v', want 'mnote <version>'"
	say "headless: $v"
	if msg=$(env -u DISPLAY -u WAYLAND_DISPLAY timeout 10 "$bin" 2>&1); then
		fail "mnote with no arguments and no display exited 0"
	fi
	[[ $msg == *"no display"* ]] || fail "mnote with no display did not say so clearly: $msg"
	# which WebKitGTK the build links (4.1 with the webkit2_41 tag, else 4.0)
	webkit=$(ldd "$app_bin" | grep -o 'libwebkit2gtk-4\.[01]' | head -n 1) || true
	[[ -n $webkit ]] || fail "$app_bin links no libwebkit2gtk-4.0/4.1"
	! ldd "$bin" | grep -Eq 'libgtk|libwebkit' || fail "the command line $bin links GTK or WebKit"
	say "the window links $webkit; the command line neither GTK nor WebKit"

	# --- 2. the real window on Xvfb
	start_bus
	start_xvfb
	start_app
	wait_window
	# the task switcher's name and icon: WM_CLASS "mnote" (the .desktop's StartupWMClass)
	if command -v xprop >/dev/null; then
		wmclass=$(xprop -id "$wid" WM_CLASS 2>/dev/null) || true
		[[ $wmclass == *'"mnote"'* ]] || fail "the window's WM_CLASS is '$wmclass', want \"mnote\""
		say "$wmclass"
	fi
	wait_rendered

	screenshot "$out/window.png"
	sd=$(convert "$out/window.png" -format '%[fx:standard_deviation]' info:)
	colours=$(identify -format '%k' "$out/window.png")
	awk -v s="$sd" -v c="$colours" 'BEGIN{exit !(s > 0 && c > 2)}' ||
		fail "the screenshot is blank (std dev $sd, $colours colours)"
	say "screenshot $out/window.png (std dev $sd, $colours colours)"

	# --- a second launch hands its folder over to the running window
	mkdir -p "$tmp/second folder"
	printf '# 第二\n' >"$tmp/second folder/note.md"
	second=$(env MNOTE_HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data" \
		XDG_CACHE_HOME="$tmp/xdg/cache" XDG_STATE_HOME="$tmp/xdg/state" XDG_RUNTIME_DIR="$tmp/xdg/run" \
		GDK_BACKEND=x11 NO_AT_BRIDGE=1 timeout 20 "$bin" "$tmp/second folder/note.md" 2>&1) ||
		fail "a second 'mnote NOTE' did not exit 0 within 20 s: $second"
	[[ $second == *"already running"* ]] || fail "the second launch did not hand over to the running window: $second"
	dl=$(deadline 10)
	until grep -q 'msg="opened the folder of a second launch"' "$app_log"; do
		before "$dl" || fail "the running window did not open the second launch's folder (see $app_log)"
		sleep 0.1
	done
	n=$(timeout 5 xdotool search --onlyvisible --name '^mnote$' 2>/dev/null | wc -l) || true
	((n == 1)) || fail "$n windows named mnote after the second launch, want 1"
	app_alive || fail "the app exited after the second launch"
	sleep 1.5 # the page reloads on the new folder
	screenshot "$out/window-second.png"
	say "a second launch handed its note over to the running window (one window; $out/window-second.png)"

	# --- what the app started (WebKit children), and how much memory it all uses
	track_tree
	pss=0
	names=
	while read -r p name kb _; do
		names+="$name($p) "
		pss=$((pss + kb))
	done < <(pss_table)
	say "processes: ${names}— PSS $((pss / 1024)) MiB in all"
	((${#tracked[@]} > 1)) || say "warning: no WebKit child processes seen"

	# --- 3. SIGTERM: everything must be gone within exit_timeout
	stop_app
	say "ok"
}

main "$@"
exit
