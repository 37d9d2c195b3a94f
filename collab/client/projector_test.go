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
		return strings.ReplaceAll(s, "/home/ada/notes/", "")
	}})
	chunks := []string{"已改好 /home/a", "da/notes/缓存设", "计.md，命中率", " 82%\n第二段", "没有结尾"}
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
	if got, want := answer.String(), "已改好 缓存设计.md，命中率 82%\n第二段没有结尾"; got != want {
		t.Fatalf("bob reads %q, want %q", got, want)
	}
}
