package inertmd

import (
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// Line breaks inside a paragraph. By default (Obsidian's) each one shows
// as a line break (<br>). With Options.StrictBreaks a soft line break
// joins the lines as CommonMark says, except that between two CJK
// characters it joins with nothing: "命中率。↵第一次" is "命中率。第一次",
// never "命中率。 第一次" (a newline in HTML shows as a space). The same
// rule as the UI's renderer (frontend/src/lib/cjk.ts).

// cjkRanges are the CJK code points (inclusive): ideographs, kana, CJK
// punctuation, fullwidth forms. Hangul is not among them: Korean puts
// spaces between words.
var cjkRanges = [...][2]rune{
	{0x2e80, 0x2fdf},   // CJK radicals, Kangxi radicals
	{0x2ff0, 0x303f},   // ideographic description, CJK symbols and punctuation
	{0x3040, 0x30ff},   // Hiragana, Katakana
	{0x3100, 0x312f},   // Bopomofo
	{0x3190, 0x31ff},   // Kanbun, Bopomofo extended, CJK strokes, Katakana extensions
	{0x3200, 0x33ff},   // enclosed CJK letters, CJK compatibility
	{0x3400, 0x4dbf},   // CJK extension A
	{0x4e00, 0x9fff},   // CJK unified ideographs
	{0xf900, 0xfaff},   // CJK compatibility ideographs
	{0xfe30, 0xfe4f},   // CJK compatibility forms
	{0xff00, 0xff9f},   // fullwidth forms, halfwidth Katakana
	{0xffe0, 0xffef},   // fullwidth signs
	{0x20000, 0x3ffff}, // CJK extensions B–H, compatibility supplement
}

// IsCJK reports whether r is a CJK character (see cjkRanges).
func IsCJK(r rune) bool {
	if r < 0x2e80 {
		return false
	}
	for _, rg := range cjkRanges {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

// JoinsTight reports whether a soft line break between before and after
// joins with nothing: the last character of before and the first of after
// are both CJK.
func JoinsTight(before, after string) bool {
	last, _ := utf8.DecodeLastRuneInString(before)
	first, _ := utf8.DecodeRuneInString(after)
	return IsCJK(last) && IsCJK(first)
}

// textRenderer renders text nodes as goldmark does, but with the line
// break rule above.
type textRenderer struct {
	strict bool
}

func (r textRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindText, r.renderText)
}

func (r textRenderer) renderText(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Text)
	value := n.Segment.Value(src)
	if n.IsRaw() {
		html.DefaultWriter.RawWrite(w, value)
		return ast.WalkContinue, nil
	}
	html.DefaultWriter.Write(w, value)
	switch {
	case n.HardLineBreak() || (n.SoftLineBreak() && !r.strict):
		_, _ = w.WriteString("<br>\n")
	case n.SoftLineBreak():
		if !JoinsTight(string(value), nextText(node, src)) {
			_ = w.WriteByte('\n')
		}
	}
	return ast.WalkContinue, nil
}

// nextText is the text that follows n in its paragraph: the first text of
// the next inline node, leaving emphasis and links as needed ("" at the
// paragraph's end).
func nextText(n ast.Node, src []byte) string {
	for cur := n; cur != nil; cur = cur.Parent() {
		if cur.Type() == ast.TypeBlock {
			return ""
		}
		if next := cur.NextSibling(); next != nil {
			return firstText(next, src)
		}
	}
	return ""
}

// firstText is the first text inside n ("" when it starts with none).
func firstText(n ast.Node, src []byte) string {
	for ; n != nil; n = n.FirstChild() {
		switch t := n.(type) {
		case *ast.Text:
			return string(t.Segment.Value(src))
		case *ast.String:
			return string(t.Value)
		}
	}
	return ""
}
