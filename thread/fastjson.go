package thread

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// textBlock returns the text of a ContentBlock {"type":"text","text":...}
// without reflection: it is the hot path of streaming. ok is false for
// anything else and whenever the scanner is not sure it would agree with
// encoding/json (invalid UTF-8, case-variant keys, other ContentBlock
// fields); the caller then decodes with encoding/json, which stays the
// reference (FuzzTextBlock checks they agree).
func textBlock(b []byte) (text string, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return "", false
	}
	var isText, haveType, haveText bool
	for {
		if i >= len(b) || b[i] != '"' {
			return "", false
		}
		ks, ke, kesc, ok := scanKey(b, i)
		if !ok || kesc {
			return "", false
		}
		i = skipWS(b, ke+1)
		if i >= len(b) || b[i] != ':' {
			return "", false
		}
		i = skipWS(b, i+1)
		key := b[ks:ke]
		switch string(key) {
		case "type":
			if i >= len(b) || b[i] != '"' {
				return "", false
			}
			vs, ve, vesc, ok := scanKey(b, i)
			if !ok || vesc {
				return "", false
			}
			isText, haveType = string(b[vs:ve]) == "text", true
			i = ve + 1
		case "text":
			if i >= len(b) || b[i] != '"' {
				return "", false
			}
			vs, ve, vesc, ok := scanString(b, i)
			if !ok {
				return "", false
			}
			if vesc {
				if text, ok = unescape(b[vs:ve]); !ok {
					return "", false
				}
			} else {
				text = string(b[vs:ve])
			}
			haveText = true
			i = ve + 1
		default:
			if knownBlockField(key) {
				return "", false
			}
			end, ok := skipValue(b, i)
			if !ok {
				return "", false
			}
			i = end
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return "", false
		}
		if b[i] == '}' {
			i++
			break
		}
		if b[i] != ',' {
			return "", false
		}
		i = skipWS(b, i+1)
	}
	if skipWS(b, i) != len(b) || !haveType || !isText || !haveText {
		return "", false
	}
	return text, true
}

// knownBlockField reports whether encoding/json would decode key into a
// ContentBlock field (it matches names case-insensitively).
func knownBlockField(key []byte) bool {
	for _, f := range [...]string{"type", "text", "mimeType", "uri", "name", "resource"} {
		if len(key) == len(f) && strings.EqualFold(string(key), f) {
			return true
		}
	}
	return false
}

func skipWS(b []byte, i int) int {
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

// scanKey is scanString with a shortcut for the short words of a text
// block ("type", "text").
func scanKey(b []byte, i int) (start, end int, escaped, ok bool) {
	if len(b) >= i+6 && b[i+5] == '"' {
		switch string(b[i+1 : i+5]) {
		case "type", "text":
			return i + 1, i + 5, false, true
		}
	}
	return scanString(b, i)
}

// scanString scans the JSON string starting at b[i] == '"'. It returns the
// span of its body, whether it has escapes, and ok=false for a string that
// is malformed or not valid UTF-8.
func scanString(b []byte, i int) (start, end int, escaped, ok bool) {
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
			if j+1 >= len(b) {
				return 0, 0, false, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+5 >= len(b) || hex4(b[j+2:j+6]) < 0 {
					return 0, 0, false, false
				}
				j += 6
			default:
				return 0, 0, false, false
			}
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

// unescape decodes the body of a JSON string already checked by scanString,
// the way encoding/json does (lone surrogates become U+FFFD).
func unescape(s []byte) (string, bool) {
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

// skipValue returns the end of the JSON value starting at b[i], checking it
// is valid.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		_, end, _, ok := scanString(b, i)
		return end + 1, ok
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				_, end, _, ok := scanString(b, j)
				if !ok {
					return 0, false
				}
				j = end
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, gojson.Valid(b[i : j+1])
				}
			}
		}
		return 0, false
	default:
		j := i
		for j < len(b) {
			c := b[j]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				break
			}
			j++
		}
		return j, j > i && gojson.Valid(b[i:j])
	}
}
