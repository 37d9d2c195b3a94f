package jsonscan

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// String returns the text of the JSON string at b[i] == '"' and the index
// after it; ok is false for a malformed string or invalid UTF-8 (see
// ScanString).
func String(b []byte, i int) (s string, end int, ok bool) {
	start, e, escaped, ok := ScanString(b, i)
	if !ok {
		return "", i, false
	}
	if !escaped {
		return string(b[start:e]), e + 1, true
	}
	s, ok = Unescape(b[start:e])
	return s, e + 1, ok
}

// Unescape decodes the body of a JSON string already checked by ScanString,
// the way encoding/json does (lone surrogates become U+FFFD).
func Unescape(s []byte) (string, bool) {
	var out strings.Builder
	out.Grow(len(s))
	for len(s) > 0 {
		n := bytes.IndexByte(s, '\\')
		if n < 0 {
			out.Write(s)
			break
		}
		out.Write(s[:n])
		s = s[n:]
		if len(s) < 2 {
			return "", false
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			out.WriteByte(c)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r := hex4(s[2:])
			if r < 0 {
				return "", false
			}
			s = s[6:]
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if len(s) > 1 && s[0] == '\\' && s[1] == 'u' {
					r2 = hex4(s[2:])
				}
				if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
					out.WriteRune(dec)
					s = s[6:]
					continue
				}
				r = unicode.ReplacementChar
			}
			out.WriteRune(r)
			continue
		default:
			return "", false
		}
		s = s[2:]
	}
	return out.String(), true
}

// safeASCII[c] is true for the bytes a JSON string can hold unescaped
// (ASCII only; other bytes take the slow path).
var safeASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string (encoding/json's escaping
// without the HTML escapes, for hand-built JSON lines). Invalid UTF-8 becomes
// U+FFFD so the output is always valid JSON.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plain8(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) {
			i += 8 // eight bytes that need no escape
			continue
		}
		c := s[i]
		if safeASCII[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\ufffd`...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// StringValue returns the text of v when v is exactly one JSON string
// (see String for when ok is false).
func StringValue(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	s, end, ok := String(v, 0)
	return s, ok && end == len(v)
}

// FoldsTo reports whether key is one of names ignoring case, the way
// encoding/json matches a member to a struct field (Unicode simple
// folding: "ſ" folds to "s", "K" to "k").
func FoldsTo(key []byte, names ...string) bool {
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}
