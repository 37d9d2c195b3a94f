package store

import (
	"encoding/json"
	"reflect"
	"testing"
)

// rpcMembers reads what encoding/json reads whenever it answers, and
// answers for the lines agents and mnote write.
func FuzzRPCMembers(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn","usage":{"inputTokens":1}}}`,
		`{"jsonrpc":"2.0","id":"a-1","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c"},"options":[{"optionId":"allow"}]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"你好"}]}}`,
		` { "id" : null , "result" : null } `,
	}
	for _, s := range seeds {
		var env rpcEnvelope
		if !rpcMembers([]byte(s), &env) {
			f.Fatalf("rpcMembers refused %s", s)
		}
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"ID":1}`, `{"id":1,"id":2}`, `{"params":{"ToolCall":{}}}`, `{"i\u0064":1}`, `{"id":1}x`, `{"params":[1]}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var env rpcEnvelope
		if !rpcMembers(b, &env) {
			return
		}
		var ref rpcEnvelope
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatalf("rpcMembers accepted %q; encoding/json: %v", b, err)
		}
		if !reflect.DeepEqual(env, ref) {
			t.Fatalf("%q:\nfast          %+v\nencoding/json %+v", b, env, ref)
		}
	})
}
