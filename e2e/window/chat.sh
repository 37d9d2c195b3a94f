#!/usr/bin/env bash
# Chat test in the real window (called by `make test` after run.sh): a person's
# keyboard and mouse, through xdotool, into the production binary's WebKit
# window under Xvfb, with the scriptable test agent (build/bin/mnote-testagent).
#
#  1. Starts Xvfb and build/bin/mnote with MNOTE_HOME (and the XDG dirs) in a
#     fresh temp dir whose config.json defines two custom agents running the
#     test agent: "Decoy Agent" (the page's default: the first ready agent) and
#     "Test Agent".
#  2. Picks "Test Agent" in the agent picker (mouse on the picker beside
#     "New session with …", its search box, Enter), Ctrl+N starts a session (its transcript must say
#     it is bound to Test Agent), Ctrl+L focuses the prompt, types a step list
#     for the test agent, Enter, waits for "turn_ended" in the transcript.
#  3. The answer must be VISIBLE: its text is taken from the transcript (the
#     agent_message_chunk) and read back from a screenshot with OCR
#     (tesseract). The prompt spells the answer in JSON \u escapes, so the
#     answer's words appear on screen only if the agent's message is shown
#     (the user message and the session title show the escapes). A screenshot
#     taken before Enter must not show it.
#  4. A second prompt in the same session must be answered and shown too, with
#     the first answer still there; the app must still be alive.
#  5. SIGTERM: the app must exit with status 0, and it, its WebKit children
#     and the agent processes must be gone within 10 s.
# Screenshots: e2e/window/out/chat-before.png, chat.png, chat-2.png.
# Kills only what it started. Needs: Xvfb xdotool imagemagick tesseract-ocr.
set -euo pipefail
T_NAME='chat test'
LOG_PREFIX=chat-
# shellcheck source=lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"

ANSWER1='The answer is forty-two.'
ANSWER2='Second turn: seven apples and three pears.'

# check_shown ANSWER PNG — the screen must show ANSWER (OCR), retried for 5 s
# while the page renders; the screenshot goes to PNG and what was read to
# PNG's name with .txt
check_shown() {
	local answer=$1 png=$2
	if ! wait_text "$answer" 5; then
		cp "$tmp/screen.png" "$png"
		ocr_text "$tmp/words" >"${png%.png}.txt"
		fail "the answer '$answer' is not visible (see $png; OCR read ${png%.png}.txt)"
	fi
	cp "$tmp/screen.png" "$png"
	ocr_text "$tmp/words" >"${png%.png}.txt"
	say "visible: '$answer' at ($SEEN) in $png"
}

main() {
	chat_setup
	rm -f "$out"/chat-*
	make_tmp
	# --- the window, the agent, a session, a prompt
	open_chat

	prompt1="[{\"message\":\"$(json_u_escape "$ANSWER1")\"}]"
	[[ $prompt1 != *answer* ]] || fail "the prompt must not spell the answer"
	type_prompt "$prompt1"
	sleep 0.5 # xdotool returns once X has the keys; let the page catch up for the picture
	see "$out/chat-before.png" "$tmp/words"
	! ocr_find "$tmp/words" "$ANSWER1" >/dev/null ||
		fail "the answer is on screen before the prompt was sent (see $out/chat-before.png)"
	send_and_wait 1
	got=$(answer_of 1)
	[[ $got == "$ANSWER1" ]] || fail "turn 1: the transcript's agent_message_chunk says '$got', want '$ANSWER1'"
	say "turn 1 ended; the transcript's answer: '$got'"
	check_shown "$got" "$out/chat.png"

	# --- still healthy: a second prompt in the same session
	type_prompt "[{\"message\":\"$(json_u_escape "$ANSWER2")\"}]"
	send_and_wait 2
	got2=$(answer_of 2)
	[[ $got2 == "$ANSWER2" ]] || fail "turn 2: the transcript's agent_message_chunk says '$got2', want '$ANSWER2'"
	say "turn 2 ended; the transcript's answer: '$got2'"
	check_shown "$got2" "$out/chat-2.png"
	ocr_find "$tmp/words" "$got" >/dev/null || fail "after turn 2 the first answer is no longer visible (see $out/chat-2.png)"
	app_alive || fail "the app died"
	timeout 5 xdotool search --onlyvisible --name '^mnote$' >/dev/null || fail "the window is gone"

	# --- SIGTERM: the app, WebKit and the agent must all exit
	track_tree
	names=
	agents=0
	while read -r p name _; do
		names+="$name($p) "
		[[ $name != mnote-testagent ]] || agents=$((agents + 1))
	done < <(pss_table)
	say "processes: $names"
	((agents == 1)) || fail "want 1 running test agent, saw $agents"
	stop_app
	say "ok"
}

main "$@"
exit
