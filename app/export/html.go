package export

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"mnote/internal/inertmd"
	"mnote/internal/l10n"
	"mnote/thread"
)

// contentSecurityPolicy is put in every exported page: nothing may load,
// only the inline style applies. (The page references nothing anyway; the
// policy holds even if a browser found something.)
const contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

// HTML writes a session as one self-contained HTML page: inline CSS (light
// and dark by prefers-color-scheme), no scripts, no fonts, images or
// links that load anything, and a Content-Security-Policy that forbids
// loading. Opened from disk it makes no network request.
func HTML(w io.Writer, sess Session, snap thread.Snapshot, o Options) error {
	d, err := prepare(sess, snap, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	title := d.title()
	l := d.l
	meta := []string{
		ht(l, "export.meta_session", "<code>"+esc(d.sess.ID)+"</code>"),
		ht(l, "export.meta_agent", esc(orDash(d.sess.Runtime))),
		ht(l, "export.meta_created", esc(d.fmtTime(d.sess.CreatedMs))),
		esc(l.N("export.turns", d.sess.Turns)),
	}
	fmt.Fprintf(bw, `<!DOCTYPE html>
<html lang="%s">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="%s">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="mnote">
<title>%s</title>
<style>%s</style>
</head>
<body>
<main>
<header>
<h1>%s</h1>
<p class="meta">%s</p>
</header>
`, esc(string(l)), contentSecurityPolicy, esc(title), pageCSS, esc(title), strings.Join(meta, " · "))
	for _, en := range d.snap.Entries {
		d.htmlEntry(bw, en)
	}
	footer := "export.footer"
	if o.Redact {
		footer = "export.footer_redacted"
	}
	fmt.Fprintf(bw, "<footer>%s</footer>\n</main>\n</body>\n</html>\n", ht(l, footer, esc(l.Date(time.Now()))))
	return bw.Flush()
}

// ht is the message key in l as HTML: the message escaped, then args
// (HTML already) filled in.
func ht(l l10n.Locale, key string, args ...any) string {
	return fmt.Sprintf(esc(l.T(key)), args...)
}

func (d *doc) htmlEntry(w io.Writer, en thread.Entry) {
	switch en.Kind {
	case thread.EntryUserMessage:
		fmt.Fprintf(w, "<section class=\"entry user\">\n<div class=\"who\">%s</div>\n<div class=\"md\">%s</div>\n", esc(d.l.T("export.you_turn", en.Turn)), d.md(en.Text))
		d.htmlImages(w, en.ID)
		fmt.Fprint(w, "</section>\n")
	case thread.EntryAssistantMessage:
		fmt.Fprintf(w, "<section class=\"entry assistant\">\n<div class=\"who\">%s</div>\n<div class=\"md\">%s</div>\n</section>\n", esc(d.l.T("export.agent")), d.md(en.Text))
	case thread.EntryThought:
		if n, left := d.thoughtLen[en.ID]; left {
			fmt.Fprintf(w, "<p class=\"entry thought-note\">%s</p>\n", esc(d.l.N("export.thought_left", n)))
		} else {
			fmt.Fprintf(w, "<details class=\"entry thought\">\n<summary>%s</summary>\n<div class=\"md\">%s</div>\n</details>\n", esc(d.l.T("export.thinking")), d.md(en.Text))
		}
	case thread.EntryToolCall:
		if en.ToolCall != nil {
			d.htmlTool(w, en.ToolCall)
		}
	case thread.EntryRuntime:
		if rc := en.Runtime; rc != nil {
			fmt.Fprintf(w, "<p class=\"entry runtime-note\">%s</p>\n", esc(d.runtimeNote(rc)))
		}
	case thread.EntryPlan:
		fmt.Fprintf(w, "<section class=\"entry plan\">\n<div class=\"who\">%s</div>\n<ul>\n", esc(d.l.T("entry.plan")))
		for _, p := range en.Plan {
			fmt.Fprintf(w, "<li class=\"%s\"><span class=\"box\">[%s]</span> %s</li>\n", esc(statusClass(p.Status)), planMark(p.Status), esc(p.Content))
		}
		fmt.Fprint(w, "</ul>\n</section>\n")
	case thread.EntryQuestion:
		if en.Question != nil {
			d.htmlQuestion(w, en.Question)
		}
	}
}

func (d *doc) htmlTool(w io.Writer, tc *thread.ToolCall) {
	fmt.Fprintf(w, "<section class=\"entry tool\">\n<div class=\"tool-head\"><span class=\"kind\">%s</span> <span class=\"title\">%s</span> <span class=\"status %s\">%s</span></div>\n",
		esc(d.l.ToolKind(tc.Kind)), esc(tc.Title), esc(statusClass(tc.Status)), esc(d.l.ToolStatus(tc.Status)))
	if len(tc.Locations) > 0 {
		fmt.Fprint(w, "<ul class=\"locations\">\n")
		for _, l := range tc.Locations {
			fmt.Fprintf(w, "<li><code>%s</code></li>\n", esc(location(l)))
		}
		fmt.Fprint(w, "</ul>\n")
	}
	for _, c := range tc.Content {
		switch c.Type {
		case "diff":
			fmt.Fprintf(w, "<div class=\"diff-head\">%s</div>\n", ht(d.l, "tool.edits", "<code>"+esc(c.Path)+"</code>"))
			if d.o.IncludeToolIO {
				fmt.Fprint(w, "<pre class=\"diff\">")
				for _, l := range diffLines(c.OldText, c.NewText) {
					class := "ctx"
					switch l[0] {
					case '-':
						class = "del"
					case '+':
						class = "add"
					}
					fmt.Fprintf(w, "<span class=\"%s\">%s</span>\n", class, esc(l))
				}
				fmt.Fprint(w, "</pre>\n")
			}
		case "content":
			fmt.Fprintf(w, "<pre class=\"output\">%s</pre>\n", esc(contentText(c.Content)))
		case "terminal":
			fmt.Fprintf(w, "<div class=\"terminal\">%s</div>\n", ht(d.l, "tool.terminal", "<code>"+esc(c.TerminalID)+"</code>"))
		}
	}
	if len(tc.RawInput) > 0 {
		fmt.Fprintf(w, "<details class=\"io\"><summary>%s</summary><pre>%s</pre></details>\n", esc(d.l.T("tool.input")), esc(rawJSON(tc.RawInput)))
	}
	if len(tc.RawOutput) > 0 {
		fmt.Fprintf(w, "<details class=\"io\"><summary>%s</summary><pre>%s</pre></details>\n", esc(d.l.T("tool.output")), esc(rawJSON(tc.RawOutput)))
	}
	fmt.Fprint(w, "</section>\n")
}

func esc(s string) string { return html.EscapeString(s) }

// statusClass is a CSS class for a status: letters and _ only.
func statusClass(s string) string {
	return "s-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r == '_' {
			return r
		}
		return -1
	}, strings.ToLower(s))
}

