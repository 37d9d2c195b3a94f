package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"mnote/thread"
)

// questionSnapshot is a turn in which the agent asked a form question and
// the person answered it, and one it asked that was declined.
func questionSnapshot(message, secret string) thread.Snapshot {
	schema := `{"type":"object","properties":{
		"region":{"type":"string","title":"部署区域","oneOf":[{"const":"cn-east","title":"华东"},{"const":"cn-north","title":"华北"}]},
		"replicas":{"type":"integer","title":"副本数"},
		"confirm":{"type":"boolean","title":"确认"},
		"tags":{"type":"array","title":"标签","items":{"type":"string","enum":["a","b"],"enumNames":["甲","乙"]}},
		"token":{"type":"string"}}}`
	content := `{"token":"` + secret + `","confirm":true,"tags":["a","b"],"replicas":3,"region":"cn-east","extra":"多余"}`
	return thread.Snapshot{Entries: []thread.Entry{
		{ID: "e1", Kind: thread.EntryUserMessage, Turn: 1, Text: "部署"},
		{ID: "e2", Kind: thread.EntryQuestion, Turn: 1, Question: &thread.Question{
			Message: message, Schema: json.RawMessage(schema), Action: "accept", Content: json.RawMessage(content)}},
		{ID: "e3", Kind: thread.EntryQuestion, Turn: 1, Question: &thread.Question{Message: "再确认一次？", Action: "decline"}},
	}}
}

// An answered question stays in the Markdown export: what was asked,
// that it was answered, and each field by its title in the form's order,
// a choice by its title, yes/no and lists in the export's language.
func TestMarkdownExportHasQuestions(t *testing.T) {
	snap := questionSnapshot("部署到哪个区域？", "plain")
	var zh bytes.Buffer
	if err := Markdown(&zh, Session{ID: "s1"}, snap, Options{Locale: "zh-CN"}); err != nil {
		t.Fatal(err)
	}
	want := "**智能体提问** 部署到哪个区域？\n\n_已回答_\n- 部署区域：华东\n- 副本数：3\n- 确认：是\n- 标签：甲、乙\n- token：plain\n- extra：多余\n"
	if !strings.Contains(zh.String(), want) {
		t.Fatalf("zh export lacks the answered question:\n%s", zh.String())
	}
	if !strings.Contains(zh.String(), "**智能体提问** 再确认一次？\n\n_拒绝了回答_\n\n") {
		t.Fatalf("zh export lacks the declined question:\n%s", zh.String())
	}
	var en bytes.Buffer
	if err := Markdown(&en, Session{ID: "s1"}, snap, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(en.String(), "**The agent asked** 部署到哪个区域？\n\n_Answered_\n") || !strings.Contains(en.String(), "- 确认: yes\n- 标签: 甲, 乙\n") {
		t.Fatalf("en export:\n%s", en.String())
	}
}

// The HTML export shows a hostile question and answer as text, loads and
// runs nothing; a redacted export hides a secret typed as an answer.
func TestHTMLExportQuestionInertAndRedacted(t *testing.T) {
	secret := "ghp_" + strings.Repeat("A1b2C3d4", 5)
	for _, o := range []Options{{}, {Redact: true}} {
		var b bytes.Buffer
		if err := HTML(&b, Session{ID: "s1", Workspace: "/w"}, questionSnapshot(hostile[0]+hostile[1], secret), o); err != nil {
			t.Fatal(err)
		}
		text := textOf(checkInert(t, b.Bytes()))
		for _, want := range []string{"The agent asked", hostile[0] + hostile[1], "Answered", "部署区域", "华东", "Declined to answer"} {
			if !strings.Contains(text, want) {
				t.Errorf("options %+v: %q is not shown", o, want)
			}
		}
		if got := strings.Contains(text, secret); got == o.Redact {
			t.Errorf("options %+v: the secret shown: %v", o, got)
		}
	}
}

// A share keeps a question as the page shows it: what was asked, what
// became of it (worded by the page in the viewer's language) and the
// answered fields, redacted.
func TestShareHasQuestions(t *testing.T) {
	secret := "ghp_" + strings.Repeat("A1b2C3d4", 5)
	s, err := Share(Session{ID: "s1", Workspace: "/w"}, questionSnapshot("部署到哪个区域？", secret), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, e := range s.Entries {
		if e.Kind == "question" {
			qs = append(qs, e.Title+"|"+e.Status+"|"+e.Text)
		}
	}
	if len(qs) != 2 || !strings.HasPrefix(qs[0], "部署到哪个区域？|accept|- 部署区域: 华东\n- 副本数: 3\n- 确认: yes\n- 标签: 甲, 乙\n- token: ") || qs[1] != "再确认一次？|decline|" {
		t.Fatalf("questions in the share: %q", qs)
	}
	if strings.Contains(qs[0], secret) {
		t.Fatalf("the share has the secret: %q", qs[0])
	}
}
