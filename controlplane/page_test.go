package controlplane_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"mnote/controlplane"
	"mnote/controlplane/api"
)

// getPage fetches a share page with an Accept-Language header.
func getPage(t *testing.T, h *harness, p, acceptLanguage string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, h.srv.URL+p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acceptLanguage != "" {
		req.Header.Set("Accept-Language", acceptLanguage)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, resp.Header, b.String()
}

// pageElements are the elements a share page may hold.
var pageElements = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "main": true,
	"header": true, "footer": true, "section": true, "details": true, "summary": true, "div": true,
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"em": true, "strong": true, "del": true, "code": true, "pre": true, "blockquote": true,
	"ul": true, "ol": true, "li": true, "hr": true, "br": true, "span": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "input": true,
	"time": true, "script": true,
}

// checkPage fails t unless the page parses into allowed elements with no
// attribute that links, loads or runs anything, its one <style> and its
// one <script> the page's own (the script the one PageCSP allows by its
// hash), and returns the text a reader sees in <body>.
func checkPage(t *testing.T, page string) string {
	t.Helper()
	var text strings.Builder
	z := html.NewTokenizer(strings.NewReader(page))
	styles, scripts, inBody, inScript := 0, 0, false, false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.EndTagToken:
			inScript = false
		case html.TextToken:
			if inScript {
				sum := sha256.Sum256(z.Text())
				if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(controlplane.PageCSP, h) {
					t.Fatalf("the page's script is not the one the CSP allows (%s, CSP %s):\n%s", h, controlplane.PageCSP, z.Text())
				}
			} else if inBody {
				text.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if !pageElements[tok.Data] {
				t.Fatalf("the page has a <%s>:\n%s", tok.Data, page)
			}
			switch tok.Data {
			case "body":
				inBody = true
			case "style":
				styles++
			case "script":
				scripts++
				inScript = true
				if len(tok.Attr) > 0 {
					t.Fatalf("the page has <script %v>", tok.Attr)
				}
			case "input":
				ok := map[string]string{}
				for _, a := range tok.Attr {
					ok[a.Key] = a.Val
				}
				if _, disabled := ok["disabled"]; !disabled || ok["type"] != "checkbox" || len(ok) > 3 {
					t.Fatalf("the page has an input that is not a disabled checkbox: %v", tok)
				}
			case "meta":
				for _, a := range tok.Attr {
					if a.Key == "http-equiv" {
						t.Fatalf("the page has <meta http-equiv>: %v", tok)
					}
				}
			}
			for _, a := range tok.Attr {
				k := strings.ToLower(a.Key)
				if strings.HasPrefix(k, "on") || k == "href" || k == "src" || k == "srcset" || k == "action" ||
					k == "formaction" || k == "srcdoc" || k == "data" || k == "background" || k == "poster" ||
					k == "style" && !((tok.Data == "td" || tok.Data == "th") && strings.HasPrefix(a.Val, "text-align:")) {
					t.Fatalf("the page has <%s %s=%q>", tok.Data, a.Key, a.Val)
				}
				if strings.Contains(strings.ToLower(a.Val), "javascript:") {
					t.Fatalf("the page has <%s %s=%q>", tok.Data, a.Key, a.Val)
				}
			}
		}
	}
	if styles != 1 || scripts != 1 {
		t.Fatalf("the page has %d <style> and %d <script> elements, want its own one of each", styles, scripts)
	}
	return text.String()
}

// pageAttacks are share texts written to make the page run, load or link
// something, or to break out of its markup.
var pageAttacks = []string{
	`<script>alert("x")</script>`,
	`<img src=x onerror="alert(1)">`,
	`Look: <img src=x onerror=alert(1)> inline`,
	`</div></section><script src="https://evil.example/x.js"></script>`,
	`<a href="javascript:alert(1)">click</a>`,
	`[click me](javascript:alert(1))`,
	`![pixel](https://evil.example/track.png)`,
	"<div onclick=\"alert(1)\">\n\n**inside a raw block**\n\n</div>",
	"<style>body{display:none}</style>",
	"<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
	"<meta http-equiv=refresh content=\"0;url=https://evil.example\">",
	"<form action=https://evil.example><button formaction=x>go</button></form>",
	"| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | [x](javascript:alert(1)) |",
	"- [ ] <input onfocus=alert(1) autofocus>",
	"```html\n<iframe src=\"https://evil.example\"></iframe>\n```",
	"# Title {onclick=alert(1)}",
}

