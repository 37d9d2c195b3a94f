package inertmd_test

import (
	"strings"
	"testing"

	"mnote/internal/inertmd"
)

// Line breaks inside a paragraph: shown as line breaks by default
// (Obsidian's), and in strict mode joined with nothing between two CJK
// characters, a space otherwise; the same rule as frontend/src/lib/cjk.ts.
func TestLineBreaks(t *testing.T) {
	const in = "命中率。\n第一次\n\nhit rate\nfirst\n\n缓存\n**命中**\n\n> 引用\n> 第二行\n\n- 一项\n  续行\n\n代码 `x`\n之后\n\n한국어\n단어\n\n```\n第一\n第二\n```\n"
	def := inertmd.Render(in)
	for _, want := range []string{"命中率。<br>\n第一次", "hit rate<br>\nfirst", "<pre><code>第一\n第二\n"} {
		if !strings.Contains(def, want) {
			t.Errorf("default: no %q in\n%s", want, def)
		}
	}
	strict := inertmd.RenderWith(in, inertmd.Options{StrictBreaks: true})
	for _, want := range []string{"命中率。第一次", "hit rate\nfirst", "缓存<strong>命中</strong>", "引用第二行", "一项续行", "한국어\n단어", "<pre><code>第一\n第二\n"} {
		if !strings.Contains(strict, want) {
			t.Errorf("strict: no %q in\n%s", want, strict)
		}
	}
	if strings.Contains(strict, "<br>") || strings.Contains(strict, "率。\n第") {
		t.Errorf("strict: a CJK break kept:\n%s", strict)
	}
	// `code`↵之后: the code span's text is not CJK.
	if !strings.Contains(strict, "<code>x</code>\n之后") {
		t.Errorf("strict: code span then CJK:\n%s", strict)
	}
}

func TestJoinsTight(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"命中率。", "第一次", true},
		{"，", "𠀀", true},
		{"cache", "第一次", false},
		{"缓存", "LRU", false},
		{"한", "국", false},
		{"", "第", false},
	} {
		if got := inertmd.JoinsTight(c.a, c.b); got != c.want {
			t.Errorf("JoinsTight(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

// Emphasis beside Chinese text and punctuation is emphasis (the
// CJK-friendly amendment, as the UI renders it); English keeps
// CommonMark's rule.
func TestEmphasisBesideCJK(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"**重点：**内容", "<strong>重点：</strong>内容"},
		{"这是**“重点”**内容", "这是<strong>“重点”</strong>内容"},
		{"这是**（注意）**的", "这是<strong>（注意）</strong>的"},
		{"这是*“斜体”*呢", "这是<em>“斜体”</em>呢"},
		{"**good**中文", "<strong>good</strong>中文"},
		{"命中率**很高**。", "命中率<strong>很高</strong>。"},
		{"a**\"quoted\"**b", "a**&quot;quoted&quot;**b"},
		{"2*3*4", "2<em>3</em>4"},
	} {
		got := inertmd.Render(c.in)
		if !strings.Contains(got, c.want) {
			t.Errorf("Render(%q) = %q, want it to hold %q", c.in, got, c.want)
		}
	}
}
