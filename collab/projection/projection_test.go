package projection

import (
	"encoding/json"
	"strings"
	"testing"

	"mnote/thread"
)

// The canaries stand for what must never leave the actor's machine: a
// mentioned note's contents, a quoted selection, a tool call's input,
// output, diff and locations, and (unless chosen) the agent's thoughts.
const (
	noteCanary    = "便签正文-CANARY-note-7f3a"
	selCanary     = "选中的文字-CANARY-sel-19bd"
	inputCanary   = "CANARY-rawInput-c0de"
	outputCanary  = "CANARY-rawOutput-5eed"
	diffCanary    = "差异内容-CANARY-diff-beef"
	pathCanary    = "/home/lilei/私人笔记/CANARY-path"
	thoughtCanary = "思考-CANARY-thought-aa11"
)

func actorThread(t *testing.T) *thread.Thread {
	t.Helper()
	th := thread.New()
	res, _ := json.Marshal(map[string]string{"uri": "file:///home/lilei/notes/缓存设计.md", "mimeType": "text/markdown", "text": noteCanary})
	th.AddUserPrompt([]thread.ContentBlock{
		{Type: "text", Text: "把缓存实验的结论写进 @缓存设计"},
		{Type: "text", Text: "Selected in 缓存设计.md (lines 1–2):\n```\n" + selCanary + "\n```"},
		{Type: "resource", Resource: res},
	})
	updates := []string{
		`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"` + thoughtCanary + `"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"编辑 缓存设计.md","kind":"edit","status":"pending",
		  "rawInput":{"path":"` + pathCanary + `","text":"` + inputCanary + `"},
		  "locations":[{"path":"` + pathCanary + `"}],
		  "content":[{"type":"diff","path":"` + pathCanary + `","oldText":"a","newText":"` + diffCanary + `"}]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","rawOutput":{"out":"` + outputCanary + `"},
		  "content":[{"type":"content","content":{"type":"text","text":"` + outputCanary + `"}}]}`,
		`{"sessionUpdate":"plan","entries":[{"content":"写结论","priority":"high","status":"completed"}]}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"已写入：命中率 82%。"}}`,
	}
	for _, s := range updates {
		var u thread.Update
		if err := json.Unmarshal([]byte(s), &u); err != nil {
			t.Fatalf("bad update %s: %v", s, err)
		}
		if _, err := th.Apply(&u); err != nil {
			t.Fatalf("Apply(%s): %v", s, err)
		}
	}
	return th
}

func TestProjectionKeepsPrivateThingsHome(t *testing.T) {
	th := actorThread(t)
	entries := th.Snapshot().Entries
	proj := append([]Entry{Prompt(1, "把缓存实验的结论写进 @缓存设计", []string{"/home/lilei/notes/缓存设计.md"})},
		Thread(entries, Options{})...)
	wire, err := json.Marshal(proj)
	if err != nil {
		t.Fatal(err)
	}
	earlier := Earlier(proj, func(int) string { return "lilei" })
	for _, c := range []string{noteCanary, selCanary, inputCanary, outputCanary, diffCanary, pathCanary, "/home/lilei", thoughtCanary} {
		if strings.Contains(string(wire), c) {
			t.Errorf("the projection carries %q:\n%s", c, wire)
		}
		if strings.Contains(earlier, c) {
			t.Errorf("the earlier-turns context carries %q:\n%s", c, earlier)
		}
	}
	// What members do see.
	var kinds []string
	for _, e := range proj {
		kinds = append(kinds, e.Kind)
	}
	if got, want := strings.Join(kinds, ","), "prompt,tool,plan,answer"; got != want {
		t.Fatalf("kinds = %s, want %s", got, want)
	}
	if got := proj[0].Mentions; len(got) != 1 || got[0] != "缓存设计.md" {
		t.Errorf("mentions = %q, want the note's name only", got)
	}
	tool := proj[1].Tool
	if tool == nil || tool.Title != "编辑 缓存设计.md" || tool.Kind != "edit" || tool.Status != "completed" || tool.Summary != "" {
		t.Errorf("tool = %+v, want title, kind and the final status only", tool)
	}
	if proj[3].Text != "已写入：命中率 82%。" {
		t.Errorf("answer = %q", proj[3].Text)
	}
	for _, want := range []string{"User lilei (turn 1):\n把缓存实验的结论写进 @缓存设计", "[mentions the notes: 缓存设计.md]", "Assistant (turn 1):\n已写入：命中率 82%。"} {
		if !strings.Contains(earlier, want) {
			t.Errorf("earlier turns lack %q:\n%s", want, earlier)
		}
	}
}

