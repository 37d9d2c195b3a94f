package app_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"mnote/app"
)

// In the window, the save dialog of an export opens in the session's notes
// folder (else in Documents), suggests the name from the title, and the
// file is written where the user chose, worded in the locale asked for.
func TestExportSaveDialogFolderAndLocale(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	var (
		mu        sync.Mutex
		dirs      []string
		names     []string
		chosenDir = t.TempDir()
	)
	h := newHarnessWith(t, func(c *app.Config) {
		c.SaveFile = func(_ context.Context, _, dir, name string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			dirs, names = append(dirs, dir), append(names, name)
			return filepath.Join(chosenDir, name), nil
		}
	})
	sum := h.create("test")
	turn := h.prompt(sum.ID, "hello")
	h.waitTurnEnded(sum.ID, 0, turn)
	h.mustCall("sessions.rename", map[string]any{"id": sum.ID, "title": "整理 笔记"}, nil)

	var out app.Exported
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "html", "locale": "zh-CN"}, &out)
	if out.Content != "" || out.Path != filepath.Join(chosenDir, "整理-笔记.html") {
		t.Fatalf("exported %+v", out)
	}
	page, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<html lang="zh-CN">`, "你 · 第 1 轮", "从 mnote 导出"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the saved page lacks %q", want)
		}
	}
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "md"}, &out)
	md, err := os.ReadFile(out.Path)
	if err != nil || !strings.Contains(string(md), "## You (turn 1)") {
		t.Errorf("the English Markdown export: %v\n%s", err, md)
	}

	// The notes folder gone: Documents; no Documents either: the default.
	docs := filepath.Join(home, "Documents")
	if err := os.Mkdir(docs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(h.ws); err != nil {
		t.Fatal(err)
	}
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "jsonl"}, &out)
	if err := os.Remove(docs); err != nil {
		t.Fatal(err)
	}
	h.mustCall("sessions.export", map[string]any{"id": sum.ID, "format": "jsonl"}, &out)

	mu.Lock()
	defer mu.Unlock()
	if want := []string{h.ws, h.ws, docs, ""}; strings.Join(dirs, "|") != strings.Join(want, "|") {
		t.Errorf("the dialog opened in %q, want %q", dirs, want)
	}
	if names[0] != "整理-笔记.html" || names[2] != "整理-笔记.jsonl" {
		t.Errorf("suggested names %q", names)
	}
}
