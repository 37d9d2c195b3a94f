# shellcheck shell=bash
# Shared by the window tests (run.sh, chat.sh, pss.sh): timing and messages,
# Xvfb, starting the real app in its own process group, waiting for its window,
# bookkeeping of every process it starts, PSS, a clean SIGTERM shutdown, and OCR
# of screenshots (tesseract) to find and read text as a person would.
#
# Source it from a script that runs `set -euo pipefail`, after setting
# T_NAME (the prefix of every message) and LOG_PREFIX (prefix of the log files
# in e2e/window/out, e.g. "chat-"). The caller runs its test as one function
# that starts with `trap cleanup EXIT` (see run.sh).
# Kills only what it started: its Xvfb, the app's process group, and the
# processes it saw below the app (tracked as pid:starttime).

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
root=$PWD

T_NAME=${T_NAME:-window test}
LOG_PREFIX=${LOG_PREFIX:-}
bin=${MNOTE_BIN:-$root/build/bin/mnote}             # the command line: execs the window's binary
app_bin=${MNOTE_APP_BIN:-$(dirname "$bin")/mnote-app} # the window (GTK, WebKit)
testagent=${MNOTE_TESTAGENT_BIN:-$root/build/bin/mnote-testagent}
out=$root/e2e/window/out
app_log=$out/${LOG_PREFIX}app.log
xvfb_log=$out/${LOG_PREFIX}xvfb.log
window_timeout=${WINDOW_TIMEOUT:-20} # seconds until the window must be mapped
render_timeout=15 # further seconds until the page must have rendered
exit_timeout=10   # seconds after SIGTERM until everything must be gone
screen_size=${SCREEN_SIZE:-1280x800}

t0=$(date +%s.%N)
now() { date +%s.%N; }
elapsed_since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }
before() { awk -v d="$1" -v b="$(now)" 'BEGIN{exit !(b < d)}'; } # now < deadline?
deadline() { awk -v n="$(now)" -v s="$1" 'BEGIN{printf "%.3f", n+s}'; }
say() { printf '%s [%5.1fs]: %s\n' "$T_NAME" "$(elapsed_since "$t0")" "$*"; }
fail() {
	printf '%s: FAIL: %s\n' "$T_NAME" "$*" >&2
	if [[ -s $app_log ]]; then
		printf -- '--- last lines of %s ---\n' "$app_log" >&2
		tail -n 30 "$app_log" >&2
	fi
	exit 1
}
# need TOOL... — fails naming the first missing tool
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || fail "'$t' is not installed; run 'make deps'"
	done
}

tmp=
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
	local p
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
# track_tree — tracks every process now below the app or in its group (the
# WebKit children share the app's group; agents get groups of their own)
track_tree() {
	[[ -n $app_pid ]] || return 0
	local kids
	mapfile -t kids < <(descendants "$app_pid"; group_members "$app_pgid")
	track "${kids[@]}"
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
# proc_name PID — the program's file name (comm is cut at 15 characters)
proc_name() {
	local a
	a=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | head -n 1) || true
	a=${a##*/}
	[[ -n $a ]] || read -r a <"/proc/$1/comm" || a='?'
	printf '%s\n' "$a"
}

cleanup() {
	local rc=$? e
	trap - EXIT INT TERM
	# Anything of ours still running at this point is killed (only ours). While
	# app_pid is not reaped it cannot be reused, and a group with that id can
	# only be the app's own (it leads its group, see start_app).
	if [[ -n $app_pid ]]; then
		track_tree 2>/dev/null || true
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
	[[ -z ${bus_pid:-} ]] || kill -TERM "$bus_pid" 2>/dev/null || true
	[[ -z $tmp || -n ${MNOTE_KEEP_TMP:-} ]] || rm -rf "$tmp"
	# `make test` lists the slowest tests of all suites (scripts/testreport).
	[[ -z ${TEST_REPORTS:-} ]] ||
		printf 'window\t%s\t%s\n' "e2e/window/${0##*/}" "$(elapsed_since "$t0")" >>"$TEST_REPORTS/window.tsv" || true
	exit "$rc"
}

# make_tmp — the temp dir for this run (removed by cleanup)
make_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnote-window.XXXXXX")
	mkdir -p "$tmp/home" "$tmp/xdg/config" "$tmp/xdg/data" "$tmp/xdg/cache" "$tmp/xdg/state" "$tmp/xdg/run"
	chmod 700 "$tmp/xdg/run"
}

