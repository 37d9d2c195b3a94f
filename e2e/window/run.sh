#!/usr/bin/env bash
# Window smoke test for the real Wails window (called by `make test`).
#
#  1. build/bin/mnote --version works with no display (headless subcommand).
#  2. Starts Xvfb on a free display, starts build/bin/mnote on it with MNOTE_HOME
#     and the XDG dirs in a temp dir, waits for the "mnote" window, waits until the
#     page has rendered (the window is not a single colour), screenshots the
#     screen to e2e/window/out/window.png.
#  3. Sends SIGTERM and checks that the app and every process it started (the
#     WebKit children) exit within 10 s.
# Kills only what it started (the app's process group and tracked children,
# and its own Xvfb). Needs: Xvfb xdotool imagemagick (make deps).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

bin=${MNOTE_BIN:-$root/build/bin/mnote}
out=$root/e2e/window/out
window_timeout=${WINDOW_TIMEOUT:-20} # seconds until the window must be mapped
render_timeout=15 # further seconds until the page must have rendered
exit_timeout=10   # seconds after SIGTERM until everything must be gone

t0=$(date +%s.%N)
say() { printf 'window test [%5.1fs]: %s\n' "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" "$*"; }
fail() {
	printf 'window test: FAIL: %s\n' "$*" >&2
	if [[ -s $out/app.log ]]; then
		printf -- '--- last lines of %s ---\n' "$out/app.log" >&2
		tail -n 30 "$out/app.log" >&2
	fi
	exit 1
}
now() { date +%s.%N; }
elapsed_since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }
before() { awk -v d="$1" -v b="$(now)" 'BEGIN{exit !(b < d)}'; } # now < deadline?
deadline() { awk -v n="$(now)" -v s="$1" 'BEGIN{printf "%.3f", n+s}'; }

[[ -x $bin ]] || fail "$bin not found; run 'make build' first"
for t in Xvfb xdotool import convert identify timeout; do
	command -v "$t" >/dev/null || fail "'$t' is not installed; run 'make deps'"
done

rm -rf "$out"
mkdir -p "$out"
tmp=

# --- process bookkeeping: "pid:starttime" so a reused pid is never mistaken for ours
xvfb_pid=
app_pid=
app_pgid=
tracked=() # pid:starttime of the app and its descendants

