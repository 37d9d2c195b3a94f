// Package l10n is the message catalogue of the pages Go renders for
// people outside the app's window: the share page of mnote-controlplane,
// the Markdown and HTML exports, the window's native dialogs, and what
// `mnote prompt` asks and tells on a terminal (a permission request, the
// keys an agent that wants a login did not get), and the page `mnote
// serve` opens the browser on. (The window's own text
// lives in the frontend's Paraglide catalogue, frontend/messages.)
//
// A Locale is "en" or "zh-CN". Messages are looked up by key with
// Locale.T, fmt-style arguments filled in; Locale.N picks a key's plural
// form ("<key>_one" for 1 in English, else "<key>_other"). Both locales
// have exactly the same keys, each with the same fmt verbs (a test checks
// it); a key missing from the catalogue is shown as itself, so a mistake
// is visible rather than blank. Dates are written the way each language
// writes them: "1 Dec 2026 15:04" and "2026年12月1日 15:04".
package l10n

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Locale is a language of the catalogue.
type Locale string

// The locales.
const (
	EN Locale = "en"
	ZH Locale = "zh-CN"
)

// Locales are the locales of the catalogue, English (the default) first.
var Locales = []Locale{EN, ZH}

// Parse is the locale for a BCP 47 tag: any Chinese ("zh", "zh-CN",
// "zh-Hans-SG", "zh_TW") is zh-CN, everything else (and "") English.
func Parse(tag string) Locale {
	if l, ok := match(tag); ok {
		return l
	}
	return EN
}

// match is the locale of a tag, when the catalogue has its language.
func match(tag string) (Locale, bool) {
	tag = strings.ToLower(strings.TrimSpace(tag))
	lang, _, _ := strings.Cut(strings.ReplaceAll(tag, "_", "-"), "-")
	switch lang {
	case "zh":
		return ZH, true
	case "en":
		return EN, true
	}
	return "", false
}

// FromAcceptLanguage is the locale for an Accept-Language header: the
// most preferred language (by q, then order) that the catalogue has;
// English when none is.
func FromAcceptLanguage(header string) Locale {
	type pref struct {
		l Locale
		q float64
		i int
	}
	var prefs []pref
	for i, part := range strings.Split(header, ",") {
		tag, params, _ := strings.Cut(part, ";")
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 && f <= 1 {
					q = f
				} else {
					q = 0
				}
			}
		}
		if l, ok := match(tag); ok && q > 0 {
			prefs = append(prefs, pref{l, q, i})
		}
	}
	if len(prefs) == 0 {
		return EN
	}
	best := slices.MaxFunc(prefs, func(a, b pref) int {
		if a.q != b.q {
			if a.q > b.q {
				return 1
			}
			return -1
		}
		return b.i - a.i // the earlier wins a tie
	})
	return best.l
}

// catalogue returns the messages of l (English for an unknown locale).
func (l Locale) catalogue() map[string]string {
	if l == ZH {
		return zh
	}
	return en
}

// T is the message key in l, with args filled in (fmt verbs).
func (l Locale) T(key string, args ...any) string {
	msg, ok := l.lookup(key)
	if !ok {
		return key
	}
	if len(args) == 0 {
		return msg
	}
	out := fmt.Sprintf(msg, args...)
	if l == ZH {
		out = TidyCJK(out, args...)
	}
	return out
}

// TidyCJK drops the space between a Chinese value and the Chinese text it
// meets in a Chinese message ("智能体 %s" with 测试助手 is 智能体测试助手);
// a Latin or numeric value keeps its spaces (智能体 Claude, 第 3 轮). It is
// the frontend's tidyCJK (src/lib/i18n.svelte.ts), for Go's messages.
func TidyCJK(text string, args ...any) string {
	for _, a := range args {
		v, ok := a.(string)
		if !ok || v == "" {
			continue
		}
		first, _ := utf8.DecodeRuneInString(v)
		last, _ := utf8.DecodeLastRuneInString(v)
		if isCJK(first) {
			text = dropSpace(text, " "+v, true)
		}
		if isCJK(last) {
			text = dropSpace(text, v+" ", false)
		}
	}
	return text
}

