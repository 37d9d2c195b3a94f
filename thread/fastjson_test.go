package thread

import (
	"encoding/json"
	"reflect"
	"testing"
)

var textBlockCases = []struct {
	in   string
	text string
	ok   bool
}{
	{`{"type":"text","text":"hello"}`, "hello", true},
	{` { "text" : "a" , "type" : "text" } `, "a", true},
	{`{"type":"text","text":""}`, "", true},
	{`{"type":"text","text":"line\nquote\" tab\t slash\/ back\\ \u00e9 \ud83d\ude00"}`, "line\nquote\" tab\t slash/ back\\ é 😀", true},
	{`{"type":"text","text":"lone \ud800 x \udc00"}`, "lone \uFFFD x \uFFFD", true},
	{`{"type":"text","text":"héllo ✓"}`, "héllo ✓", true},
	{`{"type":"text","text":"a","annotations":{"audience":["user"],"priority":0.5},"_meta":null}`, "a", true},
	{`{"type":"text","text":"first","text":"last"}`, "last", true},
	// Not text, or not sure: the caller uses encoding/json.
	{`{"type":"image","data":"AA=="}`, "", false},
	{`{"type":"text"}`, "", false},
	{`{"text":"no type"}`, "", false},
	{`{"type":"text","text":null}`, "", false},
	{`{"type":"text","Text":"case"}`, "", false},
	{`{"type":"text","text":"a","uri":5}`, "", false},
	{`{"type":"text","text":"bad \x"}`, "", false},
	{`{"type":"text","text":"ctrl ` + "\x01" + `"}`, "", false},
	{`{"type":"text","text":"a",}`, "", false},
	{`{"type":"text","text":"a"} x`, "", false},
	{`{"type":"text","text":"a","x":tru}`, "", false},
	{`{"type":"text","text":"a","x":{"y":[}}`, "", false},
	{`{"type":"text","text":"` + "\xff" + `"}`, "", false},
	{`"text"`, "", false},
	{``, "", false},
	{`{}`, "", false},
}

func TestTextBlock(t *testing.T) {
	for _, tc := range textBlockCases {
		text, ok := textBlock([]byte(tc.in))
		if ok != tc.ok || text != tc.text {
			t.Errorf("textBlock(%s) = %q, %v; want %q, %v", tc.in, text, ok, tc.text, tc.ok)
		}
	}
}

// FuzzTextBlock checks that the fast path never disagrees with
// encoding/json: whenever it answers, encoding/json decodes the same text.
func FuzzTextBlock(f *testing.F) {
	for _, tc := range textBlockCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		text, ok := textBlock(b)
		if !ok {
			return
		}
		var cb ContentBlock
		if err := json.Unmarshal(b, &cb); err != nil {
			t.Fatalf("textBlock(%q) = %q but encoding/json fails: %v", b, text, err)
		}
		if cb.Type != "text" || cb.Text != text {
			t.Fatalf("textBlock(%q) = %q, encoding/json: %+v", b, text, cb)
		}
	})
}

func BenchmarkTextBlock(b *testing.B) {
	in := []byte(`{"type":"text","text":"lorem iplorem iplorem iplorem iplorem ip"}`)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := textBlock(in); !ok {
				b.Fatal("not ok")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var cb ContentBlock
			if err := json.Unmarshal(in, &cb); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// toolContents and locations decode what encoding/json decodes whenever
// they answer, and answer for the shapes agents send.
func FuzzToolContents(f *testing.F) {
	for _, s := range []string{
		`[{"type":"content","content":{"type":"text","text":"done"}}]`,
		`[{"type":"diff","path":"/ws/a.md","oldText":null,"newText":"b"},{"type":"terminal","terminalId":"t1"}]`,
		`[{"type":"diff","path":"/a","oldText":"x","newText":"中文"}]`, `[]`, ` [ ] `,
		`[{"Type":"diff"}]`, `[{"type":"diff","type":"content"}]`, `[{"type":5}]`, `[1]`, `[{"path":"a"},]`,
		`[{"path":"/a","line":3},{"path":"/b","line":null},{"path":"/c"}]`, `[{"path":"/a","line":1.5}]`, `[{"path":"/a","Line":2}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, ok := toolContents(b); ok {
			var ref []ToolCallContent
			if err := json.Unmarshal(b, &ref); err != nil || !reflect.DeepEqual(got, ref) && !(len(got) == 0 && len(ref) == 0) {
				t.Fatalf("toolContents(%q) = %+v; encoding/json %+v (%v)", b, got, ref, err)
			}
		}
		if got, ok := locations(b); ok {
			var ref []Location
			if err := json.Unmarshal(b, &ref); err != nil || !reflect.DeepEqual(got, ref) && !(len(got) == 0 && len(ref) == 0) {
				t.Fatalf("locations(%q) = %+v; encoding/json %+v (%v)", b, got, ref, err)
			}
		}
	})
}

func TestToolContentsTakeAgentShapes(t *testing.T) {
	for _, s := range []string{
		`[{"type":"content","content":{"type":"text","text":"done"}}]`,
		`[{"type":"diff","path":"/ws/a.md","oldText":null,"newText":"b"},{"type":"terminal","terminalId":"t1"}]`,
	} {
		if _, ok := toolContents([]byte(s)); !ok {
			t.Errorf("toolContents refused %s", s)
		}
	}
	if l, ok := locations([]byte(`[{"path":"/a","line":3}]`)); !ok || len(l) != 1 || *l[0].Line != 3 {
		t.Errorf("locations = %+v, %v", l, ok)
	}
}
