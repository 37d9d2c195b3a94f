package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"mnote/app/chat"
	"mnote/thread"
)

// jsonObserver prints one JSON object per line for each event.
type jsonObserver struct {
	out *lineWriter
	j   jsonLine
}

func (o *jsonObserver) Event(ev *chat.Event) {
	j := &o.j
	flush := true
	switch ev.Type {
	case chat.EvUpdate:
		u := ev.Update
		if u == nil {
			// A usage change with no update: an agent's own notification
			// (Reasonix's prompt-cache figures).
			if ev.Usage == nil || ev.Usage.Cache == nil || ev.Change.Kind != thread.MetaUsage {
				return
			}
			j.start("usage")
			j.value("cache", ev.Usage.Cache)
			break
		}
		switch u.SessionUpdate {
		case thread.KindAgentMessageChunk, thread.KindAgentThoughtChunk, thread.KindUserMessageChunk:
			typ := "message_chunk"
			switch u.SessionUpdate {
			case thread.KindAgentThoughtChunk:
				typ = "thought_chunk"
			case thread.KindUserMessageChunk:
				typ = "user_chunk"
			}
			switch {
			case len(ev.Change.Delta) > hugeText:
				j.start(typ)
				j.b = append(j.b, `,"text":`...)
				o.out.writeText(j.b, ev.Change.Delta, "}\n", false)
				return
			case ev.Change.Delta != "":
				j.start(typ)
				j.str("text", ev.Change.Delta)
				flush = false
			case bytes.Contains(u.Meta, []byte(`"usage"`)):
				j.start("usage")
				j.raw("meta", u.Meta)
			case len(u.Content) > 0 && !isEmptyText(u.Content):
				j.start(typ)
				j.raw("content", u.Content)
			default:
				return
			}
		case thread.KindToolCall, thread.KindToolCallUpdate:
			j.start(u.SessionUpdate)
			j.str("toolCallId", u.ToolCallID)
			j.optStr("title", u.Title)
			j.optStr("kind", u.Kind)
			j.optStr("status", u.Status)
			j.raw("locations", u.Locations)
			j.raw("content", u.Content)
			j.raw("rawInput", u.RawInput)
		case thread.KindPlan:
			j.start("plan")
			j.raw("entries", u.Entries)
		case thread.KindUsageUpdate:
			j.start("usage")
			if u.Used != nil {
				j.int("used", *u.Used)
			}
			if u.Size != nil {
				j.int("size", *u.Size)
			}
			if u.Cost != nil {
				j.value("cost", u.Cost)
			}
		default:
			j.start("update")
			j.str("kind", u.SessionUpdate)
		}
	case chat.EvPermission:
		p := ev.Permission
		j.start("permission")
		j.str("phase", "asked")
		j.str("toolCallId", p.ToolCallID)
		j.str("title", p.Title)
		j.str("kind", p.Kind)
		j.value("options", p.Options)
	case chat.EvPermissionDecided:
		p := ev.Permission
		j.start("permission")
		j.str("phase", "decided")
		j.str("toolCallId", p.ToolCallID)
		if ev.Decision.OptionID == "" {
			j.str("outcome", "cancelled")
		} else {
			j.str("outcome", "selected")
			j.str("optionId", ev.Decision.OptionID)
		}
	case chat.EvError, chat.EvBad:
		j.start("error")
		j.str("message", ev.Err.Error())
	case chat.EvTerminal:
		if ev.Change.Delta != "" {
			j.start("terminal_output")
			j.str("terminalId", ev.Change.EntryID)
			j.str("data", ev.Change.Delta)
			flush = false
			break
		}
		tm := ev.Terminal
		if tm == nil {
			return
		}
		j.start("terminal")
		j.str("terminalId", tm.TerminalID)
		j.str("command", tm.Command)
		j.value("args", tm.Args)
		j.str("cwd", tm.Cwd)
		if tm.ExitCode != nil {
			j.int("exitCode", int64(*tm.ExitCode))
		}
		if tm.Signal != "" {
			j.str("signal", tm.Signal)
		}
		if tm.Released {
			j.str("state", "released")
		} else if tm.Exited {
			j.str("state", "exited")
		} else {
			j.str("state", "running")
		}
	default:
		return
	}
	o.out.write(j.end(), flush)
	if cap(j.b) > 256<<10 {
		j.b = nil // a huge chunk's line is not kept for the next one
	}
}

