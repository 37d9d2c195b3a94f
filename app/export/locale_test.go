package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"mnote/thread"
)

func localeSnapshot() thread.Snapshot {
	snap := snapshotForOptions()
	snap.Entries = append(snap.Entries,
		thread.Entry{ID: "e6", Kind: thread.EntryRuntime, Turn: 2, Runtime: &thread.RuntimeChange{Previous: "claude-code", Runtime: "qwen-code"}},
		thread.Entry{ID: "e7", Kind: thread.EntryUserMessage, Turn: 2, Text: "## 标题\n\n**加粗**的中文"})
	return snap
}

// The HTML export words its labels and dates in the locale asked for,
// English by default, and its CSS has the CJK fonts.
func TestHTMLLocale(t *testing.T) {
	created := time.Date(2026, 12, 1, 15, 4, 0, 0, time.Local)
	sess := Session{ID: "s1", Title: "整理笔记", Runtime: "claude-code", Workspace: "/ws", CreatedMs: created.UnixMilli(), Turns: 2}
	render := func(locale string) string {
		var b bytes.Buffer
		if err := HTML(&b, sess, localeSnapshot(), Options{Redact: true, Locale: locale}); err != nil {
			t.Fatal(err)
		}
		checkInert(t, b.Bytes())
		return b.String()
	}
	zh := render("zh-CN")
	for _, want := range []string{
		`<html lang="zh-CN">`, "会话 <code>s1</code> · 智能体 claude-code · 创建于 2026年12月1日 15:04 · 2 轮",
		`<div class="who">你 · 第 1 轮</div>`, `<div class="who">智能体</div>`, "思考过程共 23 个字符（未包含）",
		`<span class="kind">编辑</span>`, `<span class="status s-completed">已完成</span>`, `<div class="who">计划</div>`,
		"编辑 <code>", "智能体从 claude-code 切换为 qwen-code", "从 mnote 导出。密钥和本地路径已脱敏。",
		"<h2>标题</h2>", "<strong>加粗</strong>的中文",
		`"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif`, "line-break: auto", "overflow-wrap: anywhere",
	} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh-CN export lacks %q", want)
		}
	}
	for _, bad := range []string{"You ·", ">Agent<", "Thought for", "Exported from", "turns"} {
		if strings.Contains(zh, bad) {
			t.Errorf("zh-CN export has %q", bad)
		}
	}
	if got := render("zh"); !strings.Contains(got, `<html lang="zh-CN">`) {
		t.Error(`Locale "zh" is not Chinese`)
	}
	for _, locale := range []string{"", "en", "fr"} {
		en := render(locale)
		for _, want := range []string{
			`<html lang="en">`, "Session <code>s1</code> · agent claude-code · created 1 Dec 2026 15:04 · 2 turns",
			`<div class="who">You · turn 1</div>`, `<div class="who">Agent</div>`, "Thought for 23 characters (not included)",
			`<span class="kind">edit</span>`, ">completed</span>", "agent changed from claude-code to qwen-code",
			"Exported from mnote on ", "Secrets and local paths were redacted.",
		} {
			if !strings.Contains(en, want) {
				t.Errorf("export in %q lacks %q", locale, want)
			}
		}
	}
	var b bytes.Buffer
	must(0, HTML(&b, Session{ID: "s2", Turns: 1}, thread.Snapshot{}, Options{}))
	if !strings.Contains(b.String(), "· 1 turn</p>") || !strings.Contains(b.String(), "<title>Session s2</title>") {
		t.Errorf("one turn, no title:\n%s", b.String())
	}
	b.Reset()
	must(0, HTML(&b, Session{ID: "s2", Turns: 1}, thread.Snapshot{}, Options{Locale: "zh-CN"}))
	if !strings.Contains(b.String(), "<title>会话 s2</title>") {
		t.Errorf("no title in Chinese:\n%s", b.String())
	}
}

// The Markdown export's labels follow the locale too; a share does not
// (the share page words its labels for its viewer).
func TestMarkdownLocale(t *testing.T) {
	sess := Session{ID: "s1", Runtime: "claude-code", Workspace: "/ws", CreatedMs: time.Date(2026, 12, 1, 15, 4, 0, 0, time.Local).UnixMilli(), Turns: 2}
	var b bytes.Buffer
	must(0, Markdown(&b, sess, localeSnapshot(), Options{Locale: "zh-CN", IncludeToolIO: true}))
	md := b.String()
	for _, want := range []string{
		"# 会话 s1\n", "- 会话：`s1`\n", "- 智能体：claude-code\n", "- 创建时间：2026年12月1日 15:04\n", "- 轮次：2\n", "- 工作区：`/ws`\n",
		"## 你（第 1 轮）", "### 智能体", "_(思考过程共 23 个字符)_", "- **编辑** `Edit note.md` — 已完成", "  - 位置 `/ws/note.md:2`",
		"  - 编辑 `/ws/note.md`", "  - 输入：", "  - 输出：", "**计划**", "_(智能体从 claude-code 切换为 qwen-code)_",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("zh-CN Markdown lacks %q:\n%s", want, md)
		}
	}
	b.Reset()
	must(0, Markdown(&b, sess, localeSnapshot(), Options{}))
	md = b.String()
	for _, want := range []string{"- Session: `s1`\n", "- Created: 1 Dec 2026 15:04\n", "- Turns: 2\n", "## You (turn 1)", "### Agent", "- **edit** `Edit note.md` — completed", "  - at `/ws/note.md:2`", "**Plan**"} {
		if !strings.Contains(md, want) {
			t.Errorf("English Markdown lacks %q:\n%s", want, md)
		}
	}
	s := must(Share(sess, localeSnapshot(), Options{Locale: "zh-CN"}))
	j := string(must(json.Marshal(s)))
	if !strings.Contains(j, "edits `") || strings.Contains(j, "编辑") {
		t.Errorf("share not in English: %s", j)
	}
}