# start_bus — a D-Bus session bus of our own (the single-instance lock lives
# on it: a second launch hands over to the running window); exports
# DBUS_SESSION_BUS_ADDRESS. Killed by cleanup.
bus_pid=
start_bus() {
	local info
	info=$(dbus-daemon --session --fork --nopidfile --print-address=1 --print-pid=1 --address="unix:path=$tmp/bus") ||
		fail "dbus-daemon did not start"
	DBUS_SESSION_BUS_ADDRESS=$(sed -n 1p <<<"$info")
	bus_pid=$(sed -n 2p <<<"$info")
	export DBUS_SESSION_BUS_ADDRESS
	say "D-Bus session bus pid $bus_pid"
}

# start_xvfb — Xvfb on a free display, ready for the app's GTK; exports
# DISPLAY.
#
# -noreset: an X server resets when its last client disconnects, and a client
# that connects as the reset begins is dropped. While the app starts, the
# polls of wait_window (one short xdotool client each) are such last clients,
# so the app's gtk_init_check could open the display just then and fail:
# "panic: failed to init GTK". Every reset also compiles the keymap again
# (xkbcomp; Xvfb deletes the compiled map once it has loaded it), and the
# longer a reset takes, the likelier the app's connection meets one: on a
# fresh machine, with xkbcomp and the XKB files not yet in the page cache,
# the first run failed so and the rerun passed. Measured with each reset
# made 300 ms longer: 8 of 30 X clients started 0.5-1 s after Xvfb while
# xdotool polled could not open the display; with -noreset none of 30. Not
# the cause: -displayfd is written once the server listens and has
# initialised (a client at once connects), no auth is used (no cookie to
# wait for), and fontconfig and D-Bus come after gtk_init.
start_xvfb() {
	Xvfb -displayfd 3 -screen 0 "${screen_size}x24" -nolisten tcp -noreset 3>"$tmp/display" >"$xvfb_log" 2>&1 &
	xvfb_pid=$!
	local dl num err loc
	dl=$(deadline 10)
	# Xvfb writes the display number and a newline: read a whole line.
	until IFS= read -r num 2>/dev/null <"$tmp/display"; do
		kill -0 "$xvfb_pid" 2>/dev/null || fail "Xvfb exited: $(tail -n 5 "$xvfb_log")"
		before "$dl" || fail "Xvfb did not report a display within 10 s (see $xvfb_log)"
		sleep 0.05
	done
	DISPLAY=":${num//[^0-9]/}"
	export DISPLAY
	unset WAYLAND_DISPLAY
	# The display answers a client, and keeps what that client did once it
	# left: the pointer it moved is still there for the next one (a reset
	# would have put it back in the middle of the screen).
	until err=$(xdotool mousemove --sync 7 5 2>&1); do
		kill -0 "$xvfb_pid" 2>/dev/null || fail "Xvfb exited: $(tail -n 5 "$xvfb_log")"
		before "$dl" || fail "Xvfb on $DISPLAY did not answer xdotool within 10 s: $err (see $xvfb_log)"
		sleep 0.05
	done
	loc=$(xdotool getmouselocation 2>&1) || fail "Xvfb on $DISPLAY dropped a client: $loc (see $xvfb_log)"
	[[ $loc == "x:7 y:5 "* ]] ||
		fail "Xvfb on $DISPLAY reset when a client left (the pointer is back at $loc): it must run with -noreset, or the app's GTK may find no display"
	say "Xvfb pid $xvfb_pid on $DISPLAY"
}

# start_app — the app, in its own process group, with all its state in the
# temp dir (MNOTE_HOME=$tmp/home, XDG dirs, so also a fresh WebKit profile);
# app_args: its arguments (a folder or a note to open)
app_args=()
start_app() {
	env MNOTE_HOME="$tmp/home" \
		XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data" \
		XDG_CACHE_HOME="$tmp/xdg/cache" XDG_STATE_HOME="$tmp/xdg/state" \
		XDG_RUNTIME_DIR="$tmp/xdg/run" GDK_BACKEND=x11 NO_AT_BRIDGE=1 \
		setsid "$bin" "${app_args[@]}" >"$app_log" 2>&1 &
	app_pid=$!
	app_started=$(now)
	local dl pg
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
}

