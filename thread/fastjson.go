package thread

import (
	"bytes"
	"slices"

	"mnote/internal/jsonscan"
)

// textBlock returns the text of a ContentBlock {"type":"text","text":...}
// without reflection: it is the hot path of streaming. ok is false for
// anything else and whenever the scanner is not sure it would agree with
// encoding/json (invalid UTF-8, escaped or case-variant keys, other
// ContentBlock fields); the caller then decodes with encoding/json, which
// stays the reference (FuzzTextBlock checks they agree).
func textBlock(b []byte) (text string, ok bool) {
	i := jsonscan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", false
	}
	i = jsonscan.SkipSpace(b, i+1)
	var isText, haveType, haveText bool
	for {
		if i >= len(b) || b[i] != '"' {
			return "", false
		}
		ks, ke, kesc, ok := scanKey(b, i)
		if !ok || kesc {
			return "", false
		}
		i = jsonscan.SkipSpace(b, ke+1)
		if i >= len(b) || b[i] != ':' {
			return "", false
		}
		i = jsonscan.SkipSpace(b, i+1)
		switch key := b[ks:ke]; string(key) {
		case "type":
			if !jsonscan.HasLit(b, i, `"`) {
				return "", false
			}
			isText, haveType = jsonscan.HasLit(b, i, `"text"`), true
			end, ok := jsonscan.SkipString(b, i)
			if !ok {
				return "", false
			}
			i = end
		case "text":
			if !jsonscan.HasLit(b, i, `"`) {
				return "", false
			}
			if text, i, ok = jsonscan.String(b, i); !ok {
				return "", false
			}
			haveText = true
		default:
			// A member encoding/json would decode into another
			// ContentBlock field.
			if jsonscan.FoldsTo(key, "type", "text", "mimeType", "uri", "name", "resource") {
				return "", false
			}
			end, ok := jsonscan.SkipValue(b, i)
			if !ok {
				return "", false
			}
			i = end
		}
		i = jsonscan.SkipSpace(b, i)
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
		i = jsonscan.SkipSpace(b, i+1)
	}
	if jsonscan.SkipSpace(b, i) != len(b) || !haveType || !isText || !haveText {
		return "", false
	}
	return text, true
}

// scanKey returns the span of the key at b[i] == '"', with a shortcut for
// the two words of a text block.
func scanKey(b []byte, i int) (start, end int, escaped, ok bool) {
	if len(b) >= i+6 && b[i+5] == '"' {
		switch string(b[i+1 : i+5]) {
		case "type", "text":
			return i + 1, i + 5, false, true
		}
	}
	return jsonscan.ScanString(b, i)
}

// toolContents decodes a tool call's content list without reflection; ok
// is false whenever it is not sure encoding/json would decode the same
// (as for ParseUpdateLine), and the caller decodes it.
func toolContents(b []byte) ([]ToolCallContent, bool) {
	return objectList(b, []string{"type", "content", "path", "oldText", "newText", "terminalId"},
		func(m *jsonscan.Members, c *ToolCallContent) (ok bool) {
			switch string(m.Key) {
			case "type":
				c.Type, ok = m.Text()
			case "content":
				var v []byte
				v, ok = m.Value()
				c.Content = bytes.Clone(v)
			case "path":
				c.Path, ok = m.Text()
			case "oldText":
				var v []byte
				if v, ok = m.Value(); ok {
					c.OldText, ok = optString(v)
				}
			case "newText":
				c.NewText, ok = m.Text()
			case "terminalId":
				c.TerminalID, ok = m.Text()
			}
			return ok
		})
}

// locations decodes a tool call's locations without reflection, as
// toolContents does its content.
func locations(b []byte) ([]Location, bool) {
	return objectList(b, []string{"path", "line"}, func(m *jsonscan.Members, l *Location) (ok bool) {
		switch string(m.Key) {
		case "path":
			l.Path, ok = m.Text()
		case "line":
			var v []byte
			if v, ok = m.Value(); !ok || string(v) == "null" {
				return ok
			}
			var n *int64
			if n, ok = optInt(v); ok && int64(int(*n)) == *n {
				line := int(*n)
				l.Line = &line
				return true
			}
			return false
		}
		return ok
	})
}

// objectList decodes a JSON list of objects of type T whose members are
// names (at most 8): member reads the one m is at into *T. ok is false for
// anything encoding/json might decode differently: escaped, repeated or
// case-variant names, or a member that does not read.
func objectList[T any](b []byte, names []string, member func(m *jsonscan.Members, v *T) bool) ([]T, bool) {
	a, ok := jsonscan.Array(b, 0)
	if !ok {
		return nil, false
	}
	out := make([]T, 0, 1)
	for a.Next() {
		var v T
		m, ok := jsonscan.Object(b, a.Start)
		if !ok {
			return nil, false
		}
		var seen uint8
		for m.Next() {
			if m.KeyEscaped {
				return nil, false
			}
			f := slices.Index(names, string(m.Key))
			if f < 0 {
				if jsonscan.FoldsTo(m.Key, names...) {
					return nil, false
				}
				continue
			}
			if seen&(1<<f) != 0 || !member(&m, &v) {
				return nil, false
			}
			seen |= 1 << f
		}
		end, ok := m.Close()
		if !ok {
			return nil, false
		}
		a.Resume(end, true)
		out = append(out, v)
	}
	end, ok := a.Close()
	return out, ok && jsonscan.SkipSpace(b, end) == len(b)
}
