#!/usr/bin/env bash
# The real window at laptop widths (issue: "layout that works at laptop
# widths"): the production binary under Xvfb with a note open and a chat turn
# of the test agent, resized to 1920, 1280, 1024, 900 and 800 px wide (the
# window's minimum width; 640 px is a browser's, checked by layout.spec.ts). At each
# width the window must take the size, the page must re-lay itself out (not a
# flat colour), and the chat must stay usable: its Send button and the
# agent's answer are read on screen (OCR; at 900 px and below the window
# shows notes or chat, and the chat is picked in its bar). Screenshots:
# e2e/window/out/layout-<width>.png, to look at by hand. Run by hand (not in
# `make test`: Chromium's layout.spec.ts asserts the same landmarks there).
# Kills only what it started. Needs: Xvfb xdotool imagemagick tesseract-ocr.
set -euo pipefail
T_NAME='window layout'
LOG_PREFIX=layout-
SCREEN_SIZE=${SCREEN_SIZE:-1920x1080}
# shellcheck source=lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"

ANSWER='The notes and the chat share the window.'

main() {
	chat_setup
	rm -f "$out"/layout-*
	make_tmp
	[[ -x $testagent ]] || fail "$testagent not found; run 'make build' first"
	printf '{"agent_servers": {"Test Agent": {"command": "%s"}}}\n' "$testagent" >"$tmp/home/config.json"
	transcripts=$tmp/home/data/transcripts
	mkdir -p "$tmp/ws/notes"
	printf '# Plans\n\n- a long line of text in the note, so that the editor has something to wrap at narrow widths\n' >"$tmp/ws/notes/plans.md"
	app_args=("$tmp/ws/notes/plans.md")

	start_xvfb
	start_app
	wait_window
	wait_rendered
	new_session "Test Agent"
	sleep 1
	type_prompt "[{\"message\":\"$(json_u_escape "$ANSWER")\"}]"
	sleep 1
	send_and_wait 1 30

	local w geom
	for w in 1920 1280 1024 900 800; do
		xdotool windowsize "$wid" "$w" 800
		sleep 1.5
		geom=$(xdotool getwindowgeometry "$wid" | sed -n 's/ *Geometry: //p')
		[[ $geom == "${w}x800" ]] || fail "the window did not take ${w}x800 (it is $geom)"
		# Narrow, the window shows notes or chat, and a bar to pick: the
		# person picks the chat.
		# The bar is the window's top 30 px, the chat its right half.
		if ! wait_text "$ANSWER" 3; then
			xdotool mousemove --window "$wid" $((w * 3 / 4)) 12 click 1
			say "$w px: one pane at a time; picked the chat"
		fi
		wait_text "$ANSWER" 8 || {
			cp "$tmp/screen.png" "$out/layout-$w.png"
			fail "at $w px the answer is not on screen (see $out/layout-$w.png)"
		}
		ocr_find "$tmp/words" "Send" >/dev/null || ocr "$tmp/screen.png" "$tmp/words" negated
		ocr_find "$tmp/words" "Send" >/dev/null || {
			cp "$tmp/screen.png" "$out/layout-$w.png"
			fail "at $w px the chat's Send button is not on screen (see $out/layout-$w.png)"
		}
		timeout 10 import -window "$wid" "$out/layout-$w.png" || fail "screenshot of the window failed"
		say "$w px: answer and Send on screen; $out/layout-$w.png"
	done
	stop_app
	say "ok"
}

main "$@"
exit
