package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"mnote/internal/jsonscan"
	"mnote/thread"
)

// JSON returns the JSON document raw with every string (keys included)
// passed through String. Besides the shapes String finds, the string value
// of a key that names a secret ("apiKey", "password", "Authorization",
// "Cookie", …) is hidden whole, and so is the "value" of an object whose
// "name" names one (ACP env variables and HTTP headers are such pairs).
// Object keys keep their order; numbers are copied as written. Invalid
// JSON is an error (nothing is returned).
func (r *Redactor) JSON(raw []byte) ([]byte, error) {
	p := jsonParser{b: raw}
	v, err := p.document()
	if err != nil {
		return nil, fmt.Errorf("redact JSON: %w", err)
	}
	return r.appendNode(make([]byte, 0, len(raw)+64), v, false), nil
}

// node is a parsed JSON value: an object (keys, vals), an array (vals), a
// string (str, decoded) or another literal (raw, as written).
type node struct {
	kind byte // '{', '[', '"', or 0 for numbers, true, false, null
	str  string
	raw  []byte
	keys []string
	vals []*node
}

func (r *Redactor) appendNode(dst []byte, n *node, hide bool) []byte {
	switch n.kind {
	case '"':
		if hide && !plainValue(n.str) {
			return jsonscan.AppendString(dst, Redacted)
		}
		return jsonscan.AppendString(dst, r.String(n.str))
	case '[':
		dst = append(dst, '[')
		for i, v := range n.vals {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = r.appendNode(dst, v, false)
		}
		return append(dst, ']')
	case '{':
		// {"name": "OPENAI_API_KEY", "value": "…"}: the value is a secret.
		hideValue := false
		for i, k := range n.keys {
			if k == "name" && n.vals[i].kind == '"' && secretKey(n.vals[i].str) {
				hideValue = true
			}
		}
		dst = append(dst, '{')
		for i, k := range n.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonscan.AppendString(dst, r.String(k))
			dst = append(dst, ':')
			dst = r.appendNode(dst, n.vals[i], secretKey(k) || hideValue && k == "value")
		}
		return append(dst, '}')
	}
	return append(dst, n.raw...)
}

// secretKey reports whether a JSON key or header name holds a secret.
func secretKey(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	return secretName(name)
}

// jsonParser parses one JSON document (RFC 8259) into nodes.
type jsonParser struct {
	b     []byte
	i     int
	depth int
}

// maxDepth bounds nesting (a hostile line cannot exhaust the stack).
const maxDepth = 512

var errJSON = errors.New("invalid JSON")

func (p *jsonParser) document() (*node, error) {
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.b) {
		return nil, fmt.Errorf("%w: data after the value at byte %d", errJSON, p.i)
	}
	return v, nil
}

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) fail(what string) error {
	return fmt.Errorf("%w: %s at byte %d", errJSON, what, p.i)
}

func (p *jsonParser) value() (*node, error) {
	p.space()
	if p.i >= len(p.b) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &node{kind: '"', str: s}, nil
	default:
		start := p.i
		for p.i < len(p.b) && !strings.ContainsRune(" \t\n\r,]}:", rune(p.b[p.i])) {
			p.i++
		}
		lit := p.b[start:p.i]
		if len(lit) == 0 || !json.Valid(lit) {
			p.i = start
			return nil, p.fail("invalid literal")
		}
		return &node{raw: lit}, nil
	}
}

func (p *jsonParser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.fail("nested too deep")
	}
	return nil
}

func (p *jsonParser) object() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // {
	n := &node{kind: '{'}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return n, nil
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.fail("expected a key")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.fail("expected ':'")
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.keys, n.vals = append(n.keys, k), append(n.vals, v)
		p.space()
		if p.i >= len(p.b) {
			return nil, p.fail("unexpected end")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return n, nil
		default:
			return nil, p.fail("expected ',' or '}'")
		}
	}
}

func (p *jsonParser) array() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // [
	n := &node{kind: '['}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return n, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
		p.space()
		if p.i >= len(p.b) {
			return nil, p.fail("unexpected end")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return n, nil
		default:
			return nil, p.fail("expected ',' or ']'")
		}
	}
}

// string reads a string token; one without escapes is taken as it is,
// others are decoded by encoding/json.
func (p *jsonParser) string() (string, error) {
	start := p.i
	p.i++ // "
	escaped := false
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			tok := p.b[start:p.i]
			if !escaped && utf8.Valid(tok) {
				return string(tok[1 : len(tok)-1]), nil
			}
			var s string
			if err := json.Unmarshal(tok, &s); err != nil {
				p.i = start
				return "", p.fail("invalid string")
			}
			return s, nil
		case c == '\\':
			escaped = true
			p.i += 2
		case c < 0x20:
			return "", p.fail("control character in a string")
		default:
			p.i++
		}
	}
	p.i = start
	return "", p.fail("unterminated string")
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
