package export

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"mnote/thread"
)

func ptr[T any](v T) *T { return &v }

// hostile is Markdown and text that would load or run something if it were
// rendered as written.
var hostile = []string{
	`<script>fetch("https://evil.example/x")</script>`,
	`<img src="https://evil.example/pixel.png" onerror="alert(1)">`,
	`![tracker](https://evil.example/t.gif "t") and ![local](data:image/png;base64,AAAA)`,
	`[click](https://evil.example/phish) [proto](//evil.example/x) [js](javascript:alert(1))`,
	`<https://evil.example/auto> and www.evil.example/linkify and https://evil.example/bare`,
	"<iframe src=\"https://evil.example/\"></iframe>\n\n<div style=\"background:url(https://evil.example/bg)\">x</div>",
	`<link rel="stylesheet" href="https://evil.example/s.css"><style>@import url(https://evil.example/i.css);</style>`,
	`<meta http-equiv="refresh" content="0;url=https://evil.example/">`,
	`<svg><image href="https://evil.example/s.svg"/></svg> <object data="https://evil.example/o"></object>`,
	"```html\n<script src=\"https://evil.example/c.js\"></script>\n```",
	"| a | b |\n|---|---|\n| <b>x</b> | [l](https://evil.example) |",
}

// hostileSnapshot puts the hostile texts in every kind of entry and field.
func hostileSnapshot() thread.Snapshot {
	all := strings.Join(hostile, "\n\n")
	old := "old <script>x</script>"
	return thread.Snapshot{Title: all, Entries: []thread.Entry{
		{ID: "e1", Kind: thread.EntryUserMessage, Turn: 1, Text: all},
		{ID: "e2", Kind: thread.EntryThought, Turn: 1, Text: all},
		{ID: "e3", Kind: thread.EntryAssistantMessage, Turn: 1, Text: all},
		{ID: "e4", Kind: thread.EntryToolCall, Turn: 1, ToolCall: &thread.ToolCall{
			ToolCallID: "t1", Title: all, Kind: "edit<b>", Status: "completed\"><script>",
			Locations: []thread.Location{{Path: hostile[1], Line: ptr(3)}},
			Content: []thread.ToolCallContent{
				{Type: "diff", Path: hostile[0], OldText: &old, NewText: all},
				{Type: "content", Content: json.RawMessage(`{"type":"text","text":` + string(must(json.Marshal(all))) + `}`)},
				{Type: "terminal", TerminalID: hostile[2]},
			},
			RawInput:  json.RawMessage(`{"html":` + string(must(json.Marshal(all))) + `}`),
			RawOutput: json.RawMessage(`"` + strings.ReplaceAll(hostile[0], `"`, `\"`) + `"`),
		}},
		{ID: "e5", Kind: thread.EntryPlan, Turn: 1, Plan: []thread.PlanEntry{{Content: all, Status: "completed"}, {Content: hostile[3], Status: "pending"}}},
	}}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// networkAttr are the attributes through which HTML loads or links to
// something.
var networkAttr = map[string]bool{"src": true, "href": true, "srcset": true, "action": true, "formaction": true,
	"poster": true, "data": true, "background": true, "xlink:href": true, "codebase": true, "cite": true,
	"longdesc": true, "manifest": true, "ping": true, "lowsrc": true, "dynsrc": true, "archive": true, "icon": true}

var networkRef = regexp.MustCompile(`(?i)url\s*\(|@import|https?:|^\s*//`)

// checkInert parses an exported page and fails on anything that could
// make a request or run code: a URL-carrying attribute, an element that
// loads or runs, an event handler, url()/@import in CSS, a meta refresh.
func checkInert(t *testing.T, page []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("the page does not parse: %v", err)
	}
	var cspSeen bool
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "iframe", "frame", "object", "embed", "link", "img", "image", "video", "audio", "source",
				"track", "base", "form", "input", "svg", "math", "picture", "portal", "applet":
				if !(n.Data == "input" && attr(n, "type") == "checkbox" && hasAttr(n, "disabled")) {
					t.Errorf("element <%s> in the page", n.Data)
				}
			case "meta":
				if eq := attr(n, "http-equiv"); eq != "" {
					if !strings.EqualFold(eq, "Content-Security-Policy") {
						t.Errorf("meta http-equiv=%q", eq)
					} else {
						cspSeen = attr(n, "content") == contentSecurityPolicy
					}
				}
			case "style":
				if n.FirstChild != nil && networkRef.MatchString(n.FirstChild.Data) {
					t.Errorf("the style sheet references something: %q", networkRef.FindString(n.FirstChild.Data))
				}
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				switch {
				case networkAttr[key]:
					t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
				case strings.HasPrefix(key, "on"):
					t.Errorf("<%s %s=%q>: an event handler", n.Data, a.Key, a.Val)
				case key == "style" && networkRef.MatchString(a.Val):
					t.Errorf("<%s style=%q>", n.Data, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if !cspSeen {
		t.Error("no Content-Security-Policy meta element")
	}
	return doc
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return true
		}
	}
	return false
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// The HTML page references no network resource and runs nothing, whatever
// the session holds; the hostile text is still there, as text.
func TestHTMLIsInert(t *testing.T) {
	for _, o := range []Options{{}, {IncludeThoughts: true, IncludeToolIO: true}, {Redact: true, IncludeThoughts: true, IncludeToolIO: true}} {
		var b bytes.Buffer
		sess := Session{ID: "01jd", Title: hostile[0], Runtime: "claude<script>", Workspace: "/w", CreatedMs: 1700000000000, Turns: 1}
		if err := HTML(&b, sess, hostileSnapshot(), o); err != nil {
			t.Fatal(err)
		}
		doc := checkInert(t, b.Bytes())
		text := textOf(doc)
		for _, want := range []string{`<script>fetch("https://evil.example/x")</script>`, "https://evil.example/phish", "[image: tracker]", "javascript:alert(1)"} {
			if !strings.Contains(text, want) {
				t.Errorf("options %+v: the text %q is not shown", o, want)
			}
		}
		if o.IncludeToolIO && !strings.Contains(text, "+ "+hostile[0]) {
			t.Errorf("the diff is not shown")
		}
		if !o.IncludeThoughts && strings.Count(text, "evil.example/pixel.png") != 5 {
			// title, user, assistant, tool title, plan: not the thought.
			t.Errorf("hostile text shown %d times", strings.Count(text, "evil.example/pixel.png"))
		}
	}
}

// The page is one file with light and dark colours and no scripts.
func TestHTMLSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, Session{ID: "s"}, thread.Snapshot{Entries: []thread.Entry{{Kind: thread.EntryAssistantMessage, Text: "# Hi\n\n*there* `code`\n\n- [x] done"}}}, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<!DOCTYPE html>", "prefers-color-scheme: dark", "<h1>Hi</h1>", "<em>there</em>", "<code>code</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	checkInert(t, b.Bytes())
}

