// Package inertmd renders Markdown to HTML that can do nothing: it is the
// one Markdown renderer of mnote's pages that leave the app (the HTML
// export, opened from disk, and the share page the control plane serves).
//
// The input is GitHub-flavoured Markdown (goldmark with extension.GFM:
// tables, strikethrough, task lists, bare URLs), and the output keeps its
// structure — headings, emphasis, lists, quotes, tables, code — but no
// part of it may load, link or run anything:
//
//   - raw HTML, inline or as a block, is shown as escaped text (a block in
//     <pre class="raw">), never passed through;
//   - a link is its text in <span class="link"> followed by its address as
//     text, <span class="url">(…)</span>; a bare or <autolink> URL is text;
//   - an image is "[image: alt]" followed by its address as text;
//   - no heading ids and no {attribute} syntax (goldmark's defaults), so no
//     attribute of the input reaches the output; the only attributes are
//     goldmark's own (class="language-…" on code, style="text-align:…" on
//     table cells, disabled checkboxes of task lists).
//
// Text too large, nested too deep or with too many table cells to render
// cheaply is shown escaped and preformatted instead (MaxBytes, MaxDepth,
// MaxCells): a share page is
// rendered on every view, so its cost must stay bounded.
package inertmd

import (
	"bytes"
	"fmt"
	"html"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// MaxBytes is the largest text rendered as Markdown; a longer one is
// shown preformatted.
const MaxBytes = 1 << 20

// MaxDepth bounds the nesting of block quotes and lists; text nested
// deeper (a line opening more than MaxDepth of them) is shown
// preformatted.
const MaxDepth = 32

// MaxCells bounds the cells of a text's tables; text with more is shown
// preformatted.
const MaxCells = 20000

func newMarkdown(strict bool) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithInlineParsers(util.Prioritized(cjkEmphasis{}, 499))), // before emphasis (500): emphasis.go
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(
			util.Prioritized(inertRenderer{}, 100),
			util.Prioritized(textRenderer{strict: strict}, 100),
		)),
	)
}

var (
	markdown       = sync.OnceValue(func() goldmark.Markdown { return newMarkdown(false) })
	markdownStrict = sync.OnceValue(func() goldmark.Markdown { return newMarkdown(true) })
)

// Options change how Markdown renders.
type Options struct {
	// StrictBreaks joins the lines of a paragraph split by a single line
	// break (with nothing between two CJK characters, a space otherwise);
	// by default each line break shows as one, as in Obsidian (cjk.go).
	StrictBreaks bool
}

// Render returns text as inert HTML (see the package comment), each line
// break inside a paragraph shown as one. On the (unexpected) failure of
// the renderer, and for text over MaxBytes or nested deeper than
// MaxDepth, or with more than MaxCells table cells, it is the text
// escaped in a <pre>.
func Render(text string) string {
	return RenderWith(text, Options{})
}

// RenderWith is Render with options.
func RenderWith(text string, o Options) string {
	if len(text) > MaxBytes || tooCostly(text) {
		return Preformatted(text)
	}
	md := markdown()
	if o.StrictBreaks {
		md = markdownStrict()
	}
	var b bytes.Buffer
	if err := md.Convert([]byte(text), &b); err != nil {
		return Preformatted(text)
	}
	return b.String()
}

// Preformatted is text escaped in <pre class="plain">.
func Preformatted(text string) string {
	return `<pre class="plain">` + html.EscapeString(text) + "</pre>\n"
}

// tooCostly reports whether text would be slow or huge to render: a line
// opening more than MaxDepth block quotes or list items (or indented
// deeper than that), or tables of more than MaxCells cells in all (GFM
// pads every row to the header's width, so a wide header over many short
// lines would make the output thousands of times the input).
func tooCostly(text string) bool {
	cells, cols := 0, 0 // cols: the open table's width, 0 outside one
	for line := range strings.SplitSeq(text, "\n") {
		body, depth := containers(line)
		if depth > MaxDepth || len(line)-len(strings.TrimLeft(line, " \t")) > 4*MaxDepth {
			return true
		}
		switch {
		case strings.TrimSpace(body) == "":
			cols = 0
		case cols > 0:
			cells += cols
		default:
			if n := delimiterCells(body); n > 0 {
				cols = n
				cells += 2 * n // the header and the delimiter row
			}
		}
		if cells > MaxCells {
			return true
		}
	}
	return false
}

// containers strips the block-quote and list markers that open a line
// ("> ", "- ", "* ", "+ ", "1. ", "1) "), and counts them.
func containers(line string) (rest string, depth int) {
	i := 0
markers:
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '>':
			depth++
			i++
			continue
		case c == '-' || c == '*' || c == '+':
			if i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t' {
				depth++
				i++
				continue
			}
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j < len(line) && (line[j] == '.' || line[j] == ')') && (j+1 == len(line) || line[j+1] == ' ' || line[j+1] == '\t') {
				depth++
				i = j + 1
				continue
			}
		}
		break markers
	}
	return line[i:], depth
}

// delimiterCells is the number of columns of a table's delimiter row
// ("|---|:-:|"), or 0 when line is not one.
func delimiterCells(line string) int {
	line = strings.TrimSpace(line)
	if !strings.Contains(line, "-") || strings.Trim(line, "|:- \t") != "" {
		return 0
	}
	n := 0
	for cell := range strings.SplitSeq(strings.Trim(line, "|"), "|") {
		if strings.Contains(cell, "-") {
			n++
		}
	}
	return n
}

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