func TestProjectionWhatTheActorChoosesToShare(t *testing.T) {
	entries := actorThread(t).Snapshot().Entries
	proj := Thread(entries, Options{
		Thoughts: true,
		Summary: func(tc *thread.ToolCall) string {
			return "改了 " + pathCanary + " 的第 3 段"
		},
		Clean: func(s string) string { return strings.ReplaceAll(s, pathCanary, "…/CANARY-path") },
	})
	if proj[0].Kind != KindThought || proj[0].Text != thoughtCanary {
		t.Fatalf("first entry = %+v, want the shared thought", proj[0])
	}
	if s := proj[1].Tool.Summary; s != "改了 …/CANARY-path 的第 3 段" {
		t.Errorf("summary = %q, want the summary with the redactor applied", s)
	}
	if strings.Contains(mustJSON(t, proj), pathCanary) {
		t.Error("a shared summary kept the local path the redactor hides")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTranscriptBounds(t *testing.T) {
	long := strings.Repeat("缓存", MaxEarlierPerMsg) // 6 bytes a repeat: cut in the middle
	var msgs []Msg
	for i := range 40 {
		msgs = append(msgs, Msg{Who: "User", Turn: i + 1, Text: long})
	}
	out := Transcript("Intro:", msgs)
	if len(out) > MaxEarlierBytes+200 {
		t.Errorf("transcript is %d bytes, bound %d", len(out), MaxEarlierBytes)
	}
	if !strings.HasPrefix(out, "Intro:\n\n[") || !strings.Contains(out, "earlier messages left out]") {
		t.Errorf("transcript does not say what it left out: %.80q", out)
	}
	if !strings.Contains(out, "(turn 40)") || strings.Contains(out, "(turn 1):") {
		t.Error("the latest messages must be the ones kept")
	}
	if !strings.Contains(out, "bytes left out …]") {
		t.Error("a long message is not cut in its middle")
	}
	if !json.Valid([]byte(mustJSON(t, out))) || strings.ContainsRune(out, '\uFFFD') {
		t.Error("a cut split a character")
	}
	if Transcript("Intro:", []Msg{{Who: "User", Text: "  "}}) != "" {
		t.Error("messages without text make an empty transcript")
	}
}

// Invariants 6 and 7 of the sharing contract: a runtime binding is the
// actor's. The agent's own session id, a Hermes profile (its memory) and a
// Reasonix cache handle with its figures, whatever the thread recorded of
// them, never reach the projection or the context another member's agent
// is given.
func TestProjectionCarriesNoRuntimeBinding(t *testing.T) {
	const (
		profileCanary = "hermes-profile-CANARY-memory-31"
		cacheCanary   = "reasonix-cache-CANARY-handle-77"
		sessionCanary = "agent-session-CANARY-9f1e"
	)
	th := thread.New()
	th.AddUserPrompt([]thread.ContentBlock{{Type: "text", Text: "继续"}})
	th.AddBinding("reasonix", "new", "")
	th.AddBinding("hermes", "new", "profile "+profileCanary)
	th.AddBinding("reasonix", "new_fallback", "session "+sessionCanary)
	for _, s := range []string{
		`{"sessionUpdate":"usage_update","used":1200,"size":128000,"cost":{"amount":0.01,"currency":"USD"},
		  "_meta":{"reasonix":{"cacheHandle":"` + cacheCanary + `","cacheHitTokens":1024}}}`,
		`{"sessionUpdate":"session_info_update","title":"缓存","_meta":{"hermes":{"profile":"` + profileCanary + `"}}}`,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"好的。"}}`,
	} {
		var u thread.Update
		if err := json.Unmarshal([]byte(s), &u); err != nil {
			t.Fatalf("bad update %s: %v", s, err)
		}
		if _, err := th.Apply(&u); err != nil {
			t.Fatalf("Apply(%s): %v", s, err)
		}
	}
	snap := th.Snapshot()
	if raw, _ := json.Marshal(snap); !strings.Contains(string(raw), profileCanary) || !strings.Contains(string(raw), sessionCanary) {
		t.Fatal("the test's thread does not hold the bindings: it tests nothing")
	}
	proj := append([]Entry{Prompt(1, "继续", nil)}, Thread(snap.Entries, Options{Thoughts: true})...)
	wire := mustJSON(t, proj) + Earlier(proj, nil)
	for _, c := range []string{profileCanary, cacheCanary, sessionCanary} {
		if strings.Contains(wire, c) {
			t.Errorf("the projection carries %q:\n%s", c, wire)
		}
	}
	if len(proj) != 2 || proj[1].Text != "好的。" {
		t.Errorf("projection = %+v, want the prompt and the answer", proj)
	}
}
