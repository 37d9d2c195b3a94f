package projection

import (
	"strings"
	"testing"

	"mnote/thread"
)

// A tool summary names the files a call touched (relative to the folder,
// else by base name) and counts a diff's lines; none of the call's input,
// output or diff text is in it, and it is one line whatever a file's name
// holds.
func TestSummaryNamesFilesNotContents(t *testing.T) {
	entries := actorThread(t).Snapshot().Entries
	var tc *thread.ToolCall
	for _, e := range entries {
		if e.ToolCall != nil {
			tc = e.ToolCall
		}
	}
	got := Summary("/home/lilei/私人笔记")(tc)
	if got != "CANARY-path" { // the update replaced the diff with the output
		t.Errorf("summary = %q", got)
	}
	for _, c := range []string{inputCanary, outputCanary, diffCanary, noteCanary, "/home/lilei"} {
		if strings.Contains(got, c) {
			t.Errorf("the summary %q holds %q", got, c)
		}
	}
	if got := Summary("/elsewhere")(tc); got != "CANARY-path" {
		t.Errorf("outside the folder: %q, want the base name", got)
	}

	old := "a\nb\nc\nd\n"
	many := &thread.ToolCall{Kind: "edit", Locations: []thread.Location{
		{Path: "/ws/notes/a.md"}, {Path: "/ws/../etc/passwd"}, {Path: "/ws/x\ny.md"}, {Path: ""},
		{Path: "/ws/c.md"}, {Path: "/ws/d.md"}, {Path: "/ws/e.md"}, {Path: "/ws/f.md"},
	}, Content: []thread.ToolCallContent{
		{Type: "diff", Path: "/ws/notes/a.md", OldText: &old, NewText: "a\nB\nB2\nd\n"},
		{Type: "content", Content: []byte(`{"type":"text","text":"` + outputCanary + `"}`)},
	}}
	got = Summary("/ws")(many)
	if want := "notes/a.md +2 −2, passwd, x y.md, c.md, d.md, … +2"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	if got := Summary("/ws")(&thread.ToolCall{Kind: "execute", RawInput: []byte(`{"command":"` + inputCanary + `"}`)}); got != "" {
		t.Errorf("a call that touched no file: %q", got)
	}
	if got := Summary("/ws")(nil); got != "" {
		t.Errorf("nil: %q", got)
	}
}
