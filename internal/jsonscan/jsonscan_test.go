package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

var validSeeds = []string{`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `"x\u00e9"`, `-0.5e+3`, `01`, `{"a":}`, `[1,]`, ` true `, `nul`, `"\x"`, `{"a" 1}`, `[[[[]]]]`, "\"\x01\"", `{"a":1,}`, `{,"a":1}`, `{"a":1 "b":2}`, `{"a\"b":1,"a":2}`, `{"k":"\ud83d\ude00"}`}

func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
		if end, ok := SkipValue(b, 0); ok && !json.Valid(b[:end]) {
			t.Fatalf("SkipValue(%q) accepted invalid %q", b, b[:end])
		}
	})
}

func TestValidDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if !Valid([]byte(deep)) {
		t.Fatal("MaxDepth nested arrays refused")
	}
	deeper := "[" + deep + "]"
	if Valid([]byte(deeper)) || json.Valid([]byte(deeper)) {
		t.Fatal("nesting past MaxDepth accepted")
	}
}

// String gives encoding/json's text whenever it answers, and answers for
// every valid UTF-8 string.
func FuzzString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\"c\\d\/e\u00e9\ud83d\ude00"`, `"lone \ud800 x \udc00"`, `"日本語のテキスト、中文"`, `"bad \x"`, "\"ctrl \x01\"", "\"\xff\"", `"unterminated`, `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		s, end, ok := String(b, 0)
		var ref string
		err := json.Unmarshal(b, &ref)
		if !ok {
			if err == nil && len(b) > 0 && b[0] == '"' && end == 0 && isValidUTF8Body(b) {
				t.Fatalf("String(%q) refused a string encoding/json reads as %q", b, ref)
			}
			return
		}
		if end != len(b) {
			return // a string followed by something else: compare the string alone
		}
		if err != nil || s != ref {
			t.Fatalf("String(%q) = %q, encoding/json %q (%v)", b, s, ref, err)
		}
	})
}

func isValidUTF8Body(b []byte) bool { return strings.ToValidUTF8(string(b), "") == string(b) }

// Members visits the members encoding/json decodes, in order, and agrees
// with it on whether the object is well-formed.
func FuzzObject(f *testing.F) {
	for _, s := range append(validSeeds, `{"a":1,"b":[true,false],"c":{"d":"e"}}`, ` { "x" : null } `, `{"a":1}}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, ok := Object(b, 0)
		if !ok {
			return
		}
		var got []string
		var vals []json.RawMessage
		for m.Next() {
			got = append(got, string(m.Key))
			v, _ := m.Value()
			vals = append(vals, v)
		}
		end, ok := m.Close()
		whole := ok && SkipSpace(b, end) == len(b)
		var ref map[string]json.RawMessage
		err := json.Unmarshal(b, &ref)
		if whole != (err == nil) {
			t.Fatalf("Object(%q): well-formed %v, encoding/json: %v", b, whole, err)
		}
		if !whole {
			return
		}
		for i, k := range got {
			if strings.Contains(k, `\`) || !utf8.ValidString(k) {
				continue
			}
			if !json.Valid(vals[i]) {
				t.Fatalf("Object(%q): member %q value %q invalid", b, k, vals[i])
			}
			if last := lastIndex(got, k); last == i && compact(ref[k]) != compact(vals[i]) {
				t.Fatalf("Object(%q): member %q = %q, encoding/json %q", b, k, vals[i], ref[k])
			}
		}
	})
}

func lastIndex(keys []string, k string) int {
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i] == k {
			return i
		}
	}
	return -1
}

func compact(b []byte) string {
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return "invalid:" + string(b)
	}
	return c.String()
}

// Elements visits the elements encoding/json decodes, and agrees with it
// on whether the array is well-formed.
func FuzzArray(f *testing.F) {
	for _, s := range []string{`[]`, `[1]`, `[1,2]`, `[1,]`, `[,1]`, ` [ "a" , {"b":[]} , null ] `, `[1 2]`, `[[1],[2,[3]]]`, `[`, `]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, ok := Array(b, 0)
		if !ok {
			return
		}
		var got []string
		for e.Next() {
			end, ok := SkipValue(b, e.Start)
			e.Resume(end, ok)
			if ok {
				got = append(got, compact(b[e.Start:end]))
			}
		}
		end, ok := e.Close()
		whole := ok && SkipSpace(b, end) == len(b)
		var ref []json.RawMessage
		err := json.Unmarshal(b, &ref)
		if whole != (err == nil) {
			t.Fatalf("Array(%q): well-formed %v, encoding/json: %v", b, whole, err)
		}
		if !whole {
			return
		}
		if len(got) != len(ref) {
			t.Fatalf("Array(%q): %d elements, encoding/json %d", b, len(got), len(ref))
		}
		for i := range got {
			if got[i] != compact(ref[i]) {
				t.Fatalf("Array(%q): element %d %s, encoding/json %s", b, i, got[i], ref[i])
			}
		}
	})
}
