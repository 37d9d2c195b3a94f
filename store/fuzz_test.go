package store

import (
	"encoding/json"
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"
)

func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `"x\u00e9"`, `-0.5e+3`, `01`, `{"a":}`, `[1,]`, ` true `, `nul`, `"\x"`, `{"a" 1}`, `[[[[]]]]`, "\"\x01\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, encoding/json says %v", b, got, want)
		}
		if end, ok := skipValue(b, 0); ok && json.Valid(b[:end]) != true {
			t.Fatalf("skipValue(%q) accepted invalid %q", b, b[:end])
		}
	})
}

func FuzzFastChunkUpdate(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`,
		`{"params":{"update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"a\nb"},"messageId":"m1"}},"jsonrpc":"2.0"}`,
		`{"params":{"update":{"sessionUpdate":"user_message_chunk","content":null}}}`,
		`{"Params":{"update":{"sessionUpdate":"agent_message_chunk"}}}`,
		`{"params":{"update":{"sessionUpdate":"agent_message_chunk","content":{}},"update":{}}}`,
		`{"params":{"update":{"sessionUpdate":"tool_call","toolCallId":"x"}}}`,
		`{"params":{"update":{"sessionUpdate":"agent_message_chunk","_meta":{"usage":{"inputTokens":1}}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := fastChunkUpdate(b)
		if !ok {
			return
		}
		var env updateEnvelope
		if err := gojson.Unmarshal(b, &env); err != nil {
			t.Fatalf("fast path accepted %q, decoder says %v", b, err)
		}
		if !reflect.DeepEqual(*fast, env.Params.Update) {
			t.Fatalf("%q:\nfast    %+v\ndecoder %+v", b, *fast, env.Params.Update)
		}
	})
}
