package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mnote/acp/acptest"
	"mnote/mcp"
)

func TestMain(m *testing.M) { acptest.Main(m) }

// BenchmarkToolRoundTrip is a notes tool call as an agent makes it: the
// Go MCP SDK's client → `mnote mcp` (a real process, stdio) → the socket
// → the host's handler and back. The reference, measured in the same run,
// is a bare call over the same socket (the channel alone). It reports the
// p95 of both and their ratio; the target is p95 < 20 ms.
func BenchmarkToolRoundTrip(b *testing.B) {
	mnote := acptest.Mnote(b)
	h, err := mcp.Listen(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	tok, err := h.Register(echo{"bench"})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.Command(mnote, "mcp")
	cmd.Env = append(os.Environ(), mcp.EnvSocket+"="+h.Socket(), mcp.EnvToken+"="+tok)
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench"}, nil).Connect(ctx, &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	bare, err := mcp.Dial(ctx, h.Socket(), tok)
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	args := map[string]any{"query": "cache hits"}
	raw, _ := json.Marshal(args)
	call := func() {
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: mcp.ToolSearchNotes, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("call: %v %+v", err, res)
		}
	}
	call() // warm up: the schemas, the connection
	tool, ref := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		call()
		t1 := time.Now()
		if _, err := bare.Call(ctx, mcp.ToolSearchNotes, raw); err != nil {
			b.Fatal(err)
		}
		tool, ref = append(tool, t1.Sub(t0)), append(ref, time.Since(t1))
	}
	b.StopTimer()
	p95 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)*95/100]
	}
	pt, pr := p95(tool), p95(ref)
	b.ReportMetric(float64(pt.Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(pr.Microseconds())/1000, "ref-p95-ms")
	b.ReportMetric(float64(pt)/float64(max(pr, 1)), "ratio")
	if pt > 20*time.Millisecond {
		b.Errorf("p95 %v, want < 20ms", pt)
	}
}
