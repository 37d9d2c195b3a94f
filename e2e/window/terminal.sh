#!/usr/bin/env bash
# An agent's terminal in the real window (by hand: not part of `make test`,
# which drives the same card in e2e/web/tests/terminal.spec.ts): the test
# agent runs a command with coloured output through ACP terminal/create;
# the tool card must show its exit (OCR) and the screenshot goes to
# e2e/window/out/terminal.png for a person to look at the output and
# its colours.
set -euo pipefail
T_NAME='terminal test'
LOG_PREFIX=terminal-
# shellcheck source=lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"

main() {
	chat_setup
	make_tmp
	open_chat
	# printf's \033 are typed as the four characters \033 (JSON "\\033"),
	# which printf turns into ESC: red and green words, then plain.
	type_prompt '[{"terminal":{"name":"p","command":"sh","args":["-c","printf \"\\033[31mred words\\033[0m and \\033[32mgreen words\\033[0m\\n\"; echo plain 你好"],"toolCallId":"run-1"}},{"terminalWait":"p"},{"terminalRelease":"p"},{"message":"Ran it."}]'
	send_and_wait 1 20
	# The card's own line (light background; the terminal's light-on-dark
	# text is for the eye: OCR's threshold drops it).
	wait_text "Exit 0" 10 || {
		cp "$tmp/screen.png" "$out/terminal.png"
		fail "the terminal card does not show the command's exit (see $out/terminal.png)"
	}
	sleep 0.5
	screenshot "$out/terminal.png"
	say "the terminal card shows the output; screenshot $out/terminal.png"
	stop_app
	say "ok"
}

main "$@"
exit
