package api

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// CleanText leaves only text every store keeps: no NUL, C0 control or
// DEL (tab and newline stay), valid UTF-8, at most the limit, cut between
// characters; applying it twice changes nothing.
func TestCleanText(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain title", 100, "plain title"},
		{"a\x00b", 100, "ab"},
		{"tab\tnew\nline\r\x1b[31m\x7f", 100, "tab\tnew\nline[31m"},
		{"bad \xff byte", 100, "bad \uFFFD byte"},
		{"surrogate \xed\xa0\x80", 100, "surrogate \uFFFD\uFFFD\uFFFD"},
		{"ééé", 5, "éé"},
		{"ab\x00cd", 3, "abc"},
		{"x\x00", 0, "x"},
	} {
		got := CleanText(c.in, c.max)
		if got != c.want {
			t.Errorf("CleanText(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
		if !utf8.ValidString(got) || strings.ContainsRune(got, 0) || CleanText(got, c.max) != got {
			t.Errorf("CleanText(%q, %d) = %q is not clean or not stable", c.in, c.max, got)
		}
	}
	r := SessionRecord{Title: strings.Repeat("\x00é", 1000), Runtime: strings.Repeat("r", 500)}.Normalize()
	if len(r.Title) != MaxTitleBytes || len(r.Runtime) != MaxRuntimeBytes || r.Normalize() != r {
		t.Errorf("Normalize: title %d bytes, runtime %d bytes", len(r.Title), len(r.Runtime))
	}
}
