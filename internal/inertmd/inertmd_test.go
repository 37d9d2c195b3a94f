package inertmd_test

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"mnote/internal/inertmd"
)

// attacks are texts written to make a page run, load or link something.
var attacks = []string{
	`<script>alert("x")</script>`,
	"<script>\nalert(1)\n</script>",
	`<img src=x onerror="alert(1)">`,
	`text <img src=x onerror=alert(1)> inline`,
	`</pre><script src="https://evil.example/x.js"></script>`,
	`<a href="javascript:alert(1)">click</a>`,
	`[click](javascript:alert(1))`,
	`[click](  javascript:alert(1) "t")`,
	`[ref][r]` + "\n\n[r]: javascript:alert(1)",
	`![x" onerror="alert(1)](https://evil.example/t.png)`,
	`<javascript:alert(1)>`,
	`<https://evil.example/phish>`,
	`www.evil.example/phish and https://evil.example/x`,
	"<div onclick=\"alert(1)\">\n\n**bold inside**\n\n</div>",
	"<!-- comment --><style>body{display:none}</style>",
	"<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
	"```html\n<iframe src=\"https://evil.example\"></iframe>\n```",
	"# Heading {#x onclick=alert(1)}",
	"<svg><animate onbegin=alert(1) attributeName=x dur=1s>",
	"<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
	"| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | [x](javascript:alert(1)) |",
	"> <form action=https://evil.example><button formaction=x>go</button></form>",
	"- [ ] <input onfocus=alert(1) autofocus>",
	`<object data="x"></object><embed src="x"><link rel=stylesheet href=x><meta http-equiv=refresh content="0;url=x">`,
	"&lt;script&gt; &#x3C;script&#x3E; &#60;img src=x onerror=alert(1)&#62;",
	"<base href=https://evil.example/>",
}

// allowed are the elements inert HTML may hold.
var allowed = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"em": true, "strong": true, "del": true, "code": true, "pre": true, "blockquote": true,
	"ul": true, "ol": true, "li": true, "hr": true, "br": true, "span": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
	"input": true, // task-list checkboxes, disabled
}

// checkInert fails t unless out is HTML of allowed elements whose only
// attributes are class, start (ol), a text-align style, and a task
// list's disabled checkbox.
func checkInert(t *testing.T, in, out string) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		if !allowed[tok.Data] {
			t.Fatalf("for %q the output has a <%s>:\n%s", in, tok.Data, out)
		}
		disabled, checkbox := false, false
		for _, a := range tok.Attr {
			switch {
			case a.Key == "class" || a.Key == "start" && tok.Data == "ol" || a.Key == "checked" && tok.Data == "input":
			case a.Key == "style" && (tok.Data == "th" || tok.Data == "td") && strings.HasPrefix(a.Val, "text-align:"):
			case a.Key == "disabled" && tok.Data == "input":
				disabled = true
			case a.Key == "type" && a.Val == "checkbox" && tok.Data == "input":
				checkbox = true
			default:
				t.Fatalf("for %q the output has <%s %s=%q>:\n%s", in, tok.Data, a.Key, a.Val, out)
			}
		}
		if tok.Data == "input" && !(disabled && checkbox) {
			t.Fatalf("for %q the output has an input that is not a disabled checkbox:\n%s", in, out)
		}
	}
}

// visible is the text a reader sees in inert HTML.
func visible(out string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			b.Write(z.Text())
		}
	}
}

func TestAttacksStayText(t *testing.T) {
	for _, in := range attacks {
		out := inertmd.Render(in)
		checkInert(t, in, out)
		if strings.TrimSpace(visible(out)) == "" {
			t.Errorf("for %q nothing is shown: %q", in, out)
		}
	}
	// What the attack says is still there to read, as text.
	for in, want := range map[string]string{
		`<script>alert("x")</script>`:             `<script>alert("x")</script>`,
		`<img src=x onerror="alert(1)">`:          `<img src=x onerror="alert(1)">`,
		`[click](javascript:alert(1))`:            "click (javascript:alert(1))",
		`<a href="javascript:alert(1)">click</a>`: `<a href="javascript:alert(1)">click</a>`,
		`![tracker](https://evil.example/t.png)`:  "[image: tracker] (https://evil.example/t.png)",
		"<style>body{display:none}</style>":       "<style>body{display:none}</style>",
		"&lt;script&gt; &#60;b&#62;":              "<script> <b>",
		"[ref][r]\n\n[r]: javascript:alert(1)":    "ref (javascript:alert(1))",
		"<https://evil.example/phish>":            "https://evil.example/phish",
		"# Heading {#x onclick=alert(1)}":         "Heading {#x onclick=alert(1)}",
		"| a |\n|---|\n| <img src=x onerror=y> |": "<img src=x onerror=y>",
	} {
		if got := visible(inertmd.Render(in)); !strings.Contains(got, want) {
			t.Errorf("for %q the text shown is %q; want it to contain %q", in, got, want)
		}
	}
}

