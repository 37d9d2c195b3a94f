package export

import (
	"bufio"
	"fmt"
	"io"
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
	fmt.Fprintf(bw, "- Session: %s\n- Agent: %s\n- Created: %s\n- Turns: %d\n", code(d.sess.ID), orDash(d.sess.Runtime), fmtTime(d.sess.CreatedMs), d.sess.Turns)
	if d.sess.Workspace != "" {
		fmt.Fprintf(bw, "- Workspace: %s\n", code(d.sess.Workspace))
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
			fmt.Fprintf(w, "## You (turn %d)\n\n%s\n\n", en.Turn, strings.TrimSpace(en.Text))
		case thread.EntryAssistantMessage:
			fmt.Fprintf(w, "### Agent\n\n%s\n\n", strings.TrimSpace(en.Text))
		case thread.EntryThought:
			if n, left := d.thoughtLen[en.ID]; left {
				fmt.Fprintf(w, "_(thought for %d characters)_\n\n", n)
			} else {
				fmt.Fprintf(w, "<details><summary>Thinking</summary>\n\n%s\n\n</details>\n\n", strings.TrimSpace(en.Text))
			}
		case thread.EntryToolCall:
			if en.ToolCall != nil {
				d.markdownTool(w, en.ToolCall)
			}
		case thread.EntryRuntime:
			if rc := en.Runtime; rc != nil {
				fmt.Fprintf(w, "_(%s)_\n\n", runtimeNote(rc))
			}
		case thread.EntryPlan:
			fmt.Fprint(w, "**Plan**\n\n")
			for _, p := range en.Plan {
				fmt.Fprintf(w, "- [%s] %s\n", planMark(p.Status), oneLine(p.Content))
			}
			fmt.Fprintln(w)
		}
	}
}

func (d *doc) markdownTool(w io.Writer, tc *thread.ToolCall) {
	fmt.Fprintf(w, "- **%s** %s — %s\n", orDefault(tc.Kind, "tool"), code(tc.Title), tc.Status)
	for _, l := range tc.Locations {
		fmt.Fprintf(w, "  - at %s\n", code(location(l)))
	}
	for _, c := range tc.Content {
		switch c.Type {
		case "diff":
			fmt.Fprintf(w, "  - edits %s\n", code(c.Path))
			if d.o.IncludeToolIO {
				fenced(w, "diff", strings.Join(diffLines(c.OldText, c.NewText), "\n"))
			}
		case "content":
			fenced(w, "", contentText(c.Content))
		case "terminal":
			fmt.Fprintf(w, "  - terminal %s\n", code(c.TerminalID))
		}
	}
	if len(tc.RawInput) > 0 {
		fmt.Fprintln(w, "  - input:")
		fenced(w, "json", rawJSON(tc.RawInput))
	}
	if len(tc.RawOutput) > 0 {
		fmt.Fprintln(w, "  - output:")
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