// dropSpace removes the space of each "<space>v" (before) or "v<space>"
// (after) in text where a CJK character is on the space's other side.
func dropSpace(text, pat string, before bool) string {
	var b strings.Builder
	for {
		i := strings.Index(text, pat)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		var cjk bool
		if before {
			r, _ := utf8.DecodeLastRuneInString(text[:i])
			cjk = i > 0 && isCJK(r)
		} else {
			r, _ := utf8.DecodeRuneInString(text[i+len(pat):])
			cjk = i+len(pat) < len(text) && isCJK(r)
		}
		if !cjk {
			b.WriteString(text[:i+1])
			text = text[i+1:]
			continue
		}
		if before {
			b.WriteString(text[:i])
			b.WriteString(pat[1:])
		} else {
			b.WriteString(text[:i])
			b.WriteString(pat[:len(pat)-1])
		}
		text = text[i+len(pat):]
	}
}

// isCJK is the frontend's CJK range: radicals, kana, ideographs, CJK
// punctuation, compatibility ideographs and full-width forms.
func isCJK(r rune) bool {
	return r >= 0x2e80 && r <= 0x9fff || r >= 0xf900 && r <= 0xfaff || r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef
}

// N is the plural form of key for n ("<key>_one" or "<key>_other"), with
// n and then args filled in.
func (l Locale) N(key string, n int, args ...any) string {
	form := "_other"
	if n == 1 && l != ZH {
		form = "_one"
	}
	return l.T(key+form, append([]any{n}, args...)...)
}

// Date is t to the minute, in t's own location: "1 Dec 2026 15:04" in
// English, "2026年12月1日 15:04" in Chinese.
func (l Locale) Date(t time.Time) string {
	if l == ZH {
		return fmt.Sprintf("%d年%d月%d日 %s", t.Year(), int(t.Month()), t.Day(), t.Format("15:04"))
	}
	return t.Format("2 Jan 2006 15:04")
}

// DateUTC is t in UTC, to the minute, marked "UTC".
func (l Locale) DateUTC(t time.Time) string {
	return l.Date(t.UTC()) + " UTC"
}

// lookup is the message key in l (or in English), without arguments.
func (l Locale) lookup(key string) (string, bool) {
	if msg, ok := l.catalogue()[key]; ok {
		return msg, true
	}
	msg, ok := en[key]
	return msg, ok
}

// ToolKind is the name of an ACP tool kind ("edit", "execute" …) in l:
// "tool" for none, the kind itself for one the catalogue does not know.
func (l Locale) ToolKind(kind string) string {
	if kind == "" {
		return l.T("tool.kind")
	}
	if msg, ok := l.lookup("tool.kind_" + kind); ok {
		return msg
	}
	return kind
}

// ToolStatus is a tool call's status ("completed" …) in l, or the status
// itself for one the catalogue does not know.
func (l Locale) ToolStatus(status string) string {
	if msg, ok := l.lookup("tool.status_" + status); ok && status != "" {
		return msg
	}
	return status
}

// QuestionStatus is what became of an agent's question, from its action
// (accept, decline, cancel; "" while it waits), in l.
func (l Locale) QuestionStatus(action string) string {
	switch action {
	case "accept":
		return l.T("export.question_answered")
	case "decline":
		return l.T("export.question_declined")
	case "cancel":
		return l.T("export.question_cancelled")
	}
	return l.T("export.question_waiting")
}

// FromEnv is the system's language, as GTK and browsers take it: the
// first of LC_ALL, LC_MESSAGES and LANG that is set (English when none is).
func FromEnv() Locale {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(k); v != "" {
			return Parse(v)
		}
	}
	return EN
}
