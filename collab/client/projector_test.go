package client_test

import (
	"encoding/json"
	"strings"
	"testing"

	"mnote/collab/client"
	"mnote/collab/projection"
	"mnote/thread"
)

// The projector gives an answer in pieces that end at a space, a line
// break or Chinese punctuation, each cleaned once: a local path the agent
// streams in two chunks is still hidden from the members, the text reaches
// them whole and in order, and what waits goes at Flush.
func TestProjectorCleansPathsAcrossChunks(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	run, err := w.ada.StartRun(ctx, w.sessionID, projection.Prompt(1, "改一下", nil), client.RunEvents{})
	if err != nil {
		t.Fatal(err)
	}
	cleaned := 0
	p := client.NewProjector(run, projection.Options{Clean: func(s string) string {
		cleaned += len(s)
		s = strings.ReplaceAll(s, "/home/ada/My Notes/", "")
		return strings.ReplaceAll(s, "/home/ada/notes/", "")
	}})
	chunks := []string{"已改好 /home/a", "da/notes/缓存设", "计.md，命中率", " 82%\n另见 /home/ada/My ", "Notes/旧.md 一节\n第二段", "没有结尾"}
	for _, c := range chunks {
		b, _ := json.Marshal(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": c}})
		var u thread.Update
		if err := json.Unmarshal(b, &u); err != nil {
			t.Fatal(err)
		}
		p.Update(&u)
	}
	p.Flush()
	if err := run.Finish(ctx, client.RunEnded); err != nil {
		t.Fatal(err)
	}
	raw := strings.Join(chunks, "")
	if cleaned != len(raw) {
		t.Errorf("cleaned %d bytes of a %d-byte answer: each piece once", cleaned, len(raw))
	}
	var answer strings.Builder
	for _, o := range fetch(t, w.bob, w.sessionID, 0) {
		if o.Kind == projection.KindAnswer {
			answer.WriteString(o.Entry.Text)
		}
	}
	if got, want := answer.String(), "已改好 缓存设计.md，命中率 82%\n另见 旧.md 一节\n第二段没有结尾"; got != want {
		t.Fatalf("bob reads %q, want %q", got, want)
	}
}

// What members read keeps the order the agent gave: text after a tool
// call stays after it, a tool call's later status takes its first place,
// and the piece of an answer that waited for its end goes before the
// update that came after it (an answer is never split around a tool call
// it was not split around).
func TestProjectorKeepsOrder(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	run, err := w.ada.StartRun(ctx, w.sessionID, projection.Prompt(1, "加一行", nil), client.RunEvents{})
	if err != nil {
		t.Fatal(err)
	}
	p := client.NewProjector(run, projection.Options{Thoughts: true})
	updates := []map[string]any{
		{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": "先读 "}},
		{"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "读取 你好.md", "kind": "read", "status": "pending"},
		{"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"},
		{"sessionUpdate": "tool_call", "toolCallId": "t2", "title": "编辑 你好.md", "kind": "edit", "status": "pending"},
		{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": "Done: I added a line to notes/"}},
		{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": "hello.md."}},
		{"sessionUpdate": "tool_call_update", "toolCallId": "t2", "status": "completed"},
		{"sessionUpdate": "agent_message_chunk", "content": map[string]string{"type": "text", "text": "完成。"}},
	}
	for _, m := range updates {
		b, _ := json.Marshal(m)
		var u thread.Update
		if err := json.Unmarshal(b, &u); err != nil {
			t.Fatal(err)
		}
		p.Update(&u)
	}
	p.Flush()
	// A late update (an agent's notification after the turn's end) is not
	// shared: nothing follows the run's status.
	late, _ := json.Marshal(map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]string{"type": "text", "text": "LATE。\n"}})
	var lu thread.Update
	if err := json.Unmarshal(late, &lu); err != nil {
		t.Fatal(err)
	}
	p.Update(&lu)
	if err := run.Finish(ctx, client.RunEnded); err != nil {
		t.Fatal(err)
	}
	for _, o := range fetch(t, w.bob, w.sessionID, 0) {
		if strings.Contains(o.Entry.Text, "LATE") {
			t.Fatalf("an update after Flush was shared: %+v", o.Entry)
		}
	}
	// The log as bob reads it, a tool call's states reduced to its first
	// place with its last status and consecutive answers joined, as the
	// window does (however the appends were batched).
	var got []string
	at := map[string]int{}
	for _, o := range fetch(t, w.bob, w.sessionID, 0) {
		switch o.Kind {
		case projection.KindAnswer:
			if n := len(got); n > 0 && strings.HasPrefix(got[n-1], "answer:") {
				got[n-1] += o.Entry.Text
			} else {
				got = append(got, "answer:"+o.Entry.Text)
			}
		case projection.KindTool:
			id := o.Entry.Tool.ToolCallID
			if i, ok := at[id]; ok {
				got[i] = "tool:" + id + ":" + o.Entry.Tool.Status
				continue
			}
			at[id] = len(got)
			got = append(got, "tool:"+id+":"+o.Entry.Tool.Status)
		}
	}
	want := []string{"answer:先读 ", "tool:t1:completed", "tool:t2:completed", "answer:Done: I added a line to notes/hello.md.完成。"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("bob reads\n %q\nwant\n %q", got, want)
	}
}
