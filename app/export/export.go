package export

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"mnote/internal/l10n"
	"mnote/thread"
)

// Formats.
const (
	FormatMarkdown = "md"
	FormatHTML     = "html"
	FormatJSONL    = "jsonl"
)

// Options choose what an export holds.
type Options struct {
	// Redact hides secrets and local paths (see Redactor) in every text of
	// the export, the header included.
	Redact bool
	// Redactor is used when Redact is set; nil means one for the session's
	// workspace and the user's home folder, with no literal secrets.
	Redactor *Redactor
	// RedactEmails hides e-mail addresses as well, when Redact is set (it
	// decides over the Redactor's own setting). nil is the default: off in
	// exports (the file stays with the user), on in shares (published).
	RedactEmails *bool
	// IncludeThoughts puts the agent's thoughts in; otherwise only their
	// length is shown (and shares leave them out).
	IncludeThoughts bool
	// IncludeToolIO puts tool calls' raw input and output, their content
	// (output text, diff bodies) and terminals in; otherwise a tool call
	// shows its kind, title, status, locations and the files it edits.
	IncludeToolIO bool
	// StrictBreaks joins the lines of a paragraph split by one line break
	// (nothing between two CJK characters, else a space) in the HTML
	// export and the share page; by default each line break shows as one
	// (inertmd.Options).
	StrictBreaks bool
	// Locale is the language of the Markdown and HTML exports' own words
	// (labels, dates): "en" or "zh-CN" (any Chinese tag); "" is English.
	// Shares are always worded in English: the share page words its labels
	// in the viewer's language itself.
	Locale string
	// Images puts the images of the user's messages in (images.go): the
	// HTML export embeds them as data: URIs, read with Image; the
	// Markdown export names their files. Off: they are left out.
	Images bool
	Image  ImageLoader
}

// Session is what an export says about a session besides its thread
// (the CLI fills it from store.SessionInfo).
type Session struct {
	ID        string
	Title     string
	Runtime   string
	Workspace string
	CreatedMs int64
	UpdatedMs int64
	Turns     int
}

// doc is a thread ready to render: filtered by the options and redacted.
type doc struct {
	sess Session
	snap thread.Snapshot
	o    Options
	l    l10n.Locale
	// thoughtLen is the length in characters of each left-out thought,
	// by entry id.
	thoughtLen map[string]int
	// images are the user messages' images by entry id, with Images.
	images map[string][]image
}

// prepare applies the options to a copy of the thread: thoughts and tool
// I/O left out unless asked for, then everything redacted.
func prepare(sess Session, snap thread.Snapshot, o Options) (*doc, error) {
	d := &doc{sess: sess, o: o, l: l10n.Parse(o.Locale), thoughtLen: map[string]int{}}
	entries := make([]thread.Entry, len(snap.Entries))
	copy(entries, snap.Entries)
	for i := range entries {
		en := &entries[i]
		switch en.Kind {
		case thread.EntryThought:
			if !o.IncludeThoughts {
				d.thoughtLen[en.ID] = utf8.RuneCountInString(en.Text)
				en.Text, en.Blocks = "", nil
			}
		case thread.EntryToolCall:
			if en.ToolCall != nil && !o.IncludeToolIO {
				tc := *en.ToolCall
				tc.RawInput, tc.RawOutput = nil, nil
				var kept []thread.ToolCallContent
				for _, c := range tc.Content {
					if c.Type == "diff" {
						kept = append(kept, thread.ToolCallContent{Type: "diff", Path: c.Path})
					}
				}
				tc.Content = kept
				en.ToolCall = &tc
			}
		}
	}
	snap.Entries = entries
	if o.Images {
		d.images = collectImages(entries)
	}
	if o.Redact {
		r := o.Redactor
		if r == nil {
			r = NewRedactor(DefaultRedactConfig(sess.Workspace))
		}
		r = r.WithEmails(o.RedactEmails != nil && *o.RedactEmails)
		var err error
		if snap, err = r.Snapshot(snap); err != nil {
			return nil, err
		}
		d.sess.Title = r.String(sess.Title)
		d.sess.Runtime = r.String(sess.Runtime)
		d.sess.Workspace = ""
	}
	d.snap = snap
	return d, nil
}

// title is the document title.
func (d *doc) title() string {
	if t := strings.TrimSpace(d.sess.Title); t != "" {
		return t
	}
	if t := strings.TrimSpace(d.snap.Title); t != "" {
		return t
	}
	return d.l.T("export.session_title", d.sess.ID)
}

// fmtTime is a time for people: local, to the minute, in the export's
// language.
func (d *doc) fmtTime(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return d.l.Date(time.UnixMilli(ms).Local())
}

// contentText returns the text of a tool call's "content" item (a content
// block), or its raw JSON for other block types.
func contentText(raw json.RawMessage) string {
	var b thread.ContentBlock
	if json.Unmarshal(raw, &b) == nil {
		switch {
		case b.Type == "text":
			return b.Text
		case b.Type == "resource_link" || b.URI != "":
			return fmt.Sprintf("[%s %s]", b.Type, b.URI)
		case b.Type != "":
			return fmt.Sprintf("[%s]", b.Type)
		}
	}
	return string(raw)
}

// rawJSON pretty-prints raw JSON for people; invalid JSON is shown as is.
func rawJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// diffLines is a line diff of old → new: the common first and last lines
// as context (at most 3 each side), the rest as removed and added.
func diffLines(oldText *string, newText string) []string {
	var old []string
	if oldText != nil && *oldText != "" {
		old = strings.Split(strings.TrimSuffix(*oldText, "\n"), "\n")
	}
	cur := strings.Split(strings.TrimSuffix(newText, "\n"), "\n")
	if newText == "" {
		cur = nil
	}
	pre := 0
	for pre < len(old) && pre < len(cur) && old[pre] == cur[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(cur)-pre && old[len(old)-1-suf] == cur[len(cur)-1-suf] {
		suf++
	}
	var out []string
	for _, l := range old[max(0, pre-3):pre] {
		out = append(out, "  "+l)
	}
	for _, l := range old[pre : len(old)-suf] {
		out = append(out, "- "+l)
	}
	for _, l := range cur[pre : len(cur)-suf] {
		out = append(out, "+ "+l)
	}
	for _, l := range cur[len(cur)-suf : min(len(cur), len(cur)-suf+3)] {
		out = append(out, "  "+l)
	}
	return out
}

// location is "path" or "path:line".
func location(l thread.Location) string {
	if l.Line != nil {
		return fmt.Sprintf("%s:%d", l.Path, *l.Line)
	}
	return l.Path
}

// planMark is a plan entry's checkbox.
func planMark(status string) string {
	switch status {
	case "completed":
		return "x"
	case "in_progress":
		return "~"
	}
	return " "
}

// runtimeNote says that the session moved to another agent.
func (d *doc) runtimeNote(rc *thread.RuntimeChange) string {
	if rc.Previous != "" && rc.Previous != rc.Runtime {
		return d.l.T("export.runtime_changed", rc.Previous, rc.Runtime)
	}
	return d.l.T("export.runtime", rc.Runtime)
}