# app_alive — the app process itself is still running
app_alive() { running "${tracked[0]}"; }

# wait_window — sets wid to the app's visible window named "mnote"
wait_window() {
	wid=
	local dl
	dl=$(deadline "$window_timeout")
	while :; do
		app_alive || fail "the app exited before its window appeared"
		wid=$(timeout 5 xdotool search --onlyvisible --name '^mnote$' 2>/dev/null | head -n 1) || true
		[[ -z $wid ]] || break
		before "$dl" || fail "no visible window named 'mnote' within ${window_timeout} s"
		sleep 0.1
	done
	say "window $wid mapped after $(elapsed_since "$app_started")s ($(xdotool getwindowgeometry "$wid" | sed -n 's/ *Geometry: //p'))"
	# Xvfb has no window manager to give the new window the keyboard: the
	# keys typed below would go nowhere.
	xdotool windowfocus "$wid" 2>/dev/null || true
}

# wait_rendered — until the page has rendered: the window is not one flat colour
wait_rendered() {
	local dl sd='' colours=''
	dl=$(deadline "$render_timeout")
	while :; do
		app_alive || fail "the app exited before the page rendered"
		if timeout 10 import -window "$wid" "$tmp/win.png" 2>/dev/null; then
			colours=$(identify -format '%k' "$tmp/win.png")
			sd=$(convert "$tmp/win.png" -format '%[fx:standard_deviation]' info:)
			awk -v s="$sd" -v c="$colours" 'BEGIN{exit !(s > 0.005 && c >= 16)}' && break
		fi
		before "$dl" || {
			cp "$tmp/win.png" "$out/${LOG_PREFIX}window-blank.png" 2>/dev/null || true
			fail "the window stayed blank for ${render_timeout} s (std dev ${sd:-?}, ${colours:-?} colours; see $out/${LOG_PREFIX}window-blank.png)"
		}
		sleep 0.2
	done
	say "page rendered after $(elapsed_since "$app_started")s (window: std dev $sd, $colours colours)"
	grep -q 'msg="page loaded"' "$app_log" || fail "the app did not log 'page loaded' (OnDomReady)"
}

# screenshot FILE — the whole screen
screenshot() { timeout 10 import -window root "$1" || fail "screenshot $1 failed"; }

# pss_table — one line per running tracked process: "pid name pss_kB rss_kB",
# from /proc/PID/smaps_rollup (PSS shares each page among the processes mapping it)
pss_table() {
	local e p key val pss rss
	for e in "${tracked[@]}"; do
		running "$e" || continue
		p=${e%%:*}
		pss=0 rss=0
		while read -r key val _; do
			case $key in
			Pss:) pss=$val ;;
			Rss:) rss=$val ;;
			esac
		done <"/proc/$p/smaps_rollup" || continue
		printf '%s %s %s %s\n' "$p" "$(proc_name "$p")" "$pss" "$rss"
	done
}