func snapshotForOptions() thread.Snapshot {
	old := "a\nb\n"
	return thread.Snapshot{Entries: []thread.Entry{
		{ID: "e1", Kind: thread.EntryUserMessage, Turn: 1, Text: "fix the note"},
		{ID: "e2", Kind: thread.EntryThought, Turn: 1, Text: "SECRET-THOUGHT about it"},
		{ID: "e3", Kind: thread.EntryToolCall, Turn: 1, ToolCall: &thread.ToolCall{ToolCallID: "t1", Title: "Edit note.md", Kind: "edit", Status: "completed",
			Locations: []thread.Location{{Path: "/ws/note.md", Line: ptr(2)}},
			Content: []thread.ToolCallContent{{Type: "diff", Path: "/ws/note.md", OldText: &old, NewText: "a\nTOOL-DIFF-LINE\n"},
				{Type: "content", Content: json.RawMessage(`{"type":"text","text":"TOOL-OUTPUT-TEXT"}`)}},
			RawInput: json.RawMessage(`{"cmd":"TOOL-RAW-INPUT"}`), RawOutput: json.RawMessage(`{"out":"TOOL-RAW-OUTPUT"}`)}},
		{ID: "e4", Kind: thread.EntryAssistantMessage, Turn: 1, Text: "done"},
		{ID: "e5", Kind: thread.EntryPlan, Turn: 1, Plan: []thread.PlanEntry{{Content: "edit", Status: "completed"}, {Content: "check", Status: "pending"}}},
	}}
}

