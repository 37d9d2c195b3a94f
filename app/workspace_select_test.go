package app_test

import (
	"os"
	"path/filepath"
	"testing"

	"mnote/app"
)

// `mnote ~/notes/日记/今天.md`: the folder opens and the page is told, once,
// to open that note; a second launch can name another one; anything that
// is not a Markdown file inside the folder is refused.
func TestWorkspaceSelectsTheNoteGivenAtStart(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, func(cfg *app.Config) {
		note := filepath.Join(cfg.Workspace, "日记", "今天.md")
		if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(note, []byte("# 今天\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg.Select = note
	})
	var info app.WorkspaceInfo
	h.mustCall("workspace.get", struct{}{}, &info)
	if info.Select != "日记/今天.md" {
		t.Fatalf("first workspace.get: select %q, want 日记/今天.md", info.Select)
	}
	info = app.WorkspaceInfo{}
	h.mustCall("workspace.get", struct{}{}, &info)
	if info.Select != "" {
		t.Fatalf("the note is named once; the second workspace.get says %q", info.Select)
	}

	// A second launch: workspace.open with select.
	other := filepath.Join(info.Dir, "b.md")
	if err := os.WriteFile(other, []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.mustCall("workspace.open", map[string]string{"dir": info.Dir, "select": other}, nil)
	info = app.WorkspaceInfo{}
	h.mustCall("workspace.get", struct{}{}, &info)
	if info.Select != "b.md" {
		t.Fatalf("after a second launch: select %q, want b.md", info.Select)
	}

	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	txt := filepath.Join(info.Dir, "a.txt")
	if err := os.WriteFile(txt, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{outside, txt, filepath.Join(info.Dir, "missing.md"), filepath.Join(info.Dir, "..", "x.md")} {
		if err := h.call("workspace.open", map[string]string{"dir": info.Dir, "select": bad}, nil); codeOf(err) != app.CodeBadRequest {
			t.Errorf("select %s: %v, want bad_request", bad, err)
		}
	}
	info = app.WorkspaceInfo{}
	h.mustCall("workspace.get", struct{}{}, &info)
	if info.Select != "" {
		t.Fatalf("a refused select was kept: %q", info.Select)
	}
}

// A note outside the folder given at start is not selected (and the app
// starts anyway).
func TestWorkspaceIgnoresAStartNoteOutsideTheFolder(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "x.md")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, func(cfg *app.Config) { cfg.Select = outside })
	var info app.WorkspaceInfo
	h.mustCall("workspace.get", struct{}{}, &info)
	if info.Dir == "" || info.Select != "" {
		t.Fatalf("workspace.get: %+v", info)
	}
}