// A share's texts are Markdown, rendered inertly: headings, bold, tables
// and code show as such, and no attack text becomes live markup, however
// it is placed (any entry kind, the title, the tool fields) — yet every
// attack is still there to read.
func TestSharePageRendersInertMarkdown(t *testing.T) {
	h := newHarness(t, "sqlite")
	s := mustPut(t, h.A, rec("md-1", 1))
	snap := api.ShareSnapshot{Title: `<script>alert("title")</script>`, Runtime: `<b>agent</b>`, CreatedAt: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC),
		Entries: []api.ShareEntry{{Kind: api.EntryAssistant, Text: "## Result\n\nThis is **bold** and `code`.\n\n| file | lines |\n|:--|--:|\n| a\\|b.md | 12 |\n\n```go\nfmt.Println(\"<hi>\")\n```\n\n> quoted"}}}
	for _, x := range pageAttacks {
		for _, kind := range []string{api.EntryUser, api.EntryAssistant, api.EntryThought, api.EntryPlan} {
			snap.Entries = append(snap.Entries, api.ShareEntry{Kind: kind, Text: x})
		}
		snap.Entries = append(snap.Entries, api.ShareEntry{Kind: api.EntryTool, Text: x, Title: x, ToolKind: x, Status: x})
	}
	sh := mustShare(t, h.A, s.ID, snap)
	st, hdr, page := getPage(t, h, path(t, sh.URL), "")
	if st != 200 || hdr.Get("Content-Security-Policy") == "" {
		t.Fatalf("page: %d, CSP %q", st, hdr.Get("Content-Security-Policy"))
	}
	text := checkPage(t, page)
	for _, want := range []string{
		"<h2>Result</h2>", "<strong>bold</strong>", "<code>code</code>", "<table>", `<th style="text-align:left">file</th>`,
		"a|b.md</td>", `<pre><code class="language-go">fmt.Println(&quot;&lt;hi&gt;&quot;)`, "<blockquote>",
		`<h1>&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;</h1>`, "Agent: &lt;b&gt;agent&lt;/b&gt;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"## Result", "**bold**", "|:--|"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page shows the Markdown syntax %q", bad)
		}
	}
	for _, want := range []string{`<script>alert("x")</script>`, `<img src=x onerror="alert(1)">`, "click me (javascript:alert(1))",
		"[image: pixel] (https://evil.example/track.png)", "<style>body{display:none}</style>", "<form action=https://evil.example>"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show the text %q", want)
		}
	}
}

// Huge tables, deeply nested lists and quotes, and a share near the body
// limit are shown (as text where rendering would cost too much) quickly
// and at about their own size.
func TestSharePageCostlyTexts(t *testing.T) {
	h := newHarness(t, "sqlite")
	s := mustPut(t, h.A, rec("big-1", 1))
	var nested strings.Builder
	for i := range 600 {
		nested.WriteString(strings.Repeat("  ", i) + "- level\n")
	}
	wide := "|" + strings.Repeat("a|", 20000) + "\n|" + strings.Repeat("-|", 20000) + "\n" + strings.Repeat("|x\n", 20000)
	snap := api.ShareSnapshot{Title: "big", CreatedAt: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), Entries: []api.ShareEntry{
		{Kind: api.EntryAssistant, Text: wide},
		{Kind: api.EntryAssistant, Text: strings.Repeat(">", 100000) + " deep quote"},
		{Kind: api.EntryAssistant, Text: nested.String()},
		{Kind: api.EntryAssistant, Text: "|a|b|\n|-|-|\n" + strings.Repeat("|1|2|\n", 3000)},
	}}
	for range 3 { // past the page's Markdown budget
		snap.Entries = append(snap.Entries, api.ShareEntry{Kind: api.EntryUser, Text: strings.Repeat("**word** ", 100000)})
	}
	sh := mustShare(t, h.A, s.ID, snap)
	in := 0
	for _, e := range snap.Entries {
		in += len(e.Text)
	}
	start := time.Now()
	st, _, page := getPage(t, h, path(t, sh.URL), "")
	took := time.Since(start)
	if st != 200 {
		t.Fatalf("page: %d", st)
	}
	if len(page) > 6*in {
		t.Errorf("the page is %d bytes for %d bytes of text", len(page), in)
	}
	if took > 20*time.Second {
		t.Errorf("the page took %v", took)
	}
	text := checkPage(t, page)
	for _, want := range []string{"deep quote", "level", "**word**"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	if !strings.Contains(page, "<td>1</td>") || !strings.Contains(page, "<strong>word</strong>") {
		t.Error("the table and the first long text within bounds are not rendered")
	}
}