# stat_of PID — reads /proc/PID/stat into S_STATE S_PPID S_PGID S_START (no fork:
# the /proc scans stay fast on a busy machine); false if PID is gone.
stat_of() {
	local line
	read -r line 2>/dev/null <"/proc/$1/stat" || return 1
	local -a f
	read -r -a f <<<"${line##*) }" # the fields after "(comm)": 0 state, 1 ppid, 2 pgid, 19 starttime
	S_STATE=${f[0]} S_PPID=${f[1]} S_PGID=${f[2]} S_START=${f[19]}
}
# running PID:START — true if that very process exists and is not a zombie
running() {
	stat_of "${1%%:*}" || return 1
	[[ $S_STATE != Z && $S_STATE != X && $S_START == "${1##*:}" ]]
}
# descendants PID — prints the pids below PID
descendants() {
	local -A kids=()
	local p pp
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		stat_of "$p" || continue
		kids[$S_PPID]+="$p "
	done
	local queue=("$1") cur c
	while ((${#queue[@]})); do
		cur=${queue[0]}
		queue=("${queue[@]:1}")
		for c in ${kids[$cur]:-}; do
			echo "$c"
			queue+=("$c")
		done
	done
}
# group_members PGID — pids in that process group
group_members() {
	local p
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		stat_of "$p" && [[ $S_PGID == "$1" ]] && echo "$p"
	done
	return 0
}
track() { # track PID...
	local p s e
	for p in "$@"; do
		stat_of "$p" || continue
		s=$S_START
		for e in "${tracked[@]}"; do [[ $e == "$p:$s" ]] && continue 2; done
		tracked+=("$p:$s")
	done
}
# leftovers — prints the tracked (or app-group) processes still running
leftovers() {
	local e p
	for e in "${tracked[@]}"; do running "$e" && echo "${e%%:*} $(cat "/proc/${e%%:*}/comm" 2>/dev/null)"; done
	if [[ -n $app_pgid ]]; then
		for p in $(group_members "$app_pgid"); do
			stat_of "$p" && running "$p:$S_START" || continue
			for e in "${tracked[@]}"; do [[ ${e%%:*} == "$p" ]] && continue 2; done
			echo "$p $(cat "/proc/$p/comm" 2>/dev/null)"
		done
	fi
	return 0
}

cleanup() {
	local rc=$? e
	trap - EXIT INT TERM
	# Anything of ours still running at this point is killed (only ours). While
	# app_pid is not reaped it cannot be reused, and a group with that id can
	# only be the app's own (it leads its group, see below).
	if [[ -n $app_pid ]]; then
		kill -KILL -- "-$app_pid" 2>/dev/null || true
		wait "$app_pid" 2>/dev/null || true
	fi
	for e in "${tracked[@]}"; do running "$e" && kill -KILL "${e%%:*}" 2>/dev/null; done
	if [[ -n $xvfb_pid ]]; then
		kill -TERM "$xvfb_pid" 2>/dev/null || true
		for _ in {1..50}; do kill -0 "$xvfb_pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$xvfb_pid" 2>/dev/null || true
		wait "$xvfb_pid" 2>/dev/null || true
	fi
	[[ -z $tmp ]] || rm -rf "$tmp"
	exit "$rc"
}

# The test itself is one function, so bash has parsed all of it before it runs
# (a signal arriving while bash reads the script could otherwise confuse it).
main() {
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnote-window.XXXXXX")

	# --- 1. headless: a subcommand needs no display
	v=$(env -u DISPLAY -u WAYLAND_DISPLAY timeout 10 "$bin" --version 2>&1) ||
		fail "'mnote --version' without a display failed: $v"
	[[ $v == "mnote "* ]] || fail "'mnote --version' printed '$v', want 'mnote <version>'"
	say "headless: $v"
	if msg=$(env -u DISPLAY -u WAYLAND_DISPLAY timeout 10 "$bin" 2>&1); then
		fail "mnote with no arguments and no display exited 0"
	fi
	[[ $msg == *"no display"* ]] || fail "mnote with no display did not say so clearly: $msg"

	# --- 2. Xvfb on a free display (Xvfb picks it and reports it on fd 3 once it is ready)
	Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$tmp/display" >"$out/xvfb.log" 2>&1 &
	xvfb_pid=$!
	dl=$(deadline 10)
	while [[ ! -s $tmp/display ]]; do
		kill -0 "$xvfb_pid" 2>/dev/null || fail "Xvfb exited: $(tail -n 5 "$out/xvfb.log")"
		before "$dl" || fail "Xvfb did not report a display within 10 s"
		sleep 0.05
	done
	display=":$(tr -dc 0-9 <"$tmp/display")"
	export DISPLAY=$display
	unset WAYLAND_DISPLAY
	say "Xvfb pid $xvfb_pid on $display"

	# --- the app, in its own process group, with all its state in the temp dir
	mkdir -p "$tmp/home" "$tmp/xdg/config" "$tmp/xdg/data" "$tmp/xdg/cache" "$tmp/xdg/state" "$tmp/xdg/run"
	chmod 700 "$tmp/xdg/run"
	env MNOTE_HOME="$tmp/home" \
		XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data" \
		XDG_CACHE_HOME="$tmp/xdg/cache" XDG_STATE_HOME="$tmp/xdg/state" \
		XDG_RUNTIME_DIR="$tmp/xdg/run" GDK_BACKEND=x11 NO_AT_BRIDGE=1 \
		setsid "$bin" >"$out/app.log" 2>&1 &
	app_pid=$!
	started=$(now)
	dl=$(deadline 5) # setsid makes the app lead a new process group before it execs mnote
	while :; do
		stat_of "$app_pid" || fail "the app exited at once"
		pg=$S_PGID
		[[ $pg != "$app_pid" ]] || break
		before "$dl" || fail "the app is not in its own process group (pgid $pg)"
		sleep 0.02
	done
	app_pgid=$pg
	track "$app_pid"
	say "app pid $app_pid started"

	# --- wait for the window
	wid=
	dl=$(deadline "$window_timeout")
	while :; do
		running "${tracked[0]}" || fail "the app exited before its window appeared"
		wid=$(timeout 5 xdotool search --onlyvisible --name '^mnote$' 2>/dev/null | head -n 1) || true
		[[ -z $wid ]] || break
		before "$dl" || fail "no visible window named 'mnote' within ${window_timeout} s"
		sleep 0.1
	done
	say "window $wid mapped after $(elapsed_since "$started")s ($(xdotool getwindowgeometry "$wid" | sed -n 's/ *Geometry: //p'))"

	# --- wait until the page has rendered: the window is not one flat colour
	dl=$(deadline "$render_timeout")
	while :; do
		running "${tracked[0]}" || fail "the app exited before the page rendered"
		if timeout 10 import -window "$wid" "$tmp/win.png" 2>/dev/null; then
			colours=$(identify -format '%k' "$tmp/win.png")
			sd=$(convert "$tmp/win.png" -format '%[fx:standard_deviation]' info:)
			awk -v s="$sd" -v c="$colours" 'BEGIN{exit !(s > 0.005 && c >= 16)}' && break
		fi
		before "$dl" || {
			cp "$tmp/win.png" "$out/window-blank.png" 2>/dev/null || true
			fail "the window stayed blank for ${render_timeout} s (std dev ${sd:-?}, ${colours:-?} colours; see $out/window-blank.png)"
		}
		sleep 0.2
	done
	say "page rendered after $(elapsed_since "$started")s (window: std dev $sd, $colours colours)"
	grep -q 'msg="page loaded"' "$out/app.log" || fail "the app did not log 'page loaded' (OnDomReady)"

	timeout 10 import -window root "$out/window.png" || fail "screenshot failed"
	sd=$(convert "$out/window.png" -format '%[fx:standard_deviation]' info:)
	colours=$(identify -format '%k' "$out/window.png")
	awk -v s="$sd" -v c="$colours" 'BEGIN{exit !(s > 0 && c > 2)}' ||
		fail "the screenshot is blank (std dev $sd, $colours colours)"
	say "screenshot $out/window.png (std dev $sd, $colours colours)"

	# --- what the app started (WebKit children), and how much memory it all uses
	mapfile -t kids < <(descendants "$app_pid"; group_members "$app_pgid")
	track "${kids[@]}"
	pss=0
	names=
	for e in "${tracked[@]}"; do
		p=${e%%:*}
		read -r comm <"/proc/$p/comm" || comm=?
		names+="$comm($p) "
		while read -r key val _; do
			[[ $key == Pss: ]] && pss=$((pss + val))
		done <"/proc/$p/smaps_rollup" || true
	done
	say "processes: ${names}— PSS $((pss / 1024)) MiB in all"
	((${#tracked[@]} > 1)) || say "warning: no WebKit child processes seen"

	# --- 3. SIGTERM: everything must be gone within exit_timeout
	kill -TERM "$app_pid"
	termed=$(now)
	dl=$(deadline "$exit_timeout")
	while running "${tracked[0]}"; do
		before "$dl" || fail "the app (pid $app_pid) did not exit within ${exit_timeout} s of SIGTERM"
		sleep 0.05
	done
	app_rc=0
	wait "$app_pid" || app_rc=$?
	app_pid= # reaped: its pid may be reused from now on
	app_exit=$(elapsed_since "$termed")
	while [[ -n $(leftovers) ]]; do
		before "$dl" || fail "still running ${exit_timeout} s after SIGTERM: $(leftovers | tr '\n' ' ')"
		sleep 0.05
	done
	say "app exited with status $app_rc after ${app_exit}s; all ${#tracked[@]} processes gone after $(elapsed_since "$termed")s"
	((app_rc == 0)) || fail "the app exited with status $app_rc after SIGTERM, want 0"
	grep -q 'msg="mnote window shut down"' "$out/app.log" || fail "the app did not log its shutdown (OnShutdown)"

	say "ok"
}

main "$@"
exit
