package thread

import (
	"bytes"
	"encoding/json"
	"strconv"

	"mnote/internal/jsonscan"
)

// ParseUpdateLine decodes the session/update notification line b,
//
//	{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":…,"update":{…}}}
//
// into u without reflection: it is the hot path of streaming and of
// replay. u must be zero, except that the buffer of u.Content is reused;
// the session id returned may share b's bytes. ok is false for any other
// line (a request, a response, an id) and whenever the scanner is not sure
// encoding/json would decode the same: escaped, repeated or case-variant
// keys, invalid UTF-8, a value of another type. The caller then decodes
// with jsonscan.Decode; on !ok u may hold part of the line. encoding/json
// stays the reference: FuzzParseUpdateLine checks the two agree.
func ParseUpdateLine(b []byte, u *Update) (sessionID []byte, ok bool) {
	if sid, end, ok := canonicalUpdateLine(b, u); ok {
		return sid, jsonscan.SkipSpace(b, end) == len(b)
	}
	sid, ok := parseUpdateLine(b, u)
	return []byte(sid), ok
}

func parseUpdateLine(b []byte, u *Update) (sessionID string, ok bool) {
	top, ok := jsonscan.Object(b, 0)
	if !ok {
		return "", false
	}
	var seen uint8
	for top.Next() {
		if top.KeyEscaped {
			return "", false
		}
		switch string(top.Key) {
		case "jsonrpc":
			// Not decoded.
		case "method":
			if seen&1 != 0 {
				return "", false
			}
			seen |= 1
			if v, ok := top.Value(); !ok || string(v) != `"session/update"` {
				return "", false
			}
		case "params":
			if seen&2 != 0 {
				return "", false
			}
			seen |= 2
			var end int
			if sessionID, end, ok = parseUpdateParams(b, top.Start, u); !ok {
				return "", false
			}
			top.Resume(end, true)
		default:
			// "id" (a request, not a notification) and the case
			// variants encoding/json would also match.
			if jsonscan.FoldsTo(top.Key, "id", "method", "params") {
				return "", false
			}
		}
	}
	end, ok := top.Close()
	if !ok || jsonscan.SkipSpace(b, end) != len(b) || seen != 3 {
		return "", false
	}
	return sessionID, true
}

// The layout nearly every agent writes a notification in (the SDKs
// marshal these members in this order, without spaces).
const (
	canonicalPrefix = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"`
	canonicalUpdate = `","update":`
)

// canonicalUpdateLine reads a line laid out exactly as
//
//	{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"…","update":{…}}}
//
// with a plain ASCII session id, skipping the walk of the two outer
// objects; ok is false for any other layout (and the caller walks it). end
// is where the line's closing braces end.
func canonicalUpdateLine(b []byte, u *Update) (sessionID []byte, end int, ok bool) {
	if len(b) < len(canonicalPrefix) || string(b[:len(canonicalPrefix)]) != canonicalPrefix {
		return nil, 0, false
	}
	i := len(canonicalPrefix)
	j := i
	for j < len(b) && b[j] != '"' {
		if c := b[j]; c < 0x20 || c >= 0x80 || c == '\\' {
			return nil, 0, false
		}
		j++
	}
	if !jsonscan.HasLit(b, j, canonicalUpdate) {
		return nil, 0, false
	}
	end, ok = parseUpdate(b, j+len(canonicalUpdate), u)
	if !ok || !jsonscan.HasLit(b, end, "}}") {
		return nil, 0, false
	}
	return b[i:j], end + 2, true
}

func parseUpdateParams(b []byte, i int, u *Update) (sessionID string, end int, ok bool) {
	m, ok := jsonscan.Object(b, i)
	if !ok {
		return "", 0, false
	}
	var seen uint8
	for m.Next() {
		if m.KeyEscaped {
			return "", 0, false
		}
		switch string(m.Key) {
		case "sessionId":
			if seen&1 != 0 {
				return "", 0, false
			}
			seen |= 1
			if sessionID, ok = m.Text(); !ok {
				return "", 0, false
			}
		case "update":
			if seen&2 != 0 {
				return "", 0, false
			}
			seen |= 2
			end, ok := parseUpdate(b, m.Start, u)
			if !ok {
				return "", 0, false
			}
			m.Resume(end, true)
		default:
			if jsonscan.FoldsTo(m.Key, "sessionId", "update") {
				return "", 0, false
			}
		}
	}
	end, ok = m.Close()
	return sessionID, end, ok && seen&2 != 0
}

