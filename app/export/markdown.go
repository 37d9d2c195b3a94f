package export

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"mnote/thread"
)

// Markdown writes a session as one Markdown document: a header (title,
// session id, agent, created, turns) and the thread.
func Markdown(w io.Writer, sess Session, snap thread.Snapshot, o Options) error {
	d, err := prepare(sess, snap, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n", oneLine(d.title()))
	field := func(key, value string) {
		fmt.Fprintf(bw, "- %s\n", d.l.T("export.md_field", d.l.T(key), value))
	}
	field("export.md_session", code(d.sess.ID))
	field("export.md_agent", orDash(d.sess.Runtime))
	field("export.md_created", d.fmtTime(d.sess.CreatedMs))
	field("export.md_turns", strconv.Itoa(d.sess.Turns))
	if d.sess.Workspace != "" {
		field("export.md_workspace", code(d.sess.Workspace))
	}
	fmt.Fprintln(bw)
	d.markdownThread(bw)
	return bw.Flush()
}

// WriteThread writes a thread as Markdown, without a header (`mnote show`).
func WriteThread(w io.Writer, snap thread.Snapshot, o Options) error {
	d, err := prepare(Session{}, snap, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	d.markdownThread(bw)
	return bw.Flush()
}

func (d *doc) markdownThread(w io.Writer) {
	for _, en := range d.snap.Entries {
		switch en.Kind {
		case thread.EntryUserMessage:
			fmt.Fprintf(w, "## %s\n\n%s\n\n", d.l.T("export.md_you_turn", en.Turn), strings.TrimSpace(en.Text))
			d.markdownImages(w, en.ID)
		case thread.EntryAssistantMessage:
			fmt.Fprintf(w, "### %s\n\n%s\n\n", d.l.T("export.agent"), strings.TrimSpace(en.Text))
		case thread.EntryThought:
			if n, left := d.thoughtLen[en.ID]; left {
				fmt.Fprintf(w, "_(%s)_\n\n", d.l.N("export.md_thought_left", n))
			} else {
				fmt.Fprintf(w, "<details><summary>%s</summary>\n\n%s\n\n</details>\n\n", d.l.T("export.thinking"), strings.TrimSpace(en.Text))
			}
		case thread.EntryToolCall:
			if en.ToolCall != nil {
				d.markdownTool(w, en.ToolCall)
			}
		case thread.EntryRuntime:
			if rc := en.Runtime; rc != nil {
				fmt.Fprintf(w, "_(%s)_\n\n", d.runtimeNote(rc))
			}
		case thread.EntryPlan:
			fmt.Fprintf(w, "**%s**\n\n", d.l.T("entry.plan"))
			for _, p := range en.Plan {
				fmt.Fprintf(w, "- [%s] %s\n", planMark(p.Status), oneLine(p.Content))
			}
			fmt.Fprintln(w)
		case thread.EntryQuestion:
			if en.Question != nil {
				d.markdownQuestion(w, en.Question)
			}
		}
	}
}

func (d *doc) markdownTool(w io.Writer, tc *thread.ToolCall) {
	fmt.Fprintf(w, "- **%s** %s — %s\n", d.l.ToolKind(tc.Kind), code(tc.Title), d.l.ToolStatus(tc.Status))
	for _, l := range tc.Locations {
		fmt.Fprintf(w, "  - %s\n", d.l.T("tool.at", code(location(l))))
	}
	for _, c := range tc.Content {
		switch c.Type {
		case "diff":
			fmt.Fprintf(w, "  - %s\n", d.l.T("tool.edits", code(c.Path)))
			if d.o.IncludeToolIO {
				fenced(w, "diff", strings.Join(diffLines(c.OldText, c.NewText), "\n"))
			}
		case "content":
			fenced(w, "", contentText(c.Content))
		case "terminal":
			fmt.Fprintf(w, "  - %s\n", d.l.T("tool.terminal", code(c.TerminalID)))
		}
	}
	if len(tc.RawInput) > 0 {
		fmt.Fprintf(w, "  - %s\n", d.l.T("export.md_input"))
		fenced(w, "json", rawJSON(tc.RawInput))
	}
	if len(tc.RawOutput) > 0 {
		fmt.Fprintf(w, "  - %s\n", d.l.T("export.md_output"))
		fenced(w, "json", rawJSON(tc.RawOutput))
	}
	fmt.Fprintln(w)
}

// fenced writes text as a fenced code block indented under a list item,
// with a fence longer than any backtick run in the text.
func fenced(w io.Writer, lang, text string) {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	fmt.Fprintf(w, "\n  %s%s\n", fence, lang)
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintf(w, "  %s\n", fence)
}

// code is s as inline code, with enough backticks around it.
func code(s string) string {
	s = oneLine(s)
	if s == "" {
		return "``"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func orDash(s string) string { return orDefault(s, "-") }
