package export

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"mnote/thread"
)

// contentSecurityPolicy is put in every exported page: nothing may load,
// only the inline style applies. (The page references nothing anyway; the
// policy holds even if a browser found something.)
const contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

// markdown renders message text: GitHub-flavoured Markdown, with raw HTML
// shown as text, links as text followed by their address, and images as
// their alt text — nothing in the output loads or links anywhere.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(inertRenderer{}, 100))),
	)
})

// inertRenderer replaces goldmark's renderers for the nodes that would
// reference something outside the page or carry raw HTML.
type inertRenderer struct{}

func (inertRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
}

func renderLink(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		w.WriteString(`<span class="link">`)
		return ast.WalkContinue, nil
	}
	dest := string(n.(*ast.Link).Destination)
	w.WriteString(`</span>`)
	if dest != "" {
		fmt.Fprintf(w, ` <span class="url">(%s)</span>`, html.EscapeString(dest))
	}
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		fmt.Fprintf(w, `<span class="url">%s</span>`, html.EscapeString(string(n.(*ast.AutoLink).Label(src))))
	}
	return ast.WalkSkipChildren, nil
}

func renderImage(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		w.WriteString(`<span class="image">[image: `)
		return ast.WalkContinue, nil
	}
	fmt.Fprintf(w, `]</span> <span class="url">(%s)</span>`, html.EscapeString(string(n.(*ast.Image).Destination)))
	return ast.WalkContinue, nil
}

func renderRawHTML(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := n.(*ast.RawHTML).Segments
		for i := 0; i < segs.Len(); i++ {
			s := segs.At(i)
			w.WriteString(html.EscapeString(string(s.Value(src))))
		}
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	b := n.(*ast.HTMLBlock)
	w.WriteString(`<pre class="raw">`)
	lines := b.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		w.WriteString(html.EscapeString(string(s.Value(src))))
	}
	if b.HasClosure() {
		w.WriteString(html.EscapeString(string(b.ClosureLine.Value(src))))
	}
	w.WriteString("</pre>\n")
	return ast.WalkSkipChildren, nil
}

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
	fmt.Fprintf(bw, `<!DOCTYPE html>
<html lang="en">
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
<p class="meta">Session <code>%s</code> · agent %s · created %s · %d turn%s</p>
</header>
`, contentSecurityPolicy, esc(title), pageCSS, esc(title), esc(d.sess.ID), esc(orDash(d.sess.Runtime)),
		esc(fmtTime(d.sess.CreatedMs)), d.sess.Turns, plural(d.sess.Turns))
	for _, en := range d.snap.Entries {
		d.htmlEntry(bw, en)
	}
	note := ""
	if o.Redact {
		note = " Secrets and local paths were redacted."
	}
	fmt.Fprintf(bw, "<footer>Exported from mnote on %s.%s</footer>\n</main>\n</body>\n</html>\n", esc(time.Now().Format("2006-01-02 15:04")), note)
	return bw.Flush()
}

func (d *doc) htmlEntry(w io.Writer, en thread.Entry) {
	switch en.Kind {
	case thread.EntryUserMessage:
		fmt.Fprintf(w, "<section class=\"entry user\">\n<div class=\"who\">You · turn %d</div>\n<div class=\"md\">%s</div>\n</section>\n", en.Turn, renderMarkdown(en.Text))
	case thread.EntryAssistantMessage:
		fmt.Fprintf(w, "<section class=\"entry assistant\">\n<div class=\"who\">Agent</div>\n<div class=\"md\">%s</div>\n</section>\n", renderMarkdown(en.Text))
	case thread.EntryThought:
		if n, left := d.thoughtLen[en.ID]; left {
			fmt.Fprintf(w, "<p class=\"entry thought-note\">Thought for %d characters (not included)</p>\n", n)
		} else {
			fmt.Fprintf(w, "<details class=\"entry thought\">\n<summary>Thinking</summary>\n<div class=\"md\">%s</div>\n</details>\n", renderMarkdown(en.Text))
		}
	case thread.EntryToolCall:
		if en.ToolCall != nil {
			d.htmlTool(w, en.ToolCall)
		}
	case thread.EntryRuntime:
		if rc := en.Runtime; rc != nil {
			fmt.Fprintf(w, "<p class=\"entry runtime-note\">%s</p>\n", esc(runtimeNote(rc)))
		}
	case thread.EntryPlan:
		fmt.Fprint(w, "<section class=\"entry plan\">\n<div class=\"who\">Plan</div>\n<ul>\n")
		for _, p := range en.Plan {
			fmt.Fprintf(w, "<li class=\"%s\"><span class=\"box\">[%s]</span> %s</li>\n", esc(statusClass(p.Status)), planMark(p.Status), esc(p.Content))
		}
		fmt.Fprint(w, "</ul>\n</section>\n")
	}
}

