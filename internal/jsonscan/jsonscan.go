// Package jsonscan holds mnote's hand-written JSON pieces for the hot
// paths, in one place: a validator, scanners for values and strings, an
// unescaper, an iterator over an object's members and the string encoder
// of hand-built JSON lines. Everything else decodes with encoding/json,
// which stays the reference: the fuzz tests check these pieces agree with
// it, and callers fall back to it whenever a scanner is not sure.
package jsonscan

import (
	"encoding/binary"
	"unicode/utf8"
)

// MaxDepth bounds nesting, as encoding/json does.
const MaxDepth = 10000

// Valid reports whether b is exactly one JSON value, optionally
// surrounded by whitespace. It checks the grammar, not UTF-8 (like
// encoding/json, which replaces invalid bytes when decoding).
func Valid(b []byte) bool {
	end, ok := scanValue(b, SkipSpace(b, 0))
	return ok && SkipSpace(b, end) == len(b)
}

// SkipValue returns the index after the JSON value starting at b[i]
// (after optional space), checking its grammar.
func SkipValue(b []byte, i int) (int, bool) {
	i = SkipSpace(b, i)
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return SkipString(b, i)
	case c == '{' || c == '[':
		return scanValue(b, i)
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	case c == 't':
		return lit(b, i, "true")
	case c == 'f':
		return lit(b, i, "false")
	case c == 'n':
		return lit(b, i, "null")
	}
	return i, false
}

// lit returns the index after the literal l at b[i], or i and false.
func lit(b []byte, i int, l string) (int, bool) {
	if !HasLit(b, i, l) {
		return i, false
	}
	return i + len(l), true
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
			if len(stack) >= MaxDepth {
				return i, false
			}
			stack = append(stack, c)
			i = SkipSpace(b, i+1)
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
			j, ok := SkipString(b, i)
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
			if !HasLit(b, i, "true") {
				return i, false
			}
			i += 4
		case c == 'f':
			if !HasLit(b, i, "false") {
				return i, false
			}
			i += 5
		case c == 'n':
			if !HasLit(b, i, "null") {
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
			i = SkipSpace(b, i)
			if i >= len(b) {
				return i, false
			}
			top := stack[len(stack)-1]
			switch b[i] {
			case ',':
				i = SkipSpace(b, i+1)
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
	j, ok := SkipString(b, i)
	if !ok {
		return i, false
	}
	j = SkipSpace(b, j)
	if j >= len(b) || b[j] != ':' {
		return i, false
	}
	return SkipSpace(b, j+1), true
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i // the usual case, inlined
	}
	return skipSpace(b, i)
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

// HasLit reports whether b holds lit at i.
func HasLit(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// plainStr[c] is true for bytes a JSON string holds as they are.
var plainStr = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// SkipString returns the index after the string starting at b[i] == '"',
// checking its grammar (not its UTF-8).
func SkipString(b []byte, i int) (int, bool) {
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
			n := escapeLen(b, i)
			if n == 0 {
				return i, false
			}
			i += n
		case c < 0x20:
			return i, false
		default:
			i++
		}
	}
	return i, false
}

// escapeLen returns the length of the valid escape at b[i] == '\\', or 0.
func escapeLen(b []byte, i int) int {
	if i+1 >= len(b) {
		return 0
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if hex4(b[i+2:]) < 0 {
			return 0
		}
		return 6
	}
	return 0
}

// ScanString scans the JSON string starting at b[i] == '"'. It returns the
// span of its body and whether it has escapes; ok is false for a string
// that is malformed or not valid UTF-8 (encoding/json would replace the
// invalid bytes, so a caller that wants its text leaves those to it).
func ScanString(b []byte, i int) (start, end int, escaped, ok bool) {
	start = i + 1
	ascii := true
	for j := start; ; {
		// Skip plain ASCII eight bytes at a time.
		for j+8 <= len(b) && plain8(binary.LittleEndian.Uint64(b[j:])) {
			j += 8
		}
		if j >= len(b) {
			return 0, 0, false, false
		}
		switch c := b[j]; {
		case c == '"':
			if !ascii && !utf8.Valid(b[start:j]) {
				return 0, 0, false, false
			}
			return start, j, escaped, true
		case c == '\\':
			escaped = true
			n := escapeLen(b, j)
			if n == 0 {
				return 0, 0, false, false
			}
			j += n
		case c < 0x20:
			return 0, 0, false, false
		case c >= utf8.RuneSelf:
			ascii = false
			j++
		default:
			j++
		}
	}
}

// plain8 reports whether none of the eight bytes of w is a quote, a
// backslash, a control character or non-ASCII.
func plain8(w uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	quote := w ^ (lo * '"')
	backslash := w ^ (lo * '\\')
	special := (quote - lo) &^ quote // high bit set where a byte was '"'
	special |= (backslash - lo) &^ backslash
	special |= w - lo*0x20 // high bit set where a byte was < 0x20 (or borrowed into)
	return (special|w)&hi == 0
}

// hex4 decodes four hex digits, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
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
		var ok bool
		if i, ok = digits(b, i+1); !ok {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		return digits(b, i)
	}
	return i, true
}

// digits skips one or more digits.
func digits(b []byte, i int) (int, bool) {
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i, i > start
}