const pageCSS = `
:root { color-scheme: light dark; --bg: #f7f7f5; --fg: #1f2328; --muted: #656d76; --card: #ffffff;
  --border: #d8dee4; --user: #eef4ff; --code: #f0f1f3; --add: #e6ffec; --del: #ffebe9; --accent: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #16181c; --fg: #e6edf3; --muted: #8d96a0; --card: #1e2228; --border: #30363d;
    --user: #1b2636; --code: #262b33; --add: #12361f; --del: #3d1a1c; --accent: #58a6ff; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); line-break: auto;
  font: 15px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
    "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
header h1 { font-size: 1.6rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
.meta, footer, .thought-note, .runtime-note { color: var(--muted); font-size: .85rem; overflow-wrap: anywhere; }
footer { margin-top: 3rem; border-top: 1px solid var(--border); padding-top: .75rem; }
.entry { margin: 1rem 0; }
.who { font-size: .8rem; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; margin-bottom: .25rem; }
.user .md { background: var(--user); border-radius: 10px; padding: .6rem .9rem; }
.images { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .5rem; }
.images img { max-width: 100%; max-height: 24rem; border-radius: 8px; border: 1px solid var(--border); }
.md { overflow-wrap: anywhere; }
.md > :first-child { margin-top: 0; }
.md > :last-child { margin-bottom: 0; }
.md h1, .md h2, .md h3 { font-size: 1.1rem; }
.md table { border-collapse: collapse; display: block; max-width: 100%; overflow-x: auto; }
.md th, .md td { border: 1px solid var(--border); padding: .25rem .5rem; }
.md blockquote { margin: 0; padding-left: .9rem; border-left: 3px solid var(--border); color: var(--muted); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", "Noto Sans Mono CJK SC", monospace; font-size: .88em; }
code { background: var(--code); border-radius: 4px; padding: .05em .3em; overflow-wrap: anywhere; }
pre { background: var(--code); border-radius: 6px; padding: .6rem .8rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
pre code { background: none; padding: 0; }
pre.plain { background: none; padding: 0; font: inherit; }
.url { color: var(--muted); font-size: .9em; overflow-wrap: anywhere; }
.link { color: var(--accent); }
details.thought { border-left: 3px solid var(--border); padding-left: .8rem; color: var(--muted); }
summary { cursor: pointer; font-size: .85rem; }
.tool { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: .5rem .8rem; }
.tool-head { display: flex; gap: .5rem; align-items: baseline; flex-wrap: wrap; }
.tool .kind { font-size: .75rem; font-weight: 600; text-transform: uppercase; color: var(--muted); }
.tool .title { font-weight: 600; overflow-wrap: anywhere; }
.status { font-size: .75rem; border: 1px solid var(--border); border-radius: 999px; padding: 0 .5rem; }
.s-completed { color: #1a7f37; } .s-failed, .s-rejected { color: #cf222e; }
.locations { margin: .3rem 0; padding-left: 1.2rem; font-size: .85rem; }
.diff-head, .terminal { font-size: .85rem; margin-top: .3rem; }
pre.diff span { display: block; }
pre.diff .add { background: var(--add); } pre.diff .del { background: var(--del); }
.plan ul { list-style: none; padding-left: 0; }
.plan .box { font-family: ui-monospace, monospace; color: var(--muted); }
.plan .s-completed { color: var(--muted); text-decoration: line-through; }
.question .asked { margin: 0; }
.question .status { margin: 4px 0 0; color: var(--muted); }
.question dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 4px 0 0; }
.question dt { color: var(--muted); }
.question dd { margin: 0; overflow-wrap: anywhere; }
`

// md is a text of the thread as inert HTML, its line breaks as the
// options say.
func (d *doc) md(text string) string {
	return inertmd.RenderWith(text, inertmd.Options{StrictBreaks: d.o.StrictBreaks})
}
