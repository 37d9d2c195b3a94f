package workspace_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mnote/workspace"
)

// The two lost-word reproductions of issue 23, at the workspace's level
// (e2e/web and the window script do them as a person does).

const (
	cacheNote = "# 缓存设计\n\n## 目标\n\n- 命中率达到 90%。\n- 第一次访问不超过 200 ms。\n\n## 待办\n\n- 写压测脚本。\n"
	typedLine = "- 周五前给出方案（我正在写，还没保存）。\n"
)

// Autosave off: the person types a line and does not save; the agent
// reads the note (the unsaved buffer), asks with a diff computed from the
// saved file and writes content without the typed line. Before Allow the
// preview shows the line going (against the editor, not the agent's
// claim); after it the turn's checkpoint has the editor's text as the
// file's before, so Reject and Revert give the typed line back.
func TestUnsavedLineAnAgentDropsIsShownAndRecoverable(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	p := filepath.Join(dir, "缓存设计.md")
	write(t, p, cacheNote)
	cps, bs := w.Checkpoints(), w.Buffers()
	if _, err := bs.Open("缓存设计.md"); err != nil {
		t.Fatal(err)
	}
	must(t, cps.BeginTurn("turn-1"))
	mine := cacheNote + typedLine
	if _, err := bs.Update("缓存设计.md", mine, true); err != nil {
		t.Fatal(err)
	}
	fsys := w.AgentFS(workspace.Hooks{Reader: "s1"})
	if got, err := fsys.ReadTextFile(t.Context(), p, nil, nil); err != nil || got != mine {
		t.Fatalf("agent read %q (%v), want the unsaved buffer", got, err)
	}
	theirs := cacheNote + "- 补充监控指标。\n"

	pv, err := w.PreviewAgentWrite("s1", p, cacheNote, true, theirs)
	must(t, err)
	if pv.Current != mine || !pv.Unsaved || !pv.Differs {
		t.Errorf("preview current %q unsaved %v differs %v, want the editor's text, unsaved, differs", pv.Current, pv.Unsaved, pv.Differs)
	}
	if !slices.Equal(pv.Lost, []string{strings.TrimSuffix(typedLine, "\n")}) {
		t.Errorf("preview lost %q, want the typed line", pv.Lost)
	}
	if d := workspace.UnifiedDiff("a", "b", pv.Current, pv.Result); !strings.Contains(d, "-"+typedLine) {
		t.Errorf("preview diff does not show the typed line removed:\n%s", d)
	}

	ev := collect(w)
	must(t, fsys.WriteTextFile(t.Context(), p, theirs))
	// The editor is told which of the person's unsaved lines went, and
	// what it held before, so the page can say so and put them back.
	be := ev.waitBuffer(t, "缓存设计.md", workspace.BufferWritten)
	if !slices.Equal(be.Dropped, []string{strings.TrimSuffix(typedLine, "\n")}) || be.Previous != mine || be.PreviousDisk != cacheNote {
		t.Errorf("written event dropped %q previous %q, want the typed line and the editor's text", be.Dropped, be.Previous)
	}
	cp, err := cps.EndTurn("turn-1")
	must(t, err)
	diffs, err := cps.Changes("turn-1")
	must(t, err)
	if len(cp.Files) != 1 || len(diffs) != 1 || !strings.Contains(diffs[0].Diff, "-"+typedLine) {
		t.Fatalf("the turn's changes %+v do not show the typed line removed", diffs)
	}
	if _, err := cps.Revert("turn-1"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != mine {
		t.Errorf("after Revert the note is %q, want the person's text %q", got, mine)
	}
}

// Autosave on: the person types a line at the end and it is saved; the
// agent, which never read the note, writes content computed before that
// line existed. The write is merged: the line stays, on disk and in the
// editor.
func TestSavedLineSurvivesStaleAgentWrite(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	p := filepath.Join(dir, "plan.md")
	write(t, p, "# 计划\n\n- 第一步：读代码。\n- 第二步：写测试。\n")
	cps, bs := w.Checkpoints(), w.Buffers()
	if _, err := bs.Open("plan.md"); err != nil {
		t.Fatal(err)
	}
	must(t, cps.BeginTurn("turn-1"))
	saved := "# 计划\n\n- 第一步：读代码。\n- 第二步：写测试。\n- 第三步：我刚加的一行。\n"
	if _, err := bs.Update("plan.md", saved, true); err != nil {
		t.Fatal(err)
	}
	if _, err := bs.Save("plan.md"); err != nil {
		t.Fatal(err)
	}
	fsys := w.AgentFS(workspace.Hooks{Reader: "s1"})
	stale := "# 计划（已审）\n\n- 第一步：读代码。\n- 第二步：写测试。\n"
	want := "# 计划（已审）\n\n- 第一步：读代码。\n- 第二步：写测试。\n- 第三步：我刚加的一行。\n"
	pv, err := w.PreviewAgentWrite("s1", p, "", false, stale)
	must(t, err)
	if pv.Result != want || len(pv.Lost) != 0 {
		t.Errorf("preview result %q lost %q, want %q and nothing lost", pv.Result, pv.Lost, want)
	}
	must(t, fsys.WriteTextFile(t.Context(), p, stale))
	if got := read(t, p); got != want {
		t.Errorf("disk %q, want the merge %q", got, want)
	}
	if st, _ := bs.Get("plan.md"); st.Content != want || st.Dirty || st.Conflict {
		t.Errorf("editor %+v, want the merge, clean", st)
	}
	// What the agent wrote (merged) is what it now knows: a second write
	// from it is merged from there.
	must(t, fsys.WriteTextFile(t.Context(), p, strings.Replace(want, "读代码", "读代码和文档", 1)))
	if got := read(t, p); !strings.Contains(got, "我刚加的一行") || !strings.Contains(got, "读代码和文档") {
		t.Errorf("second write: disk %q", got)
	}
	_, err = cps.EndTurn("turn-1")
	must(t, err)
}

// A stale write that changes the very lines the person saved is a real
// conflict: the disk gets the agent's text, the open editor keeps the
// person's and shows both sides, and the turn's checkpoint has the
// person's text as before (Reject gives it back).
func TestStaleAgentWriteOverSavedLinesConflicts(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	p := filepath.Join(dir, "plan.md")
	write(t, p, "a\nb\n")
	cps, bs := w.Checkpoints(), w.Buffers()
	if _, err := bs.Open("plan.md"); err != nil {
		t.Fatal(err)
	}
	ev := collect(w)
	must(t, cps.BeginTurn("turn-1"))
	saved := "a\nb\nmine\n"
	if _, err := bs.Update("plan.md", saved, true); err != nil {
		t.Fatal(err)
	}
	if _, err := bs.Save("plan.md"); err != nil {
		t.Fatal(err)
	}
	fsys := w.AgentFS(workspace.Hooks{Reader: "s1"})
	pv, err := w.PreviewAgentWrite("s1", p, "a\nb\n", true, "a\nb\ntheirs\n")
	must(t, err)
	if !pv.Conflict || pv.Result != saved {
		t.Errorf("preview %+v, want a conflict keeping the person's text", pv)
	}
	must(t, fsys.WriteTextFile(t.Context(), p, "a\nb\ntheirs\n"))
	be := ev.waitBuffer(t, "plan.md", workspace.BufferConflict)
	if be.Buffer.Content != saved || !be.Buffer.Conflict {
		t.Fatalf("editor %+v, want the person's text in conflict", be.Buffer)
	}
	if th, err := bs.Theirs("plan.md"); err != nil || th != "a\nb\ntheirs\n" {
		t.Errorf("theirs %q (%v), want the agent's write", th, err)
	}
	_, err = cps.EndTurn("turn-1")
	must(t, err)
	diffs, err := cps.Changes("turn-1")
	must(t, err)
	if len(diffs) != 1 || !strings.Contains(diffs[0].Diff, "-mine\n") {
		t.Fatalf("changes %+v, want the person's line as removed by the turn", diffs)
	}
	if _, err := cps.Revert("turn-1"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != saved {
		t.Errorf("after Revert %q, want %q", got, saved)
	}
}

// An agent that read the note in an earlier turn and writes from that
// read keeps what the person saved between the two turns.
func TestAgentWriteMergesFromItsLastRead(t *testing.T) {
	w, dir, _ := cpWorkspace(t)
	p := filepath.Join(dir, "n.md")
	write(t, p, "one\ntwo\nthree\n")
	cps := w.Checkpoints()
	fsys := w.AgentFS(workspace.Hooks{Reader: "s1"})
	must(t, cps.BeginTurn("t1"))
	if _, err := fsys.ReadTextFile(t.Context(), p, ptr(1), ptr(1)); err != nil {
		t.Fatal(err)
	}
	_, err := cps.EndTurn("t1")
	must(t, err)
	// Between the turns another program (or the person) adds a line.
	write(t, p, "one\ntwo\nthree\nfour (mine)\n")
	must(t, cps.BeginTurn("t2"))
	must(t, fsys.WriteTextFile(t.Context(), p, "ONE\ntwo\nthree\n"))
	_, err = cps.EndTurn("t2")
	must(t, err)
	if got := read(t, p); got != "ONE\ntwo\nthree\nfour (mine)\n" {
		t.Errorf("disk %q, want the agent's change and the person's line", got)
	}
	// Another session's agent never read it: its base is the turn's start.
	other := w.AgentFS(workspace.Hooks{Reader: "s2"})
	must(t, cps.BeginTurn("t3"))
	must(t, other.WriteTextFile(t.Context(), p, "ONE\ntwo\nthree\nfour (mine)\nfive\n"))
	_, err = cps.EndTurn("t3")
	must(t, err)
	if got := read(t, p); got != "ONE\ntwo\nthree\nfour (mine)\nfive\n" {
		t.Errorf("disk %q", got)
	}
	must(t, os.Remove(p))
}
