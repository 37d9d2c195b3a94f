package app_test

import (
	"strings"
	"testing"

	"mnote/app"
)

// After a folder is renamed, notes.updateLinks rewrites, as one update with
// one undo, the links that pointed at any note in it and the links of its
// notes to notes outside; links between its own notes are left as they
// are, and the undo puts every text back byte for byte.
func TestUpdateLinksAfterAFolderRename(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	texts := map[string]string{
		"会议/会议记录.md":     "# 会议记录\n## 决定\n见 [首页](../home.md) 和 [[周会]]\n",
		"会议/周会.md":       "[r](会议记录.md#决定)\n",
		"home.md":        "看 [[会议记录#决定|决定]]，[w](会议/周会.md) 与 [[会议/周会]]\n",
		"journal/day.md": "[m](../%E4%BC%9A%E8%AE%AE/%E4%BC%9A%E8%AE%AE%E8%AE%B0%E5%BD%95.md)\n",
		"untouched.md":   "[[别的]]\n",
	}
	for p, text := range texts {
		h.writeNote(p, text)
	}
	if err := eventually(testWait, func() bool {
		var back []struct{ From string }
		h.mustCall("notes.backlinks", map[string]any{"path": "会议/会议记录.md"}, &back)
		return len(back) == 3
	}); err != nil {
		t.Fatal("the index never listed the backlinks")
	}
	h.mustCall("files.rename", map[string]any{"from": "会议", "to": "archive/2024 会议"}, nil)

	var dry app.LinksUpdated
	h.mustCall("notes.updateLinks", map[string]any{"from": "会议", "to": "archive/2024 会议", "dryRun": true}, &dry)
	if strings.Join(dry.Changed, ",") != "archive/2024 会议/会议记录.md,home.md,journal/day.md" || dry.Links != 4 || dry.Undo != nil {
		t.Fatalf("dry run %+v", dry)
	}
	if got := h.readNote("home.md"); got != texts["home.md"] {
		t.Fatalf("the dry run wrote home.md: %q", got)
	}

	from := h.rec.Len()
	var res app.LinksUpdated
	h.mustCall("notes.updateLinks", map[string]any{"from": "会议", "to": "archive/2024 会议"}, &res)
	if len(res.Changed) != 3 || res.Links != 4 || len(res.Skipped) != 0 || res.Undo == nil {
		t.Fatalf("update %+v", res)
	}
	want := map[string]string{
		"archive/2024 会议/会议记录.md": "# 会议记录\n## 决定\n见 [首页](../../home.md) 和 [[周会]]\n",
		"archive/2024 会议/周会.md":   texts["会议/周会.md"],
		// The bare name still finds its note; the path no longer does.
		"home.md":        "看 [[会议记录#决定|决定]]，[w](archive/2024%20会议/周会.md) 与 [[archive/2024 会议/周会]]\n",
		"journal/day.md": "[m](../archive/2024%20%E4%BC%9A%E8%AE%AE/%E4%BC%9A%E8%AE%AE%E8%AE%B0%E5%BD%95.md)\n",
		"untouched.md":   texts["untouched.md"],
	}
	for p, w := range want {
		if got := h.readNote(p); got != w {
			t.Errorf("%s = %q, want %q", p, got, w)
		}
	}
	// Recorded like the app's other writes: the watcher reports them with
	// the app's origin.
	if _, _, err := h.rec.Wait(ctxFor(t), from, func(ev app.RecordedEvent) bool {
		return ev.Name == app.EventWorkspaceChanged && strings.Contains(string(ev.Data), `"journal/day.md"`) && strings.Contains(string(ev.Data), `"origin":"app"`)
	}); err != nil {
		t.Errorf("the write was not reported: %v", err)
	}

	var undone struct{ Restored []string }
	h.mustCall("notes.undoUpdateLinks", map[string]any{"undo": res.Undo}, &undone)
	if len(undone.Restored) != 3 {
		t.Errorf("undo %+v", undone)
	}
	for p, text := range texts {
		p = strings.Replace(p, "会议/", "archive/2024 会议/", 1)
		if got := h.readNote(p); got != text {
			t.Errorf("%s after the undo = %q, want %q", p, got, text)
		}
	}

	// A folder that held no note linked from anywhere: nothing to offer.
	h.writeNote("empty/readme.md", "nothing links here\n")
	h.mustCall("files.rename", map[string]any{"from": "empty", "to": "still-empty"}, nil)
	h.mustCall("notes.updateLinks", map[string]any{"from": "empty", "to": "still-empty", "dryRun": true}, &dry)
	if len(dry.Changed) != 0 || dry.Links != 0 {
		t.Errorf("an unlinked folder: %+v", dry)
	}
}
