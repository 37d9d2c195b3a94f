package thread

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// stdUpdateLine is what the callers of ParseUpdateLine decode with when it
// says no: encoding/json, the reference.
type stdUpdateLine struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		SessionID string `json:"sessionId"`
		Update    Update `json:"update"`
	} `json:"params"`
}

// agreesWithStd fails t when ParseUpdateLine accepted b but encoding/json
// decodes it differently (or not as a notification).
func agreesWithStd(t *testing.T, b []byte, sid []byte, u *Update) {
	t.Helper()
	var ref stdUpdateLine
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatalf("ParseUpdateLine accepted %q; encoding/json: %v", b, err)
	}
	if ref.Method != "session/update" || ref.ID != nil {
		t.Fatalf("ParseUpdateLine accepted %q; encoding/json reads method %q, id %s", b, ref.Method, ref.ID)
	}
	if string(sid) != ref.Params.SessionID {
		t.Fatalf("%q: sessionId %q, encoding/json %q", b, sid, ref.Params.SessionID)
	}
	if !reflect.DeepEqual(*u, ref.Params.Update) {
		t.Fatalf("%q:\nfast          %+v\nencoding/json %+v", b, *u, ref.Params.Update)
	}
}

// Every session/update line real agents sent (the recordings in testdata)
// takes the fast path and decodes as encoding/json decodes it.
func TestParseUpdateLineRealAgents(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ndjson")
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var rec struct {
				Msg json.RawMessage `json:"msg"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) != nil || !bytes.Contains(rec.Msg, []byte(`"session/update"`)) {
				continue
			}
			var u Update
			sid, ok := ParseUpdateLine(rec.Msg, &u)
			if !ok {
				t.Errorf("%s: the fast path refused %s", f, rec.Msg)
				continue
			}
			agreesWithStd(t, rec.Msg, sid, &u)
			n++
		}
	}
	if n < 100 {
		t.Fatalf("only %d session/update lines in testdata", n)
	}
}

var updateLineCases = []struct {
	in string
	ok bool
}{
	{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`, true},
	{` { "params" : { "update" : { "content" : null , "sessionUpdate" : "user_message_chunk" } , "sessionId" : "s\u00e9" } , "method" : "session/update" } `, true},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Read","kind":"read","status":"pending","locations":[{"path":"/a"}],"rawInput":{"path":"/a"},"rawOutput":null,"_meta":{"x":1}}}}`, true},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":120,"size":-1,"cost":{"amount":0.25,"currency":"USD"}}}}`, true},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","title":null,"updatedAt":"2026-01-01","messageId":"m"}}}`, true},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[],"unknownField":[1,{"a":"b"}]}},"extra":true}`, true},
	{`{"method":"session/update","params":{"sessionId":"日本語 セッション","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"中文文本"}}}}`, true},
	// Not a notification, or not sure: the caller uses encoding/json.
	{`{"jsonrpc":"2.0","id":3,"method":"session/update","params":{"sessionId":"s","update":{}}}`, false},
	{`{"method":"session/prompt","params":{"sessionId":"s","update":{}}}`, false},
	{`{"Method":"session/update","params":{"sessionId":"s","update":{}}}`, false},
	{`{"method":"session/update","PARAMS":{"sessionId":"s","update":{}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"SessionUpdate":"plan"}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"ſessionUpdate":"plan"}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","sessionUpdate":"plan"}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"session\u0055pdate":"plan"}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1.5}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":"1"}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":5}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"` + "\xff" + `","update":{"sessionUpdate":"plan"}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"s"}}`, false},
	{`{"method":"session/update"}`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan"}}} x`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan",}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","content":{"a":}}}}`, false},
	{`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan"}},"params":{}}`, false},
	{`[]`, false},
	{``, false},
}

func TestParseUpdateLine(t *testing.T) {
	for _, tc := range updateLineCases {
		var u Update
		sid, ok := ParseUpdateLine([]byte(tc.in), &u)
		if ok != tc.ok {
			t.Errorf("ParseUpdateLine(%s) ok = %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if ok {
			agreesWithStd(t, []byte(tc.in), sid, &u)
		}
	}
}

// The buffer of u.Content is reused, as the agent connection does.
func TestParseUpdateLineReusesContent(t *testing.T) {
	u := Update{Content: make([]byte, 0, 256)}
	p := &u.Content[:1][0]
	if _, ok := ParseUpdateLine([]byte(updateLineCases[0].in), &u); !ok {
		t.Fatal("refused")
	}
	if &u.Content[0] != p || string(u.Content) != `{"type":"text","text":"hi"}` {
		t.Fatalf("content %q not in the reused buffer", u.Content)
	}
}

func FuzzParseUpdateLine(f *testing.F) {
	for _, tc := range updateLineCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var u Update
		sid, ok := ParseUpdateLine(b, &u)
		if ok {
			agreesWithStd(t, b, sid, &u)
		}
	})
}
