package export

import (
	"fmt"
	"strings"
	"time"

	"mnote/controlplane/api"
	"mnote/thread"
)

// Share turns a session into the snapshot a share link shows (the control
// plane's api.ShareSnapshot). A share is always redacted: o.Redact is
// forced on (with o.Redactor, or the default one for the session's
// workspace), and e-mail addresses are hidden too unless o.RedactEmails
// is set to false. Thoughts are left out unless o.IncludeThoughts; tool
// calls carry their title, kind, status and, as Markdown text, their
// locations and edited files (plus output and diffs with o.IncludeToolIO);
// plans become Markdown checklists. The texts are worded in English
// whatever o.Locale says.
func Share(sess Session, snap thread.Snapshot, o Options) (api.ShareSnapshot, error) {
	o.Redact = true
	o.Locale = "" // the share page words its labels in the viewer's language

	if o.RedactEmails == nil {
		on := true
		o.RedactEmails = &on
	}
	d, err := prepare(sess, snap, o)
	if err != nil {
		return api.ShareSnapshot{}, err
	}
	out := api.ShareSnapshot{
		Title:   d.title(),
		Runtime: d.sess.Runtime,
		Entries: []api.ShareEntry{},
		// The page renders the texts itself: it joins lines as the sharer does.
		StrictBreaks: o.StrictBreaks,
	}
	if d.sess.CreatedMs > 0 {
		out.CreatedAt = time.UnixMilli(d.sess.CreatedMs).UTC()
	}
	for _, en := range d.snap.Entries {
		switch en.Kind {
		case thread.EntryUserMessage:
			out.Entries = append(out.Entries, api.ShareEntry{Kind: api.EntryUser, Text: en.Text})
		case thread.EntryAssistantMessage:
			out.Entries = append(out.Entries, api.ShareEntry{Kind: api.EntryAssistant, Text: en.Text})
		case thread.EntryThought:
			if o.IncludeThoughts {
				out.Entries = append(out.Entries, api.ShareEntry{Kind: api.EntryThought, Text: en.Text})
			}
		case thread.EntryToolCall:
			if tc := en.ToolCall; tc != nil {
				out.Entries = append(out.Entries, api.ShareEntry{Kind: api.EntryTool, Title: tc.Title,
					ToolKind: tc.Kind, Status: tc.Status, Text: d.toolText(tc)})
			}
		case thread.EntryPlan:
			var b strings.Builder
			for _, p := range en.Plan {
				fmt.Fprintf(&b, "- [%s] %s\n", planMark(p.Status), oneLine(p.Content))
			}
			out.Entries = append(out.Entries, api.ShareEntry{Kind: api.EntryPlan, Text: b.String()})
		case thread.EntryQuestion:
			if q := en.Question; q != nil {
				var b strings.Builder
				for _, r := range d.answerRows(q) {
					fmt.Fprintf(&b, "- %s\n", d.l.T("export.md_field", oneLine(r.label), oneLine(r.value)))
				}
				out.Entries = append(out.Entries, api.ShareEntry{Kind: api.EntryQuestion, Title: q.Message, Status: q.Action, Text: b.String()})
			}
		}
	}
	return out, nil
}

// toolText is a tool call's details as Markdown: what markdownTool writes
// under the call's first line.
func (d *doc) toolText(tc *thread.ToolCall) string {
	var b strings.Builder
	d.markdownTool(&b, tc)
	text := b.String()
	// Drop the first line (kind, title, status are fields of their own).
	_, text, _ = strings.Cut(text, "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
