package inertmd

import (
	"unicode"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Emphasis next to Chinese. CommonMark opens or closes ** only when it is
// "flanking", and a ** between a CJK character and punctuation is not:
// "**重点：**内容" and "这是**“引用”**" show their asterisks. The
// CJK-friendly amendment counts CJK characters as punctuation for that
// rule, as the UI's renderers do (marked-cjk-friendly in
// frontend/src/lib/markdown.ts, CjkEmphasis in frontend/src/lib/mdsyntax.ts).
// cjkEmphasis takes the delimiters with a CJK character beside them,
// before goldmark's own parser, which keeps all the others.

// cjkEmphasis is an inline parser of * and _ runs beside CJK text.
type cjkEmphasis struct{}

// emphasisProcessor makes * and _ emphasis, as goldmark's own does: a
// closer matches an opener of the same character, from either parser.
type emphasisProcessor struct{}

func (emphasisProcessor) IsDelimiter(b byte) bool { return b == '*' || b == '_' }

func (emphasisProcessor) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (emphasisProcessor) OnMatch(consumes int) ast.Node { return ast.NewEmphasis(consumes) }

func (cjkEmphasis) Trigger() []byte { return []byte{'*', '_'} }

func (cjkEmphasis) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, emphasisProcessor{})
	if d == nil {
		return nil
	}
	after := ' '
	if d.OriginalLength < len(line) {
		after = util.ToRune(line, d.OriginalLength)
	}
	if !cjkLetter(before) && !cjkLetter(after) {
		return nil // CommonMark's rule, goldmark's parser
	}
	d.CanOpen, d.CanClose = flanking(before, after, line[0] == '_')
	d.Segment = segment.WithStop(segment.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

// cjkLetter reports whether r is a CJK character (Hangul too: a Korean
// word beside ** is the same case).
func cjkLetter(r rune) bool {
	return IsCJK(r) || unicode.Is(unicode.Hangul, r)
}

// flanking is CommonMark's open and close rule for a delimiter run
// between before and after, with CJK characters counted as punctuation.
func flanking(before, after rune, underscore bool) (canOpen, canClose bool) {
	pBefore := util.IsPunctRune(before) || cjkLetter(before)
	pAfter := util.IsPunctRune(after) || cjkLetter(after)
	sBefore := util.IsSpaceRune(before)
	sAfter := util.IsSpaceRune(after)
	left := !sAfter && (!pAfter || sBefore || pBefore)
	right := !sBefore && (!pBefore || sAfter || pAfter)
	if underscore {
		return left && (!right || pBefore), right && (!left || pAfter)
	}
	return left, right
}
