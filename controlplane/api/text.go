package api

import (
	"strings"
	"unicode/utf8"
)

// Limits of a record's free-text fields, in bytes.
const (
	MaxTitleBytes   = 1024
	MaxRuntimeBytes = 128
)

// CleanText makes s text every store keeps as it is: invalid UTF-8 (a
// lone surrogate among it) becomes U+FFFD, NUL and the other C0 control
// characters and DEL are removed (tab and newline stay), and the result
// is cut to at most maxBytes on a character boundary (maxBytes <= 0: no
// cut). PostgreSQL refuses NUL and invalid UTF-8 in TEXT where SQLite
// takes them, so without this one record could fail on one store only.
// CleanText(CleanText(s, n), n) == CleanText(s, n).
func CleanText(s string, maxBytes int) string {
	if maxBytes <= 0 {
		maxBytes = len(s) * utf8.UTFMax
	}
	if len(s) <= maxBytes && cleanAlready(s) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), maxBytes))
	for _, r := range s { // ranging over invalid UTF-8 yields U+FFFD
		if r < 0x20 && r != '\t' && r != '\n' || r == 0x7f {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > maxBytes {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

func cleanAlready(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return false
		}
	}
	return utf8.ValidString(s)
}

// Normalize returns rec with its free text (title, runtime) made
// storable by CleanText and cut to MaxTitleBytes and MaxRuntimeBytes. The
// client applies it before it sends a record and the server to every
// record it receives, so the two agree on what is stored (and on its
// hash). Normalize is idempotent.
func (rec SessionRecord) Normalize() SessionRecord {
	rec.Title = CleanText(rec.Title, MaxTitleBytes)
	rec.Runtime = CleanText(rec.Runtime, MaxRuntimeBytes)
	return rec
}
