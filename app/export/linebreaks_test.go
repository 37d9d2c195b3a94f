package export

import (
	"bytes"
	"strings"
	"testing"

	"mnote/thread"
)

// A two-line Chinese paragraph: two lines in the HTML export by default,
// one line with nothing between the characters with StrictBreaks; a share
// carries the setting for the page to render with.
func TestHTMLLineBreaks(t *testing.T) {
	snap := thread.Snapshot{Entries: []thread.Entry{{ID: "a", Kind: thread.EntryAssistantMessage, Turn: 1, Text: "命中率。\n第一次\n\nhit rate\nfirst"}}}
	var b bytes.Buffer
	if err := HTML(&b, Session{ID: "s"}, snap, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "命中率。<br>\n第一次") || !strings.Contains(b.String(), "hit rate<br>\nfirst") {
		t.Errorf("default export: no line breaks:\n%s", b.String())
	}
	b.Reset()
	if err := HTML(&b, Session{ID: "s"}, snap, Options{StrictBreaks: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "命中率。第一次") || !strings.Contains(b.String(), "hit rate\nfirst") || strings.Contains(b.String(), "<br>") {
		t.Errorf("strict export:\n%s", b.String())
	}
	s, err := Share(Session{ID: "s"}, snap, Options{StrictBreaks: true, Redactor: NewRedactor(RedactConfig{})})
	if err != nil || !s.StrictBreaks {
		t.Errorf("share: %v, strictBreaks %v", err, s.StrictBreaks)
	}
}
