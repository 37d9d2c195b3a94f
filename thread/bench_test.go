package thread

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

const benchChunks = 200_000

// chunkUpdates returns n message chunks of 40 bytes of text each, decoded
// the way the ACP reader hands them over.
func chunkUpdates(n int) []Update {
	text := strings.Repeat("lorem ip", 5) // 40 bytes
	content := json.RawMessage(`{"type":"text","text":"` + text + `"}`)
	us := make([]Update, n)
	for i := range us {
		us[i] = Update{SessionUpdate: KindAgentMessageChunk, Content: content}
	}
	return us
}

// mixUpdates returns n updates: 90% message chunks, 5% thought chunks, 5%
// tool calls (a tool_call and its completing tool_call_update).
func mixUpdates(n int) []Update {
	msg := json.RawMessage(`{"type":"text","text":"The quick brown fox jumps over\nthe dog."}`)
	thought := json.RawMessage(`{"type":"text","text":"Thinking about \"what\" to do next..."}`)
	title, kind, pending, completed := "Edit", "edit", StatusPending, StatusCompleted
	us := make([]Update, 0, n)
	for call := 0; len(us) < n; call++ {
		// Per 40 updates: 36 message chunks, 2 thoughts, 1 tool call pair.
		for block := range 3 {
			for range 12 {
				us = append(us, Update{SessionUpdate: KindAgentMessageChunk, Content: msg})
			}
			switch block {
			case 0, 2:
				us = append(us, Update{SessionUpdate: KindAgentThoughtChunk, Content: thought})
			case 1:
				id := fmt.Sprintf("call_%d", call)
				us = append(us,
					Update{SessionUpdate: KindToolCall, ToolCallID: id, Title: &title, Kind: &kind, Status: &pending,
						Locations: json.RawMessage(`[{"path":"/home/user/notes/a.md"}]`),
						RawInput:  json.RawMessage(`{"file_path":"/home/user/notes/a.md","old_string":"a","new_string":"b"}`)},
					Update{SessionUpdate: KindToolCallUpdate, ToolCallID: id, Status: &completed,
						Content:   json.RawMessage(`[{"type":"diff","path":"/home/user/notes/a.md","oldText":"# Hello\n","newText":"# Hello\nhi\n"}]`),
						RawOutput: json.RawMessage(`{"ok":true}`)})
			}
		}
	}
	return us[:n]
}

func benchApply(b *testing.B, us []Update) {
	b.ReportAllocs()
	var total time.Duration
	for b.Loop() {
		th := New()
		start := time.Now()
		for i := range us {
			if _, err := th.Apply(&us[i]); err != nil {
				b.Fatal(err)
			}
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N)/float64(len(us)), "ns/update")
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/200k")
}

// BenchmarkApplyChunks applies 200,000 message chunks of 40 bytes.
func BenchmarkApplyChunks(b *testing.B) { benchApply(b, chunkUpdates(benchChunks)) }

// BenchmarkApplyMix applies 200,000 updates of a realistic mix.
func BenchmarkApplyMix(b *testing.B) { benchApply(b, mixUpdates(benchChunks)) }

// The hot path must stay cheap: about one allocation per chunk (the Delta
// string) plus the amortized growth of the text buffer.
func TestChunkAllocs(t *testing.T) {
	us := chunkUpdates(1000)
	th := New()
	i := 0
	allocs := testing.AllocsPerRun(len(us)-1, func() {
		if _, err := th.Apply(&us[i]); err != nil {
			t.Fatal(err)
		}
		i++
	})
	if allocs > 1.5 {
		t.Errorf("%.2f allocations per chunk, want about 1", allocs)
	}
	if e, _ := th.Entry("e1"); len(e.Text) != 40*len(us) || th.Len() != 1 {
		t.Errorf("len(text) = %d, entries = %d", len(e.Text), th.Len())
	}
}

func TestMixShape(t *testing.T) {
	us := mixUpdates(benchChunks)
	counts := map[string]int{}
	for _, u := range us {
		counts[u.SessionUpdate]++
	}
	if counts[KindAgentMessageChunk] != 180_000 || counts[KindAgentThoughtChunk] != 10_000 ||
		counts[KindToolCall] != 5_000 || counts[KindToolCallUpdate] != 5_000 {
		t.Errorf("mix = %v", counts)
	}
	th := New()
	for i := range us {
		if _, err := th.Apply(&us[i]); err != nil {
			t.Fatal(err)
		}
	}
	if tc, ok := th.ToolCall("call_4999"); !ok || tc.Status != StatusCompleted || len(tc.Content) != 1 {
		t.Errorf("last call = %+v", tc)
	}
}
