package l10n

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// Both catalogues have the same keys, each with the same fmt verbs in the
// same order, and no message is empty.
func TestCataloguesMatch(t *testing.T) {
	enKeys, zhKeys := slices.Sorted(maps.Keys(en)), slices.Sorted(maps.Keys(zh))
	if !slices.Equal(enKeys, zhKeys) {
		for _, k := range enKeys {
			if _, ok := zh[k]; !ok {
				t.Errorf("zh-CN lacks %q", k)
			}
		}
		for _, k := range zhKeys {
			if _, ok := en[k]; !ok {
				t.Errorf("en lacks %q", k)
			}
		}
	}
	key := regexp.MustCompile(`^[a-z]+\.[a-z_]+$`)
	for k, e := range en {
		z := zh[k]
		if !key.MatchString(k) {
			t.Errorf("key %q is not <page>.<snake_case>", k)
		}
		if strings.TrimSpace(e) == "" || strings.TrimSpace(z) == "" {
			t.Errorf("%s is empty in a locale: %q / %q", k, e, z)
		}
		if ev, zv := verb.FindAllString(e, -1), verb.FindAllString(z, -1); !slices.Equal(ev, zv) {
			t.Errorf("%s: verbs %v in en, %v in zh-CN", k, ev, zv)
		}
		if strings.HasSuffix(k, "_one") {
			if _, ok := en[strings.TrimSuffix(k, "_one")+"_other"]; !ok {
				t.Errorf("%s has no _other form", k)
			}
		}
	}
}

// Chinese messages use full-width punctuation and a space between Chinese
// and Latin words or numbers.
func TestChinesePunctuation(t *testing.T) {
	for k, z := range zh {
		plain := verb.ReplaceAllString(z, "X")
		if strings.ContainsAny(plain, ",;:()!?") {
			t.Errorf("%s: half-width punctuation in %q", k, z)
		}
		rs := []rune(plain)
		for i := 1; i < len(rs); i++ {
			a, b := rs[i-1], rs[i]
			if unicode.Is(unicode.Han, a) && isLatin(b) || isLatin(a) && unicode.Is(unicode.Han, b) {
				t.Errorf("%s: no space between %q and %q in %q", k, a, b, z)
			}
		}
	}
}

// sameWords are words a Chinese message keeps as they are.
var sameWords = regexp.MustCompile(`\b(mnote|Markdown|UTC|Ctrl|C|JSON|HTML|env|agents|set|key|stdin)\b|--[a-z-]+`)

// No Chinese message is the English one left untranslated: one of today's
// messages put back in English fails here.
func TestChineseIsChinese(t *testing.T) {
	for k, e := range en {
		z := zh[k]
		rest := sameWords.ReplaceAllString(verb.ReplaceAllString(z, ""), "")
		if z == e && regexp.MustCompile(`[A-Za-z]{3,}`).MatchString(rest) {
			t.Errorf("%s is English in zh-CN: %q", k, z)
		}
		if regexp.MustCompile(`[A-Za-z]{2,}( [A-Za-z]{2,}){2,}`).MatchString(rest) {
			t.Errorf("%s: an English phrase in zh-CN: %q", k, z)
		}
	}
}

