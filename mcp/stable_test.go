package mcp_test

import (
	"encoding/json"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mnote/mcp"
)

// What the notes tools put into an agent's prompt — the server's
// instructions and the tools' names, descriptions and schemas, in their
// order — is byte for byte the same from one `mnote mcp` process to the
// next (and one mnote version's build to another run): an agent that
// starts again, or a second session, keeps its model's prompt cache.
// (docs/benchmarks/reasonix-cache-report.md measures it end to end.)
func TestToolListStable(t *testing.T) {
	list := func() string {
		t.Helper()
		st, ct := mcpsdk.NewInMemoryTransports()
		ctx := t.Context()
		ss, err := mcp.NewServer(recorder{make(chan string, 1)}, "1.0.0").Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		lt, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(struct {
			Instructions string
			Tools        any
		}{cs.InitializeResult().Instructions, lt.Tools})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first := list()
	for range 5 {
		if again := list(); again != first {
			t.Fatalf("the tool list changed between servers:\n%s\n%s", first, again)
		}
	}
}
