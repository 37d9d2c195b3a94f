#!/usr/bin/env bash
# Never lose a word, in the real window (called by `make test` after
# chat.sh; e2e/web/tests/lost-words.spec.ts does the same and more in the
# browser): autosave off, the person types a line in Chinese at the end of
# a note and does not save; the test agent reads the note (the unsaved
# text), asks with a diff computed from the saved file and writes content
# without the typed line.
#  1. Before Allow, the dialog must say that the write removes text the
#     person typed (OCR of the warning; screenshot lostword-dialog.png).
#  2. Enter allows; after the write a bar must say that the agent's edit
#     removed unsaved text (lostword-bar.png); "Put it back" returns it, and
#     Ctrl+S saves the agent's line and the typed one.
# Kills only what it started. Needs what chat.sh needs.
set -euo pipefail
T_NAME='lost word test'
LOG_PREFIX=lostword-
# shellcheck source=lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"
# The line is typed, and the note's text escaped, character by character:
# a machine without a UTF-8 locale (a fresh Debian has none set) would
# split them into bytes (xdotool: "Invalid multi-byte sequence").
export LC_ALL=C.UTF-8

NOTE_TEXT=$'# 缓存设计\n- write the load test.\n'
# xdotool types CJK characters but drops full-width brackets and 。, and
# on a loaded machine it may drop or repeat one (it remaps a key for each):
# the line is typed slowly, and what the agent read is what is checked.
TYPED='- 周五前给出方案，还没保存'
AGENT_LINE='- 补充监控指标。'

# json_str TEXT — TEXT as JSON string contents: ASCII as it is (quotes and
# backslashes escaped), the rest as \uXXXX escapes (short to type)
json_str() {
	local s=$1 i c o=
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		[\"\\]) o+="\\$c" ;;
		[[:print:]]) if [[ $c == [\ -~] ]]; then o+=$c; else o+=$(json_u_escape "$c"); fi ;;
		*) o+=$(json_u_escape "$c") ;;
		esac
	done
	printf '%s' "$o"
}

# shot NAME — a screenshot of the screen into $out/NAME.png
shot() { cp "$tmp/screen.png" "$out/$1.png"; }

main() {
	chat_setup
	rm -f "$out"/lostword-*
	make_tmp
	mkdir -p "$tmp/ws"
	note=$tmp/ws/cache.md
	printf '%s' "$NOTE_TEXT" >"$note"
	app_args=("$note")
	open_chat

	# Autosave off (its label in the editor's status line).
	wait_text "Autosave" 10 || { shot lostword-no-autosave; fail "no Autosave switch on screen (see $out/lostword-no-autosave.png)"; }
	# shellcheck disable=SC2086 # "x y"
	click $SEEN
	# The end of the note, then the line typed as a person types it.
	wait_text "write the load test" 10 || { shot lostword-no-note; fail "the note is not shown (see $out/lostword-no-note.png)"; }
	# shellcheck disable=SC2086
	click $SEEN
	xdotool key ctrl+End
	xdotool type --delay 150 -- "$TYPED"
	sleep 2 # the page pushes the unsaved text to the services (debounced)

	local saved agent steps typed
	saved=$(json_str "$NOTE_TEXT")
	agent=$(json_str "$NOTE_TEXT$AGENT_LINE"$'\n')
	steps="[{\"readFile\":{\"path\":\"$note\"}},"
	steps+="{\"permission\":{\"toolCall\":{\"toolCallId\":\"e1\",\"title\":\"Edit cache.md\",\"kind\":\"edit\",\"content\":[{\"type\":\"diff\",\"path\":\"$note\",\"oldText\":\"$saved\",\"newText\":\"$agent\"}]},"
	steps+="\"options\":[{\"optionId\":\"allow\",\"name\":\"Allow\",\"kind\":\"allow_once\"},{\"optionId\":\"reject\",\"name\":\"Reject\",\"kind\":\"reject_once\"}]}},"
	steps+="{\"writeFile\":{\"path\":\"$note\",\"content\":\"$agent\"}},{\"message\":\"Edited.\"}]"
	type_prompt "$steps"
	xdotool key Return

	# 1. The dialog names what goes, before Allow.
	wait_text "This removes text you typed" 60 || { shot lostword-dialog; fail "the permission dialog does not warn that the typed line goes (see $out/lostword-dialog.png)"; }
	shot lostword-dialog
	# What reached the editor: the line the agent read. On a loaded machine
	# xdotool drops or repeats a CJK character now and then (it remaps a
	# key for each); the person's words are whatever they typed, so the
	# rest checks that line comes back.
	typed=$(grep -o 'read: [^"]*' "$transcript" | head -n1 | sed 's/\\n/\n/g' | grep -F -- '- ' | grep -vF -- '- write the load test.' | head -n1)
	[[ $typed == -* && $typed == *保存* ]] || fail "the agent did not read the typed line: xdotool's Chinese did not reach the note (read: '$typed'; $transcript)"
	[[ $typed == "$TYPED" ]] || say "xdotool typed '$typed' for '$TYPED' (a loaded machine); checking that line"
	say "the dialog warns before Allow (lostword-dialog.png)"
	sleep 0.6 # past the dialog's guard against held keys
	xdotool key Return
	wait_turn 1 60

	# 2. The bar says so after, and puts the line back.
	wait_text "removed text you" 30 tinted || { shot lostword-bar; fail "no bar says the agent's edit removed the unsaved line (see $out/lostword-bar.png)"; }
	shot lostword-bar
	wait_text "Put it back" 15 || { shot lostword-bar; fail "the bar has no 'Put it back' (see $out/lostword-bar.png)"; }
	# shellcheck disable=SC2086
	click $SEEN
	sleep 0.5
	xdotool key ctrl+s
	local dl
	dl=$(deadline 30)
	until grep -qF -- "$typed" "$note" && grep -qF -- "$AGENT_LINE" "$note"; do
		before "$dl" || { see "$tmp/screen.png" "$tmp/words"; shot lostword-end; fail "after Put it back and Ctrl+S the note lacks a line: $(cat "$note") (see $out/lostword-end.png)"; }
		sleep 0.2
	done
	screenshot "$out/lostword-end.png"
	say "Put it back + Ctrl+S: the note has the agent's line and the typed one"
	stop_app
	say "ok"
}

main "$@"
exit
