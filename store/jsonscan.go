package store

import (
	"unicode/utf8"
)

// This file holds the small hand-written JSON pieces of the hot paths: the
// validator the reader runs on every record's data and the string encoder
// the writer uses for the envelope. FuzzValidJSON checks the validator
// against encoding/json.

// maxDepth bounds nesting in validJSON.
const maxDepth = 10000

// validJSON reports whether b is exactly one JSON value, optionally
// surrounded by whitespace. It checks the grammar, not UTF-8 (like
// encoding/json, which replaces invalid bytes when decoding).
func validJSON(b []byte) bool {
	end, ok := scanValue(b, skipSpace(b, 0))
	return ok && skipSpace(b, end) == len(b)
}

// scanValue checks the JSON value starting at b[i] and returns the index
// just after it.
func scanValue(b []byte, i int) (int, bool) {
	var stack []byte // '{' or '['
	var small [32]byte
	stack = small[:0]
	for {
		// A value starts at i.
		if i >= len(b) {
			return i, false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return i, false
			}
			stack = append(stack, c)
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == closer(c) {
				stack = stack[:len(stack)-1]
				i++
				goto afterValue
			}
			if c == '{' {
				var ok bool
				if i, ok = objectKey(b, i); !ok {
					return i, false
				}
			}
			continue
		case c == '"':
			j, ok := skipString(b, i)
			if !ok {
				return i, false
			}
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j, ok := skipNumber(b, i)
			if !ok {
				return i, false
			}
			i = j
		case c == 't':
			if !hasLit(b, i, "true") {
				return i, false
			}
			i += 4
		case c == 'f':
			if !hasLit(b, i, "false") {
				return i, false
			}
			i += 5
		case c == 'n':
			if !hasLit(b, i, "null") {
				return i, false
			}
			i += 4
		default:
			return i, false
		}
	afterValue:
		for {
			if len(stack) == 0 {
				return i, true
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, false
			}
			top := stack[len(stack)-1]
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
				if top == '{' {
					var ok bool
					if i, ok = objectKey(b, i); !ok {
						return i, false
					}
				}
			case closer(top):
				stack = stack[:len(stack)-1]
				i++
				continue afterValue
			default:
				return i, false
			}
			break
		}
	}
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// objectKey skips `"key" :` and the space after it.
func objectKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	j, ok := skipString(b, i)
	if !ok {
		return i, false
	}
	j = skipSpace(b, j)
	if j >= len(b) || b[j] != ':' {
		return i, false
	}
	return skipSpace(b, j+1), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func hasLit(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// plainStr[c] is true for bytes a JSON string holds as they are.
var plainStr = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, bool) {
	i++
	for i < len(b) {
		for i < len(b) && plainStr[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		case c < 0x20:
			return i, false
		default:
			i++
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipNumber returns the index after the number starting at b[i].
func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return i, false
		}
	}
	return i, true
}

// safeASCII[c] is true for the bytes a JSON string can hold unescaped
// (ASCII only; other bytes take the slow path).
var safeASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plain8 reports whether none of the eight bytes of s is a quote, a
// backslash, a control character or non-ASCII.
func plain8(s string) bool {
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	quote := w ^ (lo * '"')
	backslash := w ^ (lo * '\\')
	special := (quote - lo) &^ quote // high bit set where a byte was '"'
	special |= (backslash - lo) &^ backslash
	special |= w - lo*0x20 // high bit set where a byte was < 0x20 (or borrowed into)
	return (special|w)&hi == 0
}

// AppendJSONString appends s as a JSON string (encoding/json's escaping
// without the HTML escapes, for hand-built JSON lines). Invalid UTF-8 becomes
// U+FFFD so the output is always valid JSON.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plain8(s[i:i+8]) {
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

// skipValue returns the index after the JSON value starting at b[i]
// (after optional space), checking its grammar.
func skipValue(b []byte, i int) (int, bool) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		return scanValue(b, i)
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	case c == 't':
		return i + 4, hasLit(b, i, "true")
	case c == 'f':
		return i + 5, hasLit(b, i, "false")
	case c == 'n':
		return i + 4, hasLit(b, i, "null")
	}
	return i, false
}
