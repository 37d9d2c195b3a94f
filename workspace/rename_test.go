package workspace_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"mnote/workspace"
)

// The rename under Rename and Restore never replaces what is at the
// target, even when it appeared after their check: here the check is
// skipped, as if the target had been created in between.
func TestMoveNoReplaceKeepsTheTarget(t *testing.T) {
	w, dir := open(t, workspace.Options{})
	for name, data := range map[string]string{"a.md": "mine", "b.md": "someone else's", "d/x.md": "x", "e/y.md": "y"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ from, to string }{
		{"a.md", "b.md"}, // a file onto a file
		{"d", "e"},       // a folder onto a folder
		{"a.md", "e"},    // a file onto a folder
	} {
		err := w.MoveNoReplaceForTest(c.from, c.to)
		if !errors.Is(err, fs.ErrExist) {
			t.Errorf("%s -> %s: %v, want an error wrapping fs.ErrExist", c.from, c.to, err)
		}
	}
	for name, want := range map[string]string{"a.md": "mine", "b.md": "someone else's", "d/x.md": "x", "e/y.md": "y"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	// A free target is taken.
	if err := w.MoveNoReplaceForTest("a.md", "d/a.md"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "d", "a.md")); err != nil || string(got) != "mine" {
		t.Errorf("moved file = %q, %v", got, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "a.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the source is still there: %v", err)
	}
}
