package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// An agent's line nested a million deep is refused at once: without the
// check, segmentio takes minutes over it (the test then times out).
func TestDecodeRefusesDeepNesting(t *testing.T) {
	for _, n := range []int{MaxDepth + 1, 1_000_000} {
		b := []byte(`{"jsonrpc":"2.0","method":"x","params":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
		var v struct {
			Method string `json:"method"`
			Params any    `json:"params"`
		}
		done := make(chan error, 1)
		go func() { done <- Decode(b, &v) }()
		select {
		case err := <-done:
			if err == nil {
				t.Fatalf("nesting %d decoded", n)
			}
			if !strings.Contains(err.Error(), "depth") {
				t.Errorf("nesting %d: error %q does not say why", n, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("nesting %d: Decode still running after 20 s", n)
		}
	}
}

// Decode reads what encoding/json reads, and fails where it fails, with
// its error.
func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	type rec struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Path  string `json:"path"`
			Line  *int   `json:"line"`
			Limit int    `json:"limit"`
		} `json:"params"`
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":4,"method":"fs/read_text_file","params":{"path":"/ws/笔记.md","line":3,"limit":10}}`,
		`{"id":"a","method":"m","params":{"PATH":"/x"}}`,
		`{"id":1,"params":{"line":null}}`,
		`{"id":1,"params":{"line":"3"}}`,
		`{"id":1,"params":`,
		`{"id":1} trailing`,
	} {
		var got, want rec
		gerr, werr := Decode([]byte(s), &got), json.Unmarshal([]byte(s), &want)
		if (gerr == nil) != (werr == nil) {
			t.Errorf("%s: Decode error %v, encoding/json %v", s, gerr, werr)
			continue
		}
		if werr == nil && (string(got.ID) != string(want.ID) || got.Method != want.Method || got.Params.Path != want.Params.Path ||
			(got.Params.Line == nil) != (want.Params.Line == nil) || got.Params.Limit != want.Params.Limit) {
			t.Errorf("%s: Decode %+v, encoding/json %+v", s, got, want)
		}
	}
}
