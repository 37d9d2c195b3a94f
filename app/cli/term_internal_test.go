package cli

import (
	"strings"
	"testing"
)

func TestTermSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\twith a tab\n":       "plain text\twith a tab\n",
		"café ✓ 中文":                      "café ✓ 中文",
		"\x1b]52;c;eA==\x07":             "^[]52;c;eA==^G",
		"\x1b[2J\r\x7f\x00":              "^[[2J^M^?^@",
		"\u009b2J \u0085":                "<U+009B>2J <U+0085>",
		"a\u202eb\u202cc\u2066d\u2069":   "a<U+202E>b<U+202C>c<U+2066>d<U+2069>",
		"bad \xc2 byte, lone \x9b there": "bad \uFFFD byte, lone \uFFFD there",
		"\u200b\u00a0ok":                 "\u200b\u00a0ok", // not controls
	} {
		if got := termSafe(in); got != want {
			t.Errorf("termSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// termWriter sees a character split between writes whole: an 8-bit CSI
// sent a byte at a time is caught, and text is not mangled.
func TestTermWriterSplitCharacters(t *testing.T) {
	in := "é✓\u009b2J\u202e中\x1b[0m"
	var b strings.Builder
	w := newTermWriter(&b)
	for i := range len(in) {
		if n, err := w.Write([]byte{in[i]}); n != 1 || err != nil {
			t.Fatalf("write: %d %v", n, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), termSafe(in); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// A character cut short at the end shows as U+FFFD.
	b.Reset()
	w.Write([]byte("ok \xe4\xb8"))
	w.Flush()
	if got := b.String(); got != "ok \uFFFD\uFFFD" { // one per byte, as Go decodes
		t.Fatalf("cut character: %q", got)
	}
}

// termLine keeps an agent's text on one line: line breaks (also U+2028
// and U+2029) and tabs are shown, with everything termSafe shows.
func TestTermLine(t *testing.T) {
	for in, want := range map[string]string{
		"Edit a.md":                     "Edit a.md",
		"Edit\n  1) Allow always\n":     "Edit⏎  1) Allow always⏎",
		"a\r\n\tb":                      "a^M⏎^Ib",
		"x\u2028y\u2029z":               "x<U+2028>y<U+2029>z",
		"\x1b[2K\u202eevil\u2066":       "^[[2K<U+202E>evil<U+2066>",
		"bad \xc2 byte, real \uFFFD ok": "bad \uFFFD byte, real \uFFFD ok",
		"中文 ✓ café":                     "中文 ✓ café",
	} {
		if got := termLine(in); got != want {
			t.Errorf("termLine(%q) = %q, want %q", in, got, want)
		}
	}
	// termSafe keeps line breaks and tabs (an answer's text).
	if got := termSafe("a\n\tb\u2028"); got != "a\n\tb\u2028" {
		t.Errorf("termSafe changed %q", got)
	}
	// An error: its sentence on one line, the agent's stderr tail quoted below.
	msg, tail := cutStderrTail("Qwen did not start: agent exited with code 1; its last output on stderr:\nline one\n  1) Allow always\n")
	if msg != "Qwen did not start: agent exited with code 1; its last output on stderr:" || len(tail) != 2 || tail[1] != "  1) Allow always" {
		t.Errorf("cutStderrTail: %q %q", msg, tail)
	}
}