func isEmptyText(content json.RawMessage) bool {
	var b thread.ContentBlock
	return json.Unmarshal(content, &b) == nil && b.Type == "text" && b.Text == ""
}

// textObserver prints the answer as plain text, with thoughts and tool
// calls as short dimmed lines (dimmed only on a terminal).
type textObserver struct {
	out     *lineWriter
	color   bool
	last    string // kind of the last thing printed
	midLine bool
}

func (o *textObserver) dim(s string) string {
	if o.color {
		return "\x1b[2m" + s + "\x1b[0m"
	}
	return s
}

func (o *textObserver) printf(flush bool, format string, a ...any) {
	o.out.write([]byte(fmt.Sprintf(format, a...)), flush)
}

// newline ends a partly printed line before a line of another kind.
func (o *textObserver) newline() {
	if o.midLine {
		o.out.write([]byte("\n"), false)
		o.midLine = false
	}
}

func (o *textObserver) Event(ev *chat.Event) {
	switch ev.Type {
	case chat.EvUpdate:
		u := ev.Update
		if u == nil {
			return
		}
		switch u.SessionUpdate {
		case thread.KindAgentMessageChunk:
			if ev.Change.Delta == "" {
				return
			}
			if o.last != "message" {
				o.newline()
				o.last = "message"
			}
			o.out.write([]byte(termSafe(ev.Change.Delta)), false)
			o.midLine = !strings.HasSuffix(ev.Change.Delta, "\n")
		case thread.KindAgentThoughtChunk:
			if ev.Change.Delta == "" {
				return
			}
			if o.last != "thought" {
				o.newline()
				o.out.write([]byte(o.dim("thinking: ")), false)
				o.last = "thought"
			}
			o.out.write([]byte(o.dim(termSafe(strings.ReplaceAll(ev.Change.Delta, "\n", " ")))), false)
			o.midLine = true
		case thread.KindToolCall:
			o.newline()
			o.printf(true, "%s\n", o.dim(termSafe(fmt.Sprintf("tool %s: %s (%s)", deref(u.Kind, "other"), deref(u.Title, u.ToolCallID), deref(u.Status, "pending")))))
			o.last = "tool"
		case thread.KindToolCallUpdate:
			if u.Status == nil {
				return
			}
			o.newline()
			title := u.ToolCallID
			if u.Title != nil {
				title = *u.Title
			}
			o.printf(true, "%s\n", o.dim(termSafe(fmt.Sprintf("tool %s: %s", title, *u.Status))))
			o.last = "tool"
		case thread.KindPlan:
			var entries []thread.PlanEntry
			if json.Unmarshal(u.Entries, &entries) != nil {
				return
			}
			o.newline()
			var b strings.Builder
			b.WriteString("plan:\n")
			for _, e := range entries {
				mark := " "
				switch e.Status {
				case "completed":
					mark = "x"
				case "in_progress":
					mark = ">"
				}
				fmt.Fprintf(&b, "  [%s] %s\n", mark, e.Content)
			}
			o.printf(true, "%s", o.dim(termSafe(b.String())))
			o.last = "plan"
		}
	case chat.EvPermissionDecided:
		o.newline()
		outcome := "cancelled"
		if ev.Decision.OptionID != "" {
			outcome = ev.Decision.OptionID
		}
		o.printf(true, "%s\n", o.dim(termSafe(fmt.Sprintf("permission %s: %s", deref(&ev.Permission.Title, ev.Permission.ToolCallID), outcome))))
		o.last = "permission"
	case chat.EvTerminal:
		o.terminal(ev)
	case chat.EvTurnEnded:
		o.newline()
		o.out.Flush()
	}
}