# stop_app — SIGTERM; the app must exit with status 0 and every process it
# started must be gone within exit_timeout
stop_app() {
	track_tree
	local termed dl app_rc=0 app_exit n=${#tracked[@]}
	kill -TERM "$app_pid"
	termed=$(now)
	dl=$(deadline "$exit_timeout")
	while app_alive; do
		before "$dl" || fail "the app (pid $app_pid) did not exit within ${exit_timeout} s of SIGTERM"
		sleep 0.05
	done
	wait "$app_pid" || app_rc=$?
	app_pid= # reaped: its pid may be reused from now on
	app_exit=$(elapsed_since "$termed")
	while [[ -n $(leftovers) ]]; do
		before "$dl" || fail "still running ${exit_timeout} s after SIGTERM: $(leftovers | tr '\n' ' ')"
		sleep 0.05
	done
	say "app exited with status $app_rc after ${app_exit}s; all $n processes gone after $(elapsed_since "$termed")s"
	((app_rc == 0)) || fail "the app exited with status $app_rc after SIGTERM, want 0"
	grep -q 'msg="mnote window shut down"' "$app_log" || fail "the app did not log its shutdown (OnShutdown)"
}

# --- OCR (tesseract): the screen as a person reads it

# ocr IMG WORDS [negated] — the words tesseract reads in IMG, one a line:
# "x y w h line word" in screen pixels (line: an id shared by the words of one
# text line). The screenshot is enlarged 2x, made grey and thresholded (small
# grey UI text on white reads far better so). "negated" reads the negated
# image instead and appends its words: light text on dark (primary buttons);
# "tinted" a lower threshold, and appends: dark text on a tinted background
# (the warning bars, which the 75% threshold turns to noise).
# One thread each: on a busy 2-core machine that is 3-5x faster than OpenMP.
ocr() {
	local img=$1 words=$2 pass=${3:-plain}
	local -a pre=(-colorspace Gray -resize 200% -normalize -threshold 75%)
	case $pass in
	negated) pre=(-colorspace Gray -resize 200% -normalize -negate -threshold 50%) ;;
	tinted) pre=(-colorspace Gray -resize 200% -normalize -threshold 60%) ;;
	*) : >"$words" ;;
	esac
	convert -limit thread 1 "$img" "${pre[@]}" PGM:- |
		OMP_THREAD_LIMIT=1 tesseract - "$tmp/ocr" --psm 3 tsv >/dev/null 2>&1 || fail "tesseract failed on $img"
	# TSV columns: level page block par line word left top width height conf text
	awk -F'\t' -v p="${pass:0:1}" 'NR > 1 && $1 == 5 && $12 !~ /^[[:space:]]*$/ {
		printf "%d %d %d %d %s%d.%d.%d %s\n", $7/2, $8/2, $9/2, $10/2, p, $3, $4, $5, $12
	}' "$tmp/ocr.tsv" >>"$words"
}

# ocr_find WORDS PHRASE — prints "cx cy" (the centre) of every place where the
# phrase is read: consecutive words of one line whose letters and digits,
# lower-cased, begin with the phrase's (rn/m, 1/i/l, 0/o, 5/s count as the
# same). False if it is nowhere.
ocr_find() {
	awk -v phrase="$2" '
		# letters and digits only, lower-cased
		function clean(s) { s = tolower(s); gsub(/[^a-z0-9|]/, "", s); return s }
		# the look-alikes OCR confuses made one
		function conf(s) { gsub(/rn/, "m", s); gsub(/[1i|]/, "l", s); gsub(/0/, "o", s); gsub(/5/, "s", s); return s }
		function flush(   i, j, k, s, c, x0, y0, x1, y1) {
			for (i = 1; i <= n; i++) {
				s = ""
				for (j = i; j <= n; j++) {
					s = s T[j]
					c = conf(s)
					if (index(c, p) == 1) {
						x0 = X[i]; y0 = Y[i]; x1 = X[j] + W[j]; y1 = Y[j] + H[j]
						for (k = i; k <= j; k++) { if (Y[k] < y0) y0 = Y[k]; if (Y[k] + H[k] > y1) y1 = Y[k] + H[k] }
						printf "%d %d\n", (x0 + x1) / 2, (y0 + y1) / 2
						found = 1
						break
					}
					if (length(c) >= length(p)) break
				}
			}
			n = 0
		}
		BEGIN { p = conf(clean(phrase)); if (p == "") exit 2 }
		$5 != cur { flush(); cur = $5 }
		{ n++; X[n] = $1; Y[n] = $2; W[n] = $3; H[n] = $4; T[n] = clean($6) }
		END { flush(); exit !found }
	' "$1"
}

# ocr_text WORDS — the lines read, as text (for logs)
ocr_text() {
	awk '$5 != cur { if (NR > 1) printf "\n"; cur = $5 } { printf "%s ", $6 } END { printf "\n" }' "$1"
}

# click X Y — a real click of the left button there
click() { xdotool mousemove "$1" "$2" sleep 0.05 click 1; }

# see IMG WORDS — a screenshot into IMG and the words read in it
see() {
	screenshot "$1"
	ocr "$1" "$2"
}