// Thoughts and tool input/output are left out of every format unless
// asked for; the tool call itself (kind, title, status, location, edited
// file) is always there.
func TestOptionsLeaveOutThoughtsAndToolIO(t *testing.T) {
	private := []string{"SECRET-THOUGHT", "TOOL-DIFF-LINE", "TOOL-OUTPUT-TEXT", "TOOL-RAW-INPUT", "TOOL-RAW-OUTPUT"}
	sess := Session{ID: "s1", Workspace: "/ws"}
	render := map[string]func(o Options) string{
		"md": func(o Options) string {
			var b bytes.Buffer
			must(0, Markdown(&b, sess, snapshotForOptions(), o))
			return b.String()
		},
		"html": func(o Options) string {
			var b bytes.Buffer
			must(0, HTML(&b, sess, snapshotForOptions(), o))
			return b.String()
		},
		"share": func(o Options) string {
			s := must(Share(sess, snapshotForOptions(), o))
			return string(must(json.Marshal(s)))
		},
	}
	for name, r := range render {
		out := r(Options{Redact: true})
		for _, p := range private {
			if strings.Contains(out, p) {
				t.Errorf("%s by default holds %s", name, p)
			}
		}
		for _, want := range []string{"Edit note.md", "note.md:2", "fix the note", "done", "check"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Contains(out, "/ws/") {
			t.Errorf("%s holds the workspace path", name)
		}
		out = r(Options{Redact: true, IncludeThoughts: true, IncludeToolIO: true})
		for _, p := range private {
			if !strings.Contains(out, p) {
				t.Errorf("%s with everything lacks %s", name, p)
			}
		}
	}
	md := render["md"](Options{})
	if !strings.Contains(md, "_(thought for 23 characters)_") || !strings.Contains(md, "- [x] edit\n- [ ] check") {
		t.Errorf("md:\n%s", md)
	}
}

func TestShareSnapshot(t *testing.T) {
	sess := Session{ID: "s1", Title: "Fix /home/jane/notes/a.md", Runtime: "claude-code", Workspace: "/home/jane/notes", CreatedMs: 1700000000000}
	s, err := Share(sess, snapshotForOptions(), Options{Redactor: NewRedactor(RedactConfig{Workspace: "/home/jane/notes", Home: "/home/jane"})})
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "Fix a.md" || s.Runtime != "claude-code" || s.CreatedAt.UnixMilli() != 1700000000000 {
		t.Errorf("share header %+v", s)
	}
	var kinds []string
	for _, e := range s.Entries {
		kinds = append(kinds, e.Kind)
	}
	if strings.Join(kinds, ",") != "user,tool,assistant,plan" {
		t.Errorf("kinds %v", kinds)
	}
	tool := s.Entries[1]
	if tool.Title != "Edit note.md" || tool.ToolKind != "edit" || tool.Status != "completed" || !strings.Contains(tool.Text, "edits `/ws/note.md`") {
		t.Errorf("tool entry %+v", tool)
	}
	if s.Entries[3].Text != "- [x] edit\n- [ ] check\n" {
		t.Errorf("plan %q", s.Entries[3].Text)
	}
}

// A redacted JSONL export has the transcript's lines, each valid JSON with
// its keys in order, secrets and paths gone; a torn last line is redacted
// as text.
func TestJSONLRedacted(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r := NewRedactor(RedactConfig{Workspace: "/home/jane/notes", Home: "/home/jane", Secrets: []string{"sync-token-Qx81zz"}})
	var out bytes.Buffer
	if err := JSONL(&out, bytes.NewReader(in), r); err != nil {
		t.Fatal(err)
	}
	inLines := strings.Split(string(in), "\n")
	outLines := strings.Split(out.String(), "\n")
	if len(inLines) != len(outLines) {
		t.Fatalf("%d lines in, %d out", len(inLines), len(outLines))
	}
	for i, l := range outLines[:len(outLines)-1] {
		if !json.Valid([]byte(l)) || !strings.HasPrefix(l, `{"v":1,"seq":`) {
			t.Errorf("line %d: %s", i+1, l)
		}
	}
	assertClean(t, "jsonl", out.String(), "/home/jane", "sync-token-Qx81zz", "sk-ant-api03-", "hunter2", "ghp_")
	for _, want := range []string{`"cwd":"."`, `"path":"ideas/plan.md"`, `"value":"[redacted]"`, `~/.bashrc`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("jsonl lacks %s", want)
		}
	}
	// Without a redactor the transcript is copied byte for byte.
	out.Reset()
	if err := JSONL(&out, bytes.NewReader(in), nil); err != nil || !bytes.Equal(out.Bytes(), in) {
		t.Fatalf("raw copy differs: %v", err)
	}
}

// BenchmarkJSONLRedact measures a redacted JSONL export of a transcript of
// typical records (streamed chunks, tool calls).
func BenchmarkJSONLRedact(b *testing.B) {
	in, err := os.ReadFile(filepath.Join("testdata", "transcript.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(in, []byte("\n"))
	var big bytes.Buffer
	for big.Len() < 8<<20 {
		for _, l := range lines[:len(lines)-1] {
			big.Write(l)
		}
	}
	r := NewRedactor(RedactConfig{Workspace: "/home/jane/notes", Home: "/home/jane", Secrets: []string{"sync-token-Qx81zz"}})
	b.SetBytes(int64(big.Len()))
	for b.Loop() {
		if err := JSONL(io.Discard, bytes.NewReader(big.Bytes()), r); err != nil {
			b.Fatal(err)
		}
	}
}
