#!/usr/bin/env bash
# Memory of the real window, idle with three sessions open (for `make bench`).
#
# Starts Xvfb and build/bin/mnote (production build) with a fresh MNOTE_HOME
# whose config.json defines the test agent (build/bin/mnote-testagent), picks
# it in the agent picker, and through the keyboard (xdotool) creates three
# sessions, each with one short answered turn (Ctrl+N, Ctrl+L, type, Enter).
# After PSS_IDLE seconds idle (default 5) it sums the PSS (proportional set
# size: shared pages divided among the processes that map them, from
# /proc/PID/smaps_rollup) of the app and every process below it — the
# WebKitWebProcess, the WebKitNetworkProcess and the three agents — prints
# the breakdown and the ratio against PSS_BASELINE_MIB (default 220 MiB: the
# empty Wails v2.9.2 template measured the same way on these machines), and
# writes e2e/window/out/pss.json (screenshot: out/pss.png). For comparison it
# also measures the window idle before any session (noSessionPssKiB).
#
# Exits 0 whatever the figure (it is a benchmark) unless PSS_MAX_RATIO is set
# and exceeded; the target is 1.3x the template. Then SIGTERM: everything
# must exit. Kills only what it started. Needs: Xvfb xdotool imagemagick
# tesseract-ocr (to find the agent picker's buttons).
set -euo pipefail
T_NAME='pss'
LOG_PREFIX=pss-
# shellcheck source=lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"

idle=${PSS_IDLE:-5}
baseline_mib=${PSS_BASELINE_MIB:-220}
target=1.3

main() {
	chat_setup
	rm -f "$out"/pss-* "$out/pss.json" "$out/pss.png"
	make_tmp
	write_agent_config

	start_xvfb
	start_app
	wait_window
	wait_rendered
	# for comparison: the same window idle with no session
	sleep "$idle"
	track_tree
	local empty=0 kb
	while read -r _ _ kb _; do empty=$((empty + kb)); done < <(pss_table)
	say "idle with no session: PSS $(awk -v k="$empty" 'BEGIN{printf "%.1f", k/1024}') MiB"

	choose_agent "Test Agent"

	local i
	for i in 1 2 3; do
		new_session "Test Agent"
		type_prompt "[{\"message\":\"Answer number $i.\"}]"
		send_and_wait 1
		[[ $(answer_of 1) == "Answer number $i." ]] || fail "session $i: the transcript's answer is '$(answer_of 1)'"
	done
	wait_text "Answer number 3" 5 || fail "the third answer is not visible (see $out/pss.png)"
	cp "$tmp/screen.png" "$out/pss.png"
	say "three sessions, each with one answered turn; idle for ${idle}s"
	sleep "$idle"

	track_tree
	local rows p name rss total=0 total_rss=0 agents=0 json='' ratio ok
	rows=$(pss_table)
	while read -r p name kb rss; do
		total=$((total + kb))
		total_rss=$((total_rss + rss))
		[[ $name != mnote-testagent ]] || agents=$((agents + 1))
		json+="${json:+,}"$'\n    '"{\"pid\": $p, \"name\": \"$name\", \"pssKiB\": $kb, \"rssKiB\": $rss}"
	done <<<"$rows"
	((agents == 3)) || say "warning: $agents agent processes running, want 3 (one per live session)"
	ratio=$(awk -v t="$total" -v b="$baseline_mib" 'BEGIN{printf "%.2f", t / 1024 / b}')
	ok=$(awk -v r="$ratio" -v m="$target" 'BEGIN{print (r <= m) ? "true" : "false"}')

	printf '\n%-8s %-22s %10s %10s\n' PID PROCESS 'PSS MiB' 'RSS MiB'
	while read -r p name kb rss; do
		printf '%-8s %-22s %10.1f %10.1f\n' "$p" "$name" "$(awk -v k="$kb" 'BEGIN{print k/1024}')" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
	done <<<"$rows"
	printf '%-8s %-22s %10.1f %10.1f\n' '' total "$(awk -v k="$total" 'BEGIN{print k/1024}')" "$(awk -v k="$total_rss" 'BEGIN{print k/1024}')"
	printf '(the same window idle with no session: %.1f MiB PSS)\n' "$(awk -v k="$empty" 'BEGIN{print k/1024}')"
	printf 'ratio to the empty Wails template (%s MiB PSS): %sx (target <= %sx: %s)\n\n' "$baseline_mib" "$ratio" "$target" \
		"$([[ $ok == true ]] && echo met || echo NOT met)"

	cat >"$out/pss.json" <<-JSON
		{
		  "what": "PSS of the real window's process tree (app, WebKit, agents), idle with 3 sessions open",
		  "when": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
		  "version": "$("$bin" --version 2>/dev/null | sed 's/^mnote //')",
		  "sessions": 3,
		  "idleSeconds": $idle,
		  "totalPssKiB": $total,
		  "totalPssMiB": $(awk -v k="$total" 'BEGIN{printf "%.1f", k/1024}'),
		  "totalRssKiB": $total_rss,
		  "noSessionPssKiB": $empty,
		  "baselinePssMiB": $baseline_mib,
		  "ratio": $ratio,
		  "targetRatio": $target,
		  "withinTarget": $ok,
		  "processes": [$json
		  ]
		}
	JSON
	say "wrote $out/pss.json"

	stop_app
	if [[ -n ${PSS_MAX_RATIO:-} ]] && ! awk -v r="$ratio" -v m="$PSS_MAX_RATIO" 'BEGIN{exit !(r <= m)}'; then
		fail "PSS is ${ratio}x the template, over PSS_MAX_RATIO=$PSS_MAX_RATIO"
	fi
	say "ok"
}

main "$@"
exit