// terminal prints an agent's terminal dimmed, like a tool call: the
// command when it starts, its output without escape sequences, and how it
// ended.
func (o *textObserver) terminal(ev *chat.Event) {
	if d := ev.Change.Delta; d != "" {
		if o.last != "terminal" {
			o.newline()
			o.last = "terminal"
		}
		text := stripEscapes(d)
		o.out.write([]byte(o.dim(termSafe(text))), false)
		if text != "" {
			o.midLine = !strings.HasSuffix(text, "\n")
		}
		return
	}
	tm := ev.Terminal
	if tm == nil {
		return
	}
	var line string
	switch {
	case tm.Released:
		return // its end was said
	case tm.Signal != "":
		line = "terminal killed (" + tm.Signal + ")"
	case tm.ExitCode != nil:
		line = fmt.Sprintf("terminal exit %d", *tm.ExitCode)
	case tm.Exited:
		line = "terminal ended"
	default:
		line = "terminal: $ " + strings.Join(append([]string{tm.Command}, tm.Args...), " ") + "  (" + tm.Cwd + ")"
	}
	o.newline()
	o.printf(true, "%s\n", o.dim(termSafe(line)))
	o.last = "terminal-state"
}

// stripEscapes removes terminal escape sequences (CSI "ESC [ ... final",
// OSC "ESC ] ... BEL or ESC \\", and two-byte "ESC x") and carriage
// returns from a command's output, for plain text. A sequence split across
// two chunks leaves its tail as text, which termSafe makes visible.
func stripEscapes(s string) string {
	if !strings.ContainsAny(s, "\x1b\r") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r':
			continue
		case c != 0x1b:
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']':
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
	}
	return b.String()
}

func deref(p *string, def string) string {
	if p == nil || *p == "" {
		return def
	}
	return *p
}

// termSafe returns s as it may go to a terminal: whatever could drive the
// terminal instead of being shown is replaced by a visible form. That is
// C0 controls but \n and \t (ESC shows as ^[, CR as ^M), DEL (^?), C1
// controls U+0080–U+009F (8-bit CSI U+009B among them, shown <U+009B>),
// the bidi embeddings, overrides and isolates U+202A–U+202E and
// U+2066–U+2069 that can make text read as something else, and bytes that
// are not UTF-8 (U+FFFD). An agent's text and titles reach a person's
// terminal only through it; mnote's own colour escapes are added after.
// --json output keeps the exact text: it is for programs, and JSON
// escapes C0 controls (C1 and bidi characters stay as they are there).
func termSafe(s string) string {
	for i, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e ||
			r >= 0x2066 && r <= 0x2069 || r == utf8.RuneError {
			return string(appendTermSafe(append(make([]byte, 0, len(s)+16), s[:i]...), s[i:]))
		}
	}
	return s
}

// appendTermSafe appends termSafe(s) to dst.
func appendTermSafe(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7f || c == '\n' || c == '\t' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, '^', c^0x40) // ^@ … ^_, DEL as ^?
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
		case r >= 0x80 && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			dst = append(dst, s[start:i]...)
			dst = append(dst, '<', 'U', '+', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf], '>')
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// termWriter passes what is written to it through appendTermSafe, for
// output made of an agent's text (mnote show). A character split between
// two writes is held until the next one; Flush writes out what is held.
type termWriter struct {
	w       io.Writer
	pending []byte // the start of a character split by a write
	buf     []byte
}

func newTermWriter(w io.Writer) *termWriter { return &termWriter{w: w} }

func (t *termWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(t.pending) > 0 {
		p = append(t.pending, p...)
		t.pending = nil
	}
	// Hold back an incomplete character at the end (at most 3 bytes).
	cut := len(p)
	for k := 1; k <= utf8.UTFMax-1 && k <= len(p); k++ {
		if b := p[len(p)-k]; utf8.RuneStart(b) {
			if b >= utf8.RuneSelf && !utf8.FullRune(p[len(p)-k:]) {
				cut = len(p) - k
			}
			break
		}
	}
	t.pending = append(t.pending, p[cut:]...)
	t.buf = appendTermSafe(t.buf[:0], string(p[:cut]))
	if _, err := t.w.Write(t.buf); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes out a held incomplete character (shown as U+FFFD).
func (t *termWriter) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	t.buf = appendTermSafe(t.buf[:0], string(t.pending))
	t.pending = nil
	_, err := t.w.Write(t.buf)
	return err
}

// boldMarks makes a search snippet's « » marks bold on a terminal.
var boldMarks = strings.NewReplacer("«", "\x1b[1m", "»", "\x1b[0m")

// snippetText is a search hit's snippet for the terminal: neutralized, its
// matches bold when bold.
func snippetText(snippet string, bold bool) string {
	s := termSafe(snippet)
	if bold {
		s = boldMarks.Replace(s)
	}
	return s
}