func isLatin(r rune) bool { return r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

func TestParseAndAcceptLanguage(t *testing.T) {
	for tag, want := range map[string]Locale{
		"zh": ZH, "zh-CN": ZH, "zh-TW": ZH, "zh_Hans_SG": ZH, "ZH-hk": ZH, "en": EN, "en-GB": EN, "fr": EN, "": EN, "zhx": EN,
	} {
		if got := Parse(tag); got != want {
			t.Errorf("Parse(%q) = %s, want %s", tag, got, want)
		}
	}
	for h, want := range map[string]Locale{
		"":                              EN,
		"zh-CN,zh;q=0.9,en;q=0.8":       ZH,
		"en-US,en;q=0.9,zh-CN;q=0.8":    EN,
		"fr-FR, zh;q=0.5":               ZH,
		"fr, de":                        EN,
		"en;q=0.3, zh-TW;q=0.7":         ZH,
		"zh;q=0, en":                    EN,
		"zh;q=abc, en;q=0.1":            EN,
		"*":                             EN,
		"zh-Hant-TW;q=0.8, en-GB;q=0.8": ZH,
		"  zh-cn  ":                     ZH,
	} {
		if got := FromAcceptLanguage(h); got != want {
			t.Errorf("FromAcceptLanguage(%q) = %s, want %s", h, got, want)
		}
	}
}

func TestMessagesAndDates(t *testing.T) {
	tm := time.Date(2026, 12, 1, 15, 4, 0, 0, time.FixedZone("CST", 8*3600))
	if got := EN.DateUTC(tm); got != "1 Dec 2026 07:04 UTC" {
		t.Errorf("EN.DateUTC = %q", got)
	}
	if got := ZH.DateUTC(tm); got != "2026年12月1日 07:04 UTC" {
		t.Errorf("ZH.DateUTC = %q", got)
	}
	if got := ZH.Date(tm); got != "2026年12月1日 15:04" {
		t.Errorf("ZH.Date = %q", got)
	}
	for _, c := range []struct{ got, want string }{
		{EN.N("export.turns", 1), "1 turn"},
		{EN.N("export.turns", 2), "2 turns"},
		{EN.N("export.turns", 0), "0 turns"},
		{ZH.N("export.turns", 1), "1 轮"},
		{EN.T("share.agent", "Claude"), "Agent: Claude"},
		{ZH.T("share.agent", "Claude"), "智能体：Claude"},
		{ZH.T("entry.thought"), "思考过程"},
		// No space around a Chinese value where it meets Chinese text.
		{ZH.T("export.meta_agent", "测试助手"), "智能体测试助手"},
		{ZH.T("export.meta_agent", "Claude"), "智能体 Claude"},
		{ZH.T("cli.auth_held_back", "测试助手", "A_KEY"), "测试助手没有拿到你环境中的这些变量（mnote 只把智能体自己服务商的密钥交给它）：A_KEY。"},
		{ZH.T("export.runtime_changed", "甲", "乙"), "智能体从甲切换为乙"},
		{EN.T("export.meta_agent", "测试助手"), "agent 测试助手"},
		{TidyCJK("打开 a笔记 吧", "a笔记"), "打开 a笔记吧"},
		{TidyCJK("x 测试 y", "测试"), "x 测试 y"},
		{TidyCJK("无法打开 笔记.md：x", "笔记.md"), "无法打开笔记.md：x"},
		{Locale("fr").T("entry.you"), "You"},
		{ZH.T("no.such_key"), "no.such_key"},
		{ZH.ToolKind("edit"), "编辑"},
		{ZH.ToolKind(""), "工具"},
		{ZH.ToolKind("teleport"), "teleport"},
		{EN.ToolStatus("in_progress"), "in progress"},
		{ZH.ToolStatus("completed"), "已完成"},
		{ZH.ToolStatus("weird"), "weird"},
		{ZH.ToolStatus(""), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestMoney(t *testing.T) {
	for _, c := range []struct {
		l        Locale
		amount   float64
		currency string
		want     string
	}{
		{EN, 0.07, "USD", "$0.07"},
		{EN, 0.0042, "usd", "$0.0042"},
		{EN, 0.00001, "USD", "$0.00"},
		{EN, 1234.5, "EUR", "€1,234.50"},
		{ZH, 0.1, "USD", "US$0.10"},
		{ZH, 12, "CNY", "¥12.00"},
		{EN, 3, "CHF", "CHF\u00a03.00"},
		{EN, -0.5, "USD", "-$0.50"},
	} {
		if got := c.l.Money(c.amount, c.currency); got != c.want {
			t.Errorf("%s Money(%v, %s) = %q, want %q", c.l, c.amount, c.currency, got, c.want)
		}
	}
}