# wait_text PHRASE SECONDS [both] — until the screen shows PHRASE; sets SEEN
# to "cx cy" of the first place it is read ("both": also try light text on
# dark; "tinted": also dark text on a tinted background). The last screenshot is $tmp/screen.png, its words $tmp/words. False
# after SECONDS.
wait_text() {
	local dl found
	dl=$(deadline "$2")
	while :; do
		app_alive || fail "the app exited"
		see "$tmp/screen.png" "$tmp/words"
		if found=$(ocr_find "$tmp/words" "$1"); then
			SEEN=${found%%$'\n'*}
			return 0
		fi
		if [[ -n ${3:-} ]]; then
			ocr "$tmp/screen.png" "$tmp/words" "$([[ $3 == both ]] && echo negated || echo "$3")"
			if found=$(ocr_find "$tmp/words" "$1"); then
				SEEN=${found%%$'\n'*}
				return 0
			fi
		fi
		before "$dl" || return 1
		sleep 0.2
	done
}

# --- chatting through the UI (the test agent: cmd/mnote-testagent)

transcripts=
# write_agent_config — $tmp/home/config.json with two custom agents running
# build/bin/mnote-testagent: "Decoy Agent" sorts before "Test Agent", so the
# page's default agent (the first ready one) is not the one the test picks.
write_agent_config() {
	[[ -x $testagent ]] || fail "$testagent not found; run 'make build' first"
	[[ $testagent != *[\"\\]* ]] || fail "the test agent's path has a quote or backslash: $testagent"
	cat >"$tmp/home/config.json" <<-JSON
		{"agent_servers": {
		  "Decoy Agent": {"command": "$testagent"},
		  "Test Agent": {"command": "$testagent"}
		}}
	JSON
	transcripts=$tmp/home/data/transcripts
}

# open_chat — the window up on Xvfb with the test agents configured, the
# page rendered, "Test Agent" picked and a new session with it (what every
# chat script starts with; call make_tmp first)
open_chat() {
	write_agent_config
	start_xvfb
	start_app
	wait_window
	wait_rendered
	choose_agent "Test Agent"
	new_session "Test Agent"
}

# choose_agent NAME — picks the agent for new sessions as a person would: the
# empty state's agent picker (the button right of "New session with …"), type
# NAME in its search box, Enter; then the empty state must offer "New session
# with NAME".
choose_agent() {
	local name=$1 cx cy pick
	wait_text "New session with" 10 || {
		cp "$tmp/screen.png" "$out/${LOG_PREFIX}no-picker.png"
		fail "no 'New session with …' button on screen (see $out/${LOG_PREFIX}no-picker.png)"
	}
	read -r cx cy <<<"$SEEN"
	# the picker (its button shows the agent's name): right of the button,
	# the rightmost "Agent" on that line when two are read there (the
	# button's own and the picker's); in a narrow chat it wraps below the
	# button: the nearest "Agent" on a line below; else the one read beside.
	pick=$(ocr_find "$tmp/words" "Agent" | awk -v cx="$cx" -v cy="$cy" '
		{
			d = $2 - cy
			if (d > -12 && d < 12 && $1 > cx) { n++; if ($1 > bx) { bx = $1; best = $0 } }
			else if (d >= 12 && d < 90 && (below == "" || d < bd)) { bd = d; below = $0 }
		}
		END {
			if (n >= 2) print best
			else if (below != "") print below
			else if (n == 1) print best
			else exit 1
		}') || {
		cp "$tmp/screen.png" "$out/${LOG_PREFIX}no-picker.png"
		fail "no agent picker beside 'New session with …' (see $out/${LOG_PREFIX}no-picker.png)"
	}
	# The menu lists NAME (the search box's grey placeholder does not survive
	# the OCR threshold, so it is not what we wait for). A busy machine may
	# take the click before the page listens (a fresh trixie beside other
	# work: no menu after 5 s): one more click, as a person would.
	# shellcheck disable=SC2086 # "x y"
	click $pick
	wait_text "$name" 8 || {
		say "no menu 8 s after clicking the picker: clicking it again"
		# shellcheck disable=SC2086
		click $pick
		wait_text "$name" 20
	} || {
		cp "$tmp/screen.png" "$out/${LOG_PREFIX}picker.png"
		fail "the agent picker did not open (see $out/${LOG_PREFIX}picker.png)"
	}
	xdotool type --delay 20 "$name"
	sleep 0.3
	xdotool key Return
	wait_text "New session with $name" 15 both || {
		cp "$tmp/screen.png" "$out/${LOG_PREFIX}picked.png"
		fail "after picking '$name' the page does not offer 'New session with $name' (see $out/${LOG_PREFIX}picked.png)"
	}
	! ocr_find "$tmp/words" "not installed" >/dev/null || fail "the agent picker did not close"
	say "picked '$name' in the agent picker"
}

# new_session AGENT — Ctrl+N; waits for the new session's transcript (sets
# transcript) and checks it is bound to AGENT
new_session() {
	local agent=$1 dl f
	local -A old=()
	for f in "$transcripts"/*.jsonl; do [[ -e $f ]] && old[$f]=1; done
	xdotool key ctrl+n
	transcript=
	dl=$(deadline 10)
	while [[ -z $transcript ]]; do
		app_alive || fail "the app exited"
		for f in "$transcripts"/*.jsonl; do
			[[ -e $f && -z ${old[$f]:-} ]] && transcript=$f
		done
		[[ -n $transcript ]] && break
		before "$dl" || fail "Ctrl+N: no new transcript in $transcripts within 10 s"
		sleep 0.1
	done
	while ! grep -q '"kind":"runtime_bound"' "$transcript"; do
		before "$dl" || fail "Ctrl+N: the session's agent was not bound within 10 s ($transcript)"
		sleep 0.1
	done
	grep -q "\"kind\":\"runtime_bound\".*\"runtime\":\"$agent\"" "$transcript" ||
		fail "the new session is not bound to '$agent': $(grep '"kind":"runtime_bound"' "$transcript")"
	say "Ctrl+N: session $(basename "$transcript" .jsonl) with $agent"
}

# type_prompt TEXT — Ctrl+L (focus the prompt), then types TEXT key by key
type_prompt() {
	xdotool key ctrl+l
	sleep 0.1
	xdotool type --delay 6 "$1"
}

# send_and_wait N [SECONDS] — Enter; waits until the transcript records the
# end of turn N, which must have ended with end_turn
send_and_wait() {
	xdotool key Return
	wait_turn "$@"
}

# wait_turn N [SECONDS] — waits until the transcript records the end of turn
# N, which must have ended with end_turn
wait_turn() {
	local n=$1 dl ended
	dl=$(deadline "${2:-15}")
	while :; do
		ended=$(grep -c '"kind":"turn_ended"' "$transcript") || true
		((ended < n)) || break
		app_alive || fail "the app exited during turn $n"
		before "$dl" || fail "turn $n did not end within ${2:-15} s (transcript: $(grep -c . "$transcript") records)"
		sleep 0.1
	done
	grep '"kind":"turn_ended"' "$transcript" | sed -n "${n}p" | grep -q '"stopReason":"end_turn"' ||
		fail "turn $n did not end with end_turn: $(grep '"kind":"turn_ended"' "$transcript" | sed -n "${n}p")"
}

# answer_of N — the text of the agent_message_chunk updates of turn N in the
# transcript (as JSON string contents: the tests' answers have no escapes)
answer_of() {
	awk -v n="$1" '
		/"kind":"turn_started"/ { t++ }
		t == n && /"sessionUpdate":"agent_message_chunk"/ && match($0, /"text":"([^"\\]|\\.)*"/) {
			printf "%s", substr($0, RSTART + 8, RLENGTH - 9)
		}' "$transcript"
}

# json_u_escape TEXT — TEXT with every character as a JSON \uXXXX escape (ASCII)
json_u_escape() {
	local s=$1 i c o=
	for ((i = 0; i < ${#s}; i++)); do
		printf -v c '\\u%04x' "'${s:i:1}"
		o+=$c
	done
	printf '%s' "$o"
}

# chat_setup: the start of chat.sh and pss.sh — traps, the checks of what
# they need (the app binary, X tools, OCR), a temp folder and the agent
# config.
chat_setup() {
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM

	[[ -x $bin ]] || fail "$bin not found; run 'make build' first"
	need Xvfb xdotool import convert identify timeout
	command -v tesseract >/dev/null || fail "'tesseract' is not installed (apt-get install tesseract-ocr); run 'make deps'"
	mkdir -p "$out"
}