// The page speaks the viewer's language (Accept-Language: any Chinese →
// zh-CN, else English): <html lang>, labels, dates, the 404 page.
func TestSharePageLanguage(t *testing.T) {
	h := newHarness(t, "sqlite")
	s := mustPut(t, h.A, rec("lang-1", 1))
	snap := api.ShareSnapshot{Title: "整理笔记", Runtime: "qwen-code", CreatedAt: time.Date(2026, 12, 1, 15, 4, 0, 0, time.UTC),
		Entries: []api.ShareEntry{
			{Kind: api.EntryUser, Text: "请把 **todo.md** 整理一下"},
			{Kind: api.EntryThought, Text: "先读文件。"},
			{Kind: api.EntryTool, Title: "Edit todo.md", ToolKind: "edit", Status: "completed", Text: "- edits `todo.md`"},
			{Kind: api.EntryPlan, Text: "- [x] 读取\n- [ ] 整理"},
			{Kind: api.EntryQuestion, Title: "按什么排序？<b>", Status: "accept", Text: "- 排序: 日期\n"},
			{Kind: api.EntryAssistant, Text: "完成了。"},
		}}
	sh, err := h.A.CreateShare(t.Context(), api.CreateShareRequest{SessionID: s.ID, Snapshot: snap, ExpiresAt: time.Now().Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	p := path(t, sh.URL)

	for _, c := range []struct {
		accept     string
		lang       string
		want, none []string
	}{
		{"zh-CN,zh;q=0.9,en;q=0.8", "zh-CN",
			[]string{">你<", ">智能体<", "<summary>思考过程</summary>", "工具调用 · 编辑", `<span class="badge">已完成</span>`, ">计划<",
				"智能体：qwen-code", `开始于 <time datetime="2026-12-01T15:04:00Z">2026年12月1日 15:04 UTC</time>`,
				"分享于 <time datetime=\"" + time.Now().UTC().Format("2006-"), ` UTC</time> 到期`,
				"这是从 mnote 分享的只读快照", "<title>整理笔记 · mnote</title>", `disabled="" type="checkbox"`,
				`<section class="entry question"><div class="who">智能体提问</div>`, `按什么排序？&lt;b&gt;<span class="badge">已回答</span>`, "<li>排序: 日期</li>"},
			[]string{">You<", "Assistant", "Shared ", "Expires", "read-only snapshot"}},
		{"zh-TW", "zh-CN", []string{">你<", "分享于"}, []string{">You<"}},
		{"", "en", []string{">You<", ">Assistant<", "<summary>Thought</summary>", "Tool call · edit", `<span class="badge">completed</span>`,
			">Plan<", `<div class="who">The agent asked</div>`, `<span class="badge">Answered</span>`, "Agent: qwen-code", `Started <time datetime="2026-12-01T15:04:00Z">1 Dec 2026 15:04 UTC</time>`, "Shared <time ", "Expires <time ", "A read-only snapshot shared from mnote"},
			[]string{"分享于", ">你<"}},
		{"fr-FR,de;q=0.8", "en", []string{">You<"}, []string{">你<"}},
		{"en-US,zh;q=0.5", "en", []string{">You<"}, []string{">你<"}},
	} {
		st, hdr, page := getPage(t, h, p, c.accept)
		if st != 200 || !strings.Contains(page, `<html lang="`+c.lang+`">`) || !strings.Contains(hdr.Get("Vary"), "Accept-Language") {
			t.Fatalf("%q: %d, Vary %q, want <html lang=%q>:\n%.400s", c.accept, st, hdr.Get("Vary"), c.lang, page)
		}
		checkPage(t, page)
		// The one script the page runs is allowed by its hash, nothing else.
		if csp := hdr.Get("Content-Security-Policy"); csp != controlplane.PageCSP || !strings.Contains(csp, "script-src 'sha256-") ||
			strings.Count(csp, "'unsafe-inline'") != 1 || strings.Contains(csp, "unsafe-eval") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%q: CSP %q", c.accept, csp)
		}
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%q: the page lacks %q", c.accept, w)
			}
		}
		for _, w := range c.none {
			if strings.Contains(page, w) {
				t.Errorf("%q: the page has %q", c.accept, w)
			}
		}
	}

	// The CSS has the platform CJK fonts and wraps Chinese.
	_, _, page := getPage(t, h, p, "zh")
	for _, w := range []string{`"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif`, "overflow-wrap: anywhere", "line-break: auto"} {
		if !strings.Contains(page, w) {
			t.Errorf("the CSS lacks %q", w)
		}
	}

	// The 404 page, for a malformed token and for a revoked share.
	if err := h.A.DeleteShare(t.Context(), sh.ID); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{p, "/s/short"} {
		st, _, page := getPage(t, h, q, "zh-CN")
		if st != 404 || !strings.Contains(page, `<html lang="zh-CN">`) || !strings.Contains(page, "此分享不可用") || !strings.Contains(page, "<title>未找到分享 · mnote</title>") {
			t.Errorf("%s in Chinese: %d\n%s", q, st, page)
		}
		st, _, page = getPage(t, h, q, "en")
		if st != 404 || !strings.Contains(page, `<html lang="en">`) || !strings.Contains(page, "This share is not available") {
			t.Errorf("%s in English: %d\n%s", q, st, page)
		}
		checkPage(t, page)
	}
}

// The share page shows a paragraph's line breaks as the sharer's setting
// says: as line breaks by default, joined (CJK with nothing between) when
// strict.
func TestSharePageLineBreaks(t *testing.T) {
	h := newHarness(t, "sqlite")
	s := mustPut(t, h.A, rec("lb-1", 1))
	for _, strict := range []bool{false, true} {
		snap := api.ShareSnapshot{Title: "断行", CreatedAt: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), StrictBreaks: strict, Entries: []api.ShareEntry{{Kind: api.EntryAssistant, Text: "命中率。\n第一次"}}}
		sh := mustShare(t, h.A, s.ID, snap)
		_, _, page := getPage(t, h, path(t, sh.URL), "")
		want := "命中率。<br>\n第一次"
		if strict {
			want = "命中率。第一次"
		}
		if !strings.Contains(page, want) {
			t.Errorf("strict %v: the page lacks %q:\n%s", strict, want, page)
		}
	}
}