func (d *doc) htmlTool(w io.Writer, tc *thread.ToolCall) {
	fmt.Fprintf(w, "<section class=\"entry tool\">\n<div class=\"tool-head\"><span class=\"kind\">%s</span> <span class=\"title\">%s</span> <span class=\"status %s\">%s</span></div>\n",
		esc(orDefault(tc.Kind, "tool")), esc(tc.Title), esc(statusClass(tc.Status)), esc(tc.Status))
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
			fmt.Fprintf(w, "<div class=\"diff-head\">edits <code>%s</code></div>\n", esc(c.Path))
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
			fmt.Fprintf(w, "<div class=\"terminal\">terminal <code>%s</code></div>\n", esc(c.TerminalID))
		}
	}
	if len(tc.RawInput) > 0 {
		fmt.Fprintf(w, "<details class=\"io\"><summary>Input</summary><pre>%s</pre></details>\n", esc(rawJSON(tc.RawInput)))
	}
	if len(tc.RawOutput) > 0 {
		fmt.Fprintf(w, "<details class=\"io\"><summary>Output</summary><pre>%s</pre></details>\n", esc(rawJSON(tc.RawOutput)))
	}
	fmt.Fprint(w, "</section>\n")
}

// renderMarkdown renders message text; on the (unexpected) failure of the
// renderer the text is shown escaped and preformatted.
func renderMarkdown(text string) string {
	var b bytes.Buffer
	if err := markdown().Convert([]byte(text), &b); err != nil {
		return "<pre>" + esc(text) + "</pre>"
	}
	return b.String()
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

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

const pageCSS = `
:root { color-scheme: light dark; --bg: #f7f7f5; --fg: #1f2328; --muted: #656d76; --card: #ffffff;
  --border: #d8dee4; --user: #eef4ff; --code: #f0f1f3; --add: #e6ffec; --del: #ffebe9; --accent: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #16181c; --fg: #e6edf3; --muted: #8d96a0; --card: #1e2228; --border: #30363d;
    --user: #1b2636; --code: #262b33; --add: #12361f; --del: #3d1a1c; --accent: #58a6ff; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
header h1 { font-size: 1.6rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
.meta, footer, .thought-note, .runtime-note { color: var(--muted); font-size: .85rem; }
footer { margin-top: 3rem; border-top: 1px solid var(--border); padding-top: .75rem; }
.entry { margin: 1rem 0; }
.who { font-size: .8rem; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; margin-bottom: .25rem; }
.user .md { background: var(--user); border-radius: 10px; padding: .6rem .9rem; }
.md { overflow-wrap: anywhere; }
.md > :first-child { margin-top: 0; }
.md > :last-child { margin-bottom: 0; }
.md h1, .md h2, .md h3 { font-size: 1.1rem; }
.md table { border-collapse: collapse; }
.md th, .md td { border: 1px solid var(--border); padding: .25rem .5rem; }
.md blockquote { margin: 0; padding-left: .9rem; border-left: 3px solid var(--border); color: var(--muted); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: .88em; }
code { background: var(--code); border-radius: 4px; padding: .05em .3em; }
pre { background: var(--code); border-radius: 6px; padding: .6rem .8rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
pre code { background: none; padding: 0; }
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
`
