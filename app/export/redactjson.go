package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"mnote/store"
	"mnote/thread"
)

// JSON returns the JSON document raw with every string (keys included)
// passed through String. Besides the shapes String finds, the string value
// of a key that names a secret ("apiKey", "password", "Authorization",
// "Cookie", …) is hidden whole, and so is the "value" of an object whose
// "name" names one (ACP env variables and HTTP headers are such pairs).
// Object keys keep their order; numbers are copied as written.
func (r *Redactor) JSON(raw []byte) ([]byte, error) {
	out, err := r.appendValue(nil, raw)
	if err != nil {
		return nil, fmt.Errorf("redact JSON: %w", err)
	}
	return out, nil
}

func (r *Redactor) appendValue(dst, raw []byte) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return dst, io.ErrUnexpectedEOF
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return dst, err
		}
		return store.AppendJSONString(dst, r.String(s)), nil
	case '{':
		return r.appendObject(dst, raw)
	case '[':
		dec := json.NewDecoder(bytes.NewReader(raw))
		if _, err := dec.Token(); err != nil {
			return dst, err
		}
		dst = append(dst, '[')
		for i := 0; dec.More(); i++ {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return dst, err
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = r.appendValue(dst, v); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	default:
		if !json.Valid(raw) {
			return dst, fmt.Errorf("invalid JSON value %.40q", raw)
		}
		return append(dst, raw...), nil
	}
}

func (r *Redactor) appendObject(dst, raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return dst, err
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return dst, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return dst, err
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	// {"name": "OPENAI_API_KEY", "value": "…"}: the value is a secret.
	hideValue := false
	for i, k := range keys {
		if k == "name" {
			var n string
			hideValue = json.Unmarshal(vals[i], &n) == nil && secretKey(n)
		}
	}
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = store.AppendJSONString(dst, r.String(k))
		dst = append(dst, ':')
		v := bytes.TrimSpace(vals[i])
		if len(v) > 0 && v[0] == '"' && (secretKey(k) || hideValue && k == "value") {
			var s string
			if json.Unmarshal(v, &s) == nil && !plainValue(s) {
				dst = store.AppendJSONString(dst, Redacted)
				continue
			}
		}
		var err error
		if dst, err = r.appendValue(dst, v); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// secretKey reports whether a JSON key or header name holds a secret.
func secretKey(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	return secretName(name)
}

// Snapshot returns a copy of snap with every text in it redacted: messages,
// thoughts, tool titles, tool content (diffs, output, terminals), locations,
// raw tool input and output, plan entries, the title, commands, modes and
// config options.
func (r *Redactor) Snapshot(snap thread.Snapshot) (thread.Snapshot, error) {
	raw, err := json.Marshal(snap)
	if err != nil {
		return thread.Snapshot{}, fmt.Errorf("redact: encode the thread: %w", err)
	}
	red, err := r.JSON(raw)
	if err != nil {
		return thread.Snapshot{}, err
	}
	var out thread.Snapshot
	if err := json.Unmarshal(red, &out); err != nil {
		return thread.Snapshot{}, fmt.Errorf("redact: decode the redacted thread: %w", err)
	}
	return out, nil
}
