package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"mnote/app/chat"
	"mnote/thread"
)

// A chunk past hugeText is written in escaped pieces, not built as one
// line: the output must read back exactly, whatever the pieces cut.
func TestJSONChunkLines(t *testing.T) {
	// Multi-byte characters that straddle the 64 KiB piece boundaries,
	// quotes, backslashes, control characters and an invalid byte.
	var b strings.Builder
	for b.Len() < 3*hugeText {
		b.WriteString("€ \"quoted\" \\ tab\t nl\n ctl\x01 é 日本 ")
	}
	huge := b.String()
	invalid := strings.Repeat("x", hugeText) + "\xff" + strings.Repeat("y", 1000)

	var out bytes.Buffer
	lw := newLineWriter(&out)
	o := &jsonObserver{out: lw}
	send := func(kind, delta string) {
		o.Event(&chat.Event{Type: chat.EvUpdate, Update: &thread.Update{SessionUpdate: kind}, Change: thread.Change{Delta: delta}})
	}
	send(thread.KindAgentMessageChunk, "small")
	send(thread.KindAgentMessageChunk, huge)
	send(thread.KindAgentThoughtChunk, huge[:hugeText+1])
	send(thread.KindUserMessageChunk, invalid)
	send(thread.KindAgentMessageChunk, "after")
	if err := lw.Flush(); err != nil {
		t.Fatal(err)
	}

	want := []struct{ typ, text string }{
		{"message_chunk", "small"},
		{"message_chunk", huge},
		{"thought_chunk", huge[:hugeText+1]},
		{"user_chunk", strings.ToValidUTF8(invalid, "\ufffd")},
		{"message_chunk", "after"},
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 8<<20)
	i := 0
	for ; sc.Scan(); i++ {
		var got struct{ Type, Text string }
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d is not JSON: %v", i+1, err)
		}
		if i >= len(want) || got.Type != want[i].typ || got.Text != want[i].text {
			t.Fatalf("line %d: %s of %d bytes, want %+v", i+1, got.Type, len(got.Text), want[min(i, len(want)-1)].typ)
		}
	}
	if i != len(want) {
		t.Fatalf("%d lines, want %d", i, len(want))
	}
	if cap(o.j.b) > 256<<10 {
		t.Errorf("the line buffer kept %d bytes after a huge chunk", cap(o.j.b))
	}
}
