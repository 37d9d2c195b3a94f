package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

var jsonStringCases = []string{
	"", "a", "plain ascii text of some length, long enough for words",
	`quote " and backslash \ inside`, "tab\tnl\ncr\r ctl\x01\x1f del\x7f",
	"é 日本 € 😀 mixed with ascii around", "bad \xff byte", "\xe2\x82", "trailing \xe2\x82",
	strings.Repeat("x", 7) + `"` + strings.Repeat("y", 9), strings.Repeat("0123456789abcdef", 64) + "\n",
	"<html> & 'quotes' \u2028 \u2029",
}

// AppendString writes what encoding/json reads back as the same text
// (invalid UTF-8 as U+FFFD), at every alignment of the special bytes.
func TestAppendString(t *testing.T) {
	for _, c := range jsonStringCases {
		for pad := range 9 {
			s := strings.Repeat("p", pad) + c
			out := AppendString([]byte("x"), s)
			var got string
			if out[0] != 'x' || json.Unmarshal(out[1:], &got) != nil {
				t.Fatalf("%q: invalid JSON %q", s, out)
			}
			if want := strings.ToValidUTF8(s, "\ufffd"); got != want && !(utf8.ValidString(s) && got == s) {
				// encoding/json replaces each invalid byte; compare with that.
				var ref string
				b, _ := json.Marshal(s)
				json.Unmarshal(b, &ref)
				if got != ref {
					t.Fatalf("%q: read back %q, want %q", s, got, ref)
				}
			}
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, c := range jsonStringCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		var got, ref string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q: invalid JSON %q: %v", s, out, err)
		}
		b, _ := json.Marshal(s)
		json.Unmarshal(b, &ref)
		if got != ref {
			t.Fatalf("%q: read back %q, encoding/json %q", s, got, ref)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1<<14) // 720 KiB of prose
	buf := make([]byte, 0, 2*len(text))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		buf = AppendString(buf[:0], text)
	}
}
