package jsonscan

import "unicode/utf8"

// Members walks the members of one JSON object, checking the grammar as it
// goes. Each value is skipped (and checked) when the next member is asked
// for, unless the caller took it with Value or parsed it itself and said
// where it ended with Resume:
//
//	m, ok := jsonscan.Object(b, i)
//	for m.Next() {
//		switch string(m.Key) {
//		case "a":
//			v, ok := m.Value() // its span, checked
//		case "b":
//			end, ok := parseB(b, m.Start)
//			m.Resume(end, ok)
//		} // others are skipped
//	}
//	end, ok := m.Close()
type Members struct {
	b []byte
	i int // the next byte to read, or the value's start while pending
	// Key is the member's key as it is in the input (its body, without
	// the quotes); KeyEscaped tells it has escapes, so it is not the key's
	// text.
	Key        []byte
	KeyEscaped bool
	// Start is where the member's value starts.
	Start int

	first, pending, bad, done bool
}

// Object starts walking the object at b[i] (after optional space); ok is
// false when no object starts there.
func Object(b []byte, i int) (Members, bool) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return Members{bad: true}, false
	}
	return Members{b: b, i: i + 1, first: true}, true
}

// Value returns the span of the current member's value, checked; ok is
// false when it is malformed (and the walk then stops).
func (m *Members) Value() ([]byte, bool) {
	if !m.pending {
		return nil, false
	}
	end, ok := SkipValue(m.b, m.Start)
	m.Resume(end, ok)
	if !ok {
		return nil, false
	}
	return m.b[m.Start:end], true
}

// KeyText returns the current member's key as text (unescaped); ok is
// false for a key that is not valid UTF-8 (encoding/json would replace its
// invalid bytes).
func (m *Members) KeyText() (string, bool) {
	if !m.KeyEscaped {
		return string(m.Key), utf8.Valid(m.Key)
	}
	if !utf8.Valid(m.Key) {
		return "", false
	}
	return Unescape(m.Key)
}

// Text returns the current member's value when it is a JSON string, as
// StringValue does (ok false for anything else, or malformed, and the walk
// then stops).
func (m *Members) Text() (string, bool) {
	if !m.pending || m.Start >= len(m.b) || m.b[m.Start] != '"' {
		m.pending, m.bad = false, true
		return "", false
	}
	s, end, ok := String(m.b, m.Start)
	m.Resume(end, ok)
	return s, ok
}

// Resume says the caller parsed the current member's value itself and it
// ends at end (ok false: it was malformed, and the walk stops).
func (m *Members) Resume(end int, ok bool) {
	m.pending = false
	if !ok {
		m.bad = true
		return
	}
	m.i = end
}

// Next moves to the next member; it is false at the end of the object and
// on malformed input (Close tells them apart).
func (m *Members) Next() bool {
	if m.pending {
		m.Value()
	}
	if m.bad || m.done {
		return false
	}
	b := m.b
	i := SkipSpace(b, m.i)
	if i < len(b) && b[i] == '}' {
		m.i, m.done = i+1, true
		return false
	}
	if !m.first {
		if i >= len(b) || b[i] != ',' {
			m.bad = true
			return false
		}
		i = SkipSpace(b, i+1)
	}
	m.first = false
	if i >= len(b) || b[i] != '"' {
		m.bad = true // also a trailing comma
		return false
	}
	ks, ke, esc, ok := scanKey(b, i)
	if !ok {
		m.bad = true
		return false
	}
	i = SkipSpace(b, ke+1)
	if i >= len(b) || b[i] != ':' {
		m.bad = true
		return false
	}
	m.Key, m.KeyEscaped, m.Start = b[ks:ke], esc, SkipSpace(b, i+1)
	m.pending = true
	return true
}

// Close returns the index after the object's closing brace and whether the
// object was well-formed, once Next has returned false.
func (m *Members) Close() (int, bool) {
	if m.bad || !m.done {
		return 0, false
	}
	return m.i, true
}

// scanKey returns the span of the key's body at b[i] == '"', with a
// shortcut for keys without escapes.
func scanKey(b []byte, i int) (start, end int, escaped, ok bool) {
	j := i + 1
	for j < len(b) && plainStr[b[j]] {
		j++
	}
	if j < len(b) && b[j] == '"' {
		return i + 1, j, false, true
	}
	e, ok := SkipString(b, i)
	if !ok {
		return 0, 0, false, false
	}
	return i + 1, e - 1, true, true // the shortcut stops only at an escape
}

// Elements walks the elements of one JSON array, like Members: each
// element starts at Start when Next is true; the caller parses it and says
// where it ended with Resume, or Next skips (and checks) it.
type Elements struct {
	b []byte
	i int
	// Start is where the current element starts.
	Start int

	first, pending, bad, done bool
}

// Array starts walking the array at b[i] (after optional space); ok is
// false when no array starts there.
func Array(b []byte, i int) (Elements, bool) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '[' {
		return Elements{bad: true}, false
	}
	return Elements{b: b, i: i + 1, first: true}, true
}

// Resume says the caller parsed the current element itself and it ends at
// end (ok false: it was malformed, and the walk stops).
func (e *Elements) Resume(end int, ok bool) {
	e.pending = false
	if !ok {
		e.bad = true
		return
	}
	e.i = end
}

// Next moves to the next element; it is false at the end of the array and
// on malformed input (Close tells them apart).
func (e *Elements) Next() bool {
	if e.pending {
		end, ok := SkipValue(e.b, e.Start)
		e.Resume(end, ok)
	}
	if e.bad || e.done {
		return false
	}
	b := e.b
	i := SkipSpace(b, e.i)
	if i < len(b) && b[i] == ']' && e.first {
		e.i, e.done = i+1, true
		return false
	}
	if !e.first {
		switch {
		case i < len(b) && b[i] == ']':
			e.i, e.done = i+1, true
			return false
		case i < len(b) && b[i] == ',':
			i = SkipSpace(b, i+1)
		default:
			e.bad = true
			return false
		}
	}
	e.first = false
	if i >= len(b) || b[i] == ']' {
		e.bad = true // also a trailing comma
		return false
	}
	e.Start, e.pending = i, true
	return true
}

// Close returns the index after the array's closing bracket and whether
// the array was well-formed, once Next has returned false.
func (e *Elements) Close() (int, bool) {
	if e.bad || !e.done {
		return 0, false
	}
	return e.i, true
}
