#!/usr/bin/env bash
# The real window in Simplified Chinese (issue 16), for a person to look at:
# screenshots of the main view and of Settings, under Xvfb, at 1280×800.
#
#  1. Starts Xvfb and build/bin/mnote with LANGUAGE=zh_CN LANG=zh_CN.UTF-8
#     (WebKitGTK gives the page navigator.language from the C library's
#     locale, and the interface follows the system when nothing was chosen
#     in Settings; the locale must exist, else GTK says "Locale not
#     supported by C library", uses "C" and the page is English: when it is
#     not installed, localedef builds it into the temp dir, LOCPATH), a fresh
#     MNOTE_HOME whose only agent is the test agent, and a note with a long
#     Chinese name (its folder opens as the notes folder).
#  2. The page must not be in English: the English empty state ("New session
#     with …", read by OCR) must not be on screen once the page rendered.
#  3. Ctrl+N, then a prompt that scripts the test agent's turn: a Chinese
#     title, a thought, a tool card and a long Chinese answer with no spaces
#     (typed as JSON \u escapes: xdotool types ASCII only; zh-CN-typed.png
#     before Enter). Screenshot:
#     e2e/window/out/zh-CN-main.png.
#  4. Ctrl+, opens Settings. Screenshot: e2e/window/out/zh-CN-settings.png.
#  5. At 900 px wide: the notes, then the chat picked in the bar on top.
#     Screenshots: e2e/window/out/zh-CN-900-notes.png, zh-CN-900-chat.png.
#  6. SIGTERM: everything gone within 10 s.
# The screenshots are checked by eye (clipped labels, overflow, tofu boxes);
# e2e/web/tests/locale.spec.ts checks the same landmarks in Chromium by
# program. Kills only what it started. Needs: Xvfb xdotool imagemagick
# tesseract-ocr fonts-noto-cjk (make deps).
set -euo pipefail
T_NAME='zh-CN window'
LOG_PREFIX=zh-CN-
# shellcheck source=lib.sh source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"

NOTE='关于提示词缓存命中率下降问题的长篇设计讨论与三次实验的详细记录.md'
TITLE='关于缓存命中率的设计讨论与实验记录'
SENTENCE='我们在三次实验中测量了提示词缓存的命中率，发现在会话变长之后命中率明显下降；原因是每一轮都改写了系统提示的开头部分。'

# prompt_steps — the turn's step list, every string as JSON \u escapes (run
# in a UTF-8 locale, so that bash sees characters, not bytes)
prompt_steps() {
	local answer="$SENTENCE$SENTENCE$SENTENCE$SENTENCE"
	printf '[{"title":"%s"},' "$(json_u_escape "$TITLE")"
	printf '{"thought":"%s"},' "$(json_u_escape "先读一下笔记，$SENTENCE")"
	printf '{"toolCall":{"toolCallId":"r1","title":"%s","kind":"read","status":"completed"}},' "$(json_u_escape "读取 $NOTE")"
	printf '{"message":"%s"}]' "$(json_u_escape "$answer")"
}

main() {
	chat_setup
	rm -f "$out"/zh-CN-*
	make_tmp
	fc-list ':lang=zh-cn' family 2>/dev/null | grep -q . ||
		fail "no font covers Simplified Chinese (fc-list :lang=zh-cn); install fonts-noto-cjk (make deps)"

	# One agent (the default for new sessions), and the notes folder with the Chinese note.
	[[ -x $testagent ]] || fail "$testagent not found; run 'make build' first"
	printf '{"agent_servers": {"Test Agent": {"command": "%s"}}}\n' "$testagent" >"$tmp/home/config.json"
	transcripts=$tmp/home/data/transcripts
	mkdir -p "$tmp/ws"
	printf '# 实验记录\n\n%s\n' "$SENTENCE" >"$tmp/ws/$NOTE"
	app_args=("$tmp/ws/$NOTE")

	local steps
	steps=$(
		export LC_ALL=C.UTF-8
		prompt_steps
	)
	[[ $steps == *'\u5173\u4e8e'* ]] || fail "the prompt's escapes are wrong (no UTF-8 locale C.UTF-8?): ${steps:0:80}"

	# The process's language: WebKitGTK hands the page the C library's locale
	# as navigator.language, so zh_CN.UTF-8 must exist (else GTK falls back
	# to "C" and the page is English): when it is not installed, it is built
	# from the locales package's sources into the temp dir (LOCPATH).
	if ! LC_ALL=zh_CN.UTF-8 locale 2>&1 | grep -q 'Cannot set'; then
		:
	else
		need localedef
		mkdir -p "$tmp/locale"
		localedef -i zh_CN -f UTF-8 "$tmp/locale/zh_CN.UTF-8" >/dev/null 2>&1 ||
			fail "no zh_CN.UTF-8 locale and localedef could not build one (install the 'locales' package)"
		export LOCPATH=$tmp/locale
		say "built the zh_CN.UTF-8 locale in $LOCPATH"
	fi
	export LANGUAGE=zh_CN LANG=zh_CN.UTF-8
	# No input method runs under Xvfb: GTK's own simple one, as on an English desktop
	# (with zh_CN GTK would wait for an XIM server and drop the typed keys).
	export GTK_IM_MODULE=gtk-im-context-simple
	unset LC_ALL LC_MESSAGES
	start_xvfb
	start_app
	wait_window
	wait_rendered
	sleep 1
	see "$tmp/screen.png" "$tmp/words"
	cp "$tmp/screen.png" "$out/zh-CN-start.png"
	if ocr_find "$tmp/words" "New session with" >/dev/null; then
		fail "the window is in English with LANG=zh_CN.UTF-8 (see $out/zh-CN-start.png)"
	fi
	say "not English at start (OCR: $(ocr_text "$tmp/words" | tr '\n' ' ' | cut -c1-120))"

	# --- a turn with Chinese everywhere
	new_session "Test Agent"
	sleep 1 # the page opens the new session (its composer) first
	type_prompt "$steps"
	sleep 3 # WebKit is still taking in the long run of typed keys
	screenshot "$out/zh-CN-typed.png"
	send_and_wait 1 30
	[[ $(answer_of 1) == *"$SENTENCE"* ]] || fail "the answer in the transcript is not the Chinese one"
	sleep 1
	screenshot "$out/zh-CN-main.png"
	say "screenshot $out/zh-CN-main.png"

	# --- Settings
	xdotool key ctrl+comma
	sleep 1.5
	screenshot "$out/zh-CN-settings.png"
	say "screenshot $out/zh-CN-settings.png"
	xdotool key Escape
	sleep 0.5

	# --- 900 px: one pane at a time, the bar on top picks it
	xdotool windowsize "$wid" 900 800
	sleep 1.5
	screenshot "$out/zh-CN-900-notes.png"
	xdotool mousemove --window "$wid" 675 12 click 1
	sleep 1
	screenshot "$out/zh-CN-900-chat.png"
	say "screenshots $out/zh-CN-900-notes.png, $out/zh-CN-900-chat.png"

	stop_app
	say "ok"
}

main "$@"
exit