// decodeUpdateObject decodes the JSON object b into u (zero), without
// reflection when it can.
func decodeUpdateObject(b []byte, u *Update) error {
	if end, ok := parseUpdate(b, 0, u); ok && jsonscan.SkipSpace(b, end) == len(b) {
		return nil
	}
	*u = Update{}
	return jsonscan.Decode(b, u)
}

// updateFields are Update's JSON names, in the order of the bits parseUpdate
// marks them seen with.
var updateFields = [...]string{
	"sessionUpdate", "content", "messageId", "toolCallId", "title", "kind",
	"status", "locations", "rawInput", "rawOutput", "entries",
	"availableCommands", "currentModeId", "configOptions", "updatedAt",
	"used", "size", "cost", "_meta",
}

func parseUpdate(b []byte, i int, u *Update) (end int, ok bool) {
	m, ok := jsonscan.Object(b, i)
	if !ok {
		return 0, false
	}
	var seen uint32
	for m.Next() {
		if m.KeyEscaped {
			return 0, false
		}
		f := updateField(m.Key)
		if f < 0 {
			if jsonscan.FoldsTo(m.Key, updateFields[:]...) {
				return 0, false
			}
			continue
		}
		if seen&(1<<f) != 0 {
			return 0, false
		}
		seen |= 1 << f
		v, ok := m.Value()
		if !ok {
			return 0, false
		}
		switch updateFields[f] {
		case "sessionUpdate":
			u.SessionUpdate, ok = kindString(v)
		case "toolCallId":
			u.ToolCallID, ok = jsonscan.StringValue(v)
		case "content":
			u.Content = append(u.Content[:0], v...)
		case "messageId":
			u.MessageID, ok = optString(v)
		case "title":
			u.Title, ok = optString(v)
		case "kind":
			u.Kind, ok = optString(v)
		case "status":
			u.Status, ok = optString(v)
		case "currentModeId":
			u.CurrentModeID, ok = optString(v)
		case "updatedAt":
			u.UpdatedAt, ok = optString(v)
		case "locations":
			u.Locations = bytes.Clone(v)
		case "rawInput":
			u.RawInput = bytes.Clone(v)
		case "rawOutput":
			u.RawOutput = bytes.Clone(v)
		case "entries":
			u.Entries = bytes.Clone(v)
		case "availableCommands":
			u.AvailableCommands = bytes.Clone(v)
		case "configOptions":
			u.ConfigOptions = bytes.Clone(v)
		case "_meta":
			u.Meta = bytes.Clone(v)
		case "used":
			u.Used, ok = optInt(v)
		case "size":
			u.Size, ok = optInt(v)
		case "cost":
			u.Cost = nil
			if !isNull(v) {
				var c Cost
				ok = json.Unmarshal(v, &c) == nil
				u.Cost = &c
			}
		}
		if !ok {
			return 0, false
		}
	}
	return m.Close()
}

// updateField returns the index of key in updateFields, or -1.
func updateField(key []byte) int {
	switch string(key) {
	case "sessionUpdate":
		return 0
	case "content":
		return 1
	case "messageId":
		return 2
	case "toolCallId":
		return 3
	case "title":
		return 4
	case "kind":
		return 5
	case "status":
		return 6
	case "locations":
		return 7
	case "rawInput":
		return 8
	case "rawOutput":
		return 9
	case "entries":
		return 10
	case "availableCommands":
		return 11
	case "currentModeId":
		return 12
	case "configOptions":
		return 13
	case "updatedAt":
		return 14
	case "used":
		return 15
	case "size":
		return 16
	case "cost":
		return 17
	case "_meta":
		return 18
	}
	return -1
}

// kindString decodes the sessionUpdate member, without an allocation for
// the kinds this package knows.
func kindString(v []byte) (string, bool) {
	if len(v) > 2 && v[0] == '"' && v[len(v)-1] == '"' {
		switch k := v[1 : len(v)-1]; string(k) {
		case KindAgentMessageChunk:
			return KindAgentMessageChunk, true
		case KindAgentThoughtChunk:
			return KindAgentThoughtChunk, true
		case KindUserMessageChunk:
			return KindUserMessageChunk, true
		case KindToolCall:
			return KindToolCall, true
		case KindToolCallUpdate:
			return KindToolCallUpdate, true
		case KindPlan:
			return KindPlan, true
		}
	}
	return jsonscan.StringValue(v)
}

// optString decodes a *string member: a string, or null for nil.
func optString(v []byte) (*string, bool) {
	if string(v) == "null" {
		return nil, true
	}
	s, ok := jsonscan.StringValue(v)
	return &s, ok
}

// optInt decodes a *int64 member: an integer, or null for nil.
func optInt(v []byte) (*int64, bool) {
	if string(v) == "null" {
		return nil, true
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return &n, err == nil
}
