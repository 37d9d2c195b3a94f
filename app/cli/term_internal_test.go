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