func TestMarkdownStructure(t *testing.T) {
	in := "## Plan\n\nSome **bold**, _em_, ~~gone~~ and `code`.\n\n| name | a\\|b |\n|:-----|-----:|\n| x | y |\n\n```go\nfmt.Println(\"<hi>\")\n```\n\n> quoted\n\n1. one\n2. two\n\n- [x] done\n- [ ] todo\n\n---\n"
	out := inertmd.Render(in)
	checkInert(t, in, out)
	for _, want := range []string{
		"<h2>Plan</h2>", "<strong>bold</strong>", "<em>em</em>", "<del>gone</del>", "<code>code</code>",
		"<table>", "<th style=\"text-align:left\">name</th>", "a|b</th>", "<td style=\"text-align:right\">y</td>",
		`<pre><code class="language-go">fmt.Println(&quot;&lt;hi&gt;&quot;)`, "<blockquote>", "<ol>", "<li>two</li>",
		`checked="" disabled="" type="checkbox"`, "<hr>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "##") || strings.Contains(out, "**") || strings.Contains(out, "|:---") {
		t.Errorf("Markdown syntax left in the output:\n%s", out)
	}
}

// Costly texts are shown preformatted, at once and at about their size;
// texts just inside the bounds are still rendered.
func TestCostlyTextIsPreformatted(t *testing.T) {
	var deepList strings.Builder
	for i := range 2000 {
		deepList.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	var inside strings.Builder
	for i := range inertmd.MaxDepth {
		inside.WriteString(strings.Repeat("> ", i) + "x\n")
	}
	costly := map[string]string{
		"deep quotes":        strings.Repeat(">", 50000) + " <script>x</script>",
		"deep spaced quotes": strings.Repeat("> ", 5000) + "x",
		"deep list":          deepList.String(),
		"inline lists":       strings.Repeat("- ", 5000) + "x",
		"wide table":         "|" + strings.Repeat("a|", 20000) + "\n|" + strings.Repeat("-|", 20000) + "\n" + strings.Repeat("|x\n", 5000),
		"long table":         "|a|b|c|d|\n|-|-|-|-|\n" + strings.Repeat("|1|2|3|4|\n", inertmd.MaxCells/4),
		"quoted wide table":  "> |" + strings.Repeat("a|", 200) + "\n> |" + strings.Repeat(":-:|", 200) + "\n" + strings.Repeat("> x\n", 200),
		"over MaxBytes":      strings.Repeat("word ", inertmd.MaxBytes/5+1),
	}
	for name, in := range costly {
		out := inertmd.Render(in)
		if !strings.HasPrefix(out, `<pre class="plain">`) {
			t.Errorf("%s: rendered (%d bytes out of %d), want it preformatted", name, len(out), len(in))
			continue
		}
		checkInert(t, name, out)
		if len(out) > 6*len(in)+64 { // at most "&#34;" for each byte
			t.Errorf("%s: %d bytes out of %d", name, len(out), len(in))
		}
	}
	fine := map[string]string{
		"nested quotes": inside.String(),
		"small table":   "|a|b|\n|-|-|\n" + strings.Repeat("|1|2|\n", 100),
		"rules":         strings.Repeat("-", 200) + "\n\n" + strings.Repeat("* ", 20) + "\n",
		"numbers":       strings.Repeat("1234567890", 100) + ". not a list\n",
	}
	for name, in := range fine {
		if out := inertmd.Render(in); strings.HasPrefix(out, `<pre class="plain">`) {
			t.Errorf("%s: preformatted, want it rendered", name)
		}
	}
}

// Every output, for texts mixing the attacks with Markdown around them,
// stays inert (a small fuzz over fixed combinations).
func TestAttackCombinations(t *testing.T) {
	wraps := []string{"%s", "> %s", "- %s", "1. %s", "| %s |\n|---|\n| %s |", "**%s**", "[%s](x)", "`%s`", "    %s", "<div>\n%s\n</div>"}
	for _, a := range attacks {
		for _, w := range wraps {
			in := strings.ReplaceAll(w, "%s", a)
			checkInert(t, in, inertmd.Render(in))
		}
	}
}

func FuzzRender(f *testing.F) {
	for _, a := range attacks {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkInert(t, in, inertmd.Render(in))
	})
}

func ExampleRender() {
	fmt.Print(inertmd.Render("**Hi** [there](javascript:alert(1)) <b>x</b>"))
	// Output: <p><strong>Hi</strong> <span class="link">there</span> <span class="url">(javascript:alert(1))</span> &lt;b&gt;x&lt;/b&gt;</p>
}
