package cli

import (
	"io"
	"strings"
	"unicode/utf8"
)

// What an agent sends reaches a person's terminal only through the helpers
// of this file: termSafe for text (an answer, a thought, a terminal's
// output, a note), termLine for whatever goes on a line of mnote's own
// (titles, names, options, plan entries, statuses, error messages),
// termWriter for a stream of text. Nothing of the agent's can drive the
// terminal, and nothing on one line can start another.

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

// termSafe returns s as it may go to a terminal: whatever could drive the
// terminal instead of being shown is replaced by a visible form. That is
// C0 controls but \n and \t (ESC shows as ^[, CR as ^M), DEL (^?), C1
// controls U+0080–U+009F (8-bit CSI U+009B among them, shown <U+009B>),
// the bidi embeddings, overrides and isolates U+202A–U+202E and
// U+2066–U+2069 that can make text read as something else, and bytes that
// are not UTF-8 (U+FFFD). An agent's text reaches a person's terminal only
// through it, or through termLine where it must stay on one line; mnote's
// own colour escapes are added after. --json output keeps the exact text:
// it is for programs, and JSON escapes C0 controls (C1 and bidi characters
// stay as they are there).
func termSafe(s string) string { return term(s, false) }

// termLine is termSafe for what an agent sends that is shown on one line
// of mnote's own: a title, a name, an option, a plan entry, a status, an
// error message. A line break shows as ⏎ (U+2028 and U+2029 as <U+2028>,
// <U+2029>) and a tab as ^I, so that no text of the agent's can start a
// line that reads as mnote's (a fake list of options above the real one).
func termLine(s string) string { return term(s, true) }

func term(s string, oneLine bool) string {
	for i, r := range s {
		if unsafeRune(r, oneLine) {
			return string(appendTerm(append(make([]byte, 0, len(s)+16), s[:i]...), s[i:], oneLine))
		}
	}
	return s
}

// unsafeRune reports whether r is shown in a visible form (termSafe,
// termLine).
func unsafeRune(r rune, oneLine bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return oneLine
	case r < 0x20, r >= 0x7f && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == utf8.RuneError:
		return true
	}
	return oneLine && (r == 0x2028 || r == 0x2029)
}

// appendTermSafe appends termSafe(s) to dst.
func appendTermSafe(dst []byte, s string) []byte { return appendTerm(dst, s, false) }

// appendTerm appends termSafe(s), or termLine(s) when oneLine, to dst.
func appendTerm(dst []byte, s string, oneLine bool) []byte {
	const hex = "0123456789ABCDEF"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !unsafeRune(rune(c), oneLine) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			if c == '\n' {
				dst = append(dst, "⏎"...)
			} else {
				dst = append(dst, '^', c^0x40) // ^@ … ^_, DEL as ^?
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
		case r != utf8.RuneError && unsafeRune(r, oneLine):
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

// snippetText is a search hit's snippet for the terminal: on one line,
// neutralized, its matches bold when bold.
func snippetText(snippet string, bold bool) string {
	s := termLine(strings.ReplaceAll(snippet, "\n", " "))
	if bold {
		s = boldMarks.Replace(s)
	}
	return s
}

// stderrTails are how acp's errors introduce the agent's stderr tail
// (acp.ExitError, a timeout).
var stderrTails = []string{"; its last output on stderr:\n", "; the agent's stderr ends with:\n"}

// cutStderrTail splits an error message into its sentence and the lines
// of the agent's stderr tail that it ends with (none when it has none).
func cutStderrTail(msg string) (string, []string) {
	for _, m := range stderrTails {
		if head, tail, ok := strings.Cut(msg, m); ok {
			return head + strings.TrimSuffix(m, "\n"), strings.Split(strings.TrimRight(tail, "\n"), "\n")
		}
	}
	return msg, nil
}
