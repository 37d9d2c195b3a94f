package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"mnote/app"
	"mnote/internal/opener"
)

// A PDF a note links to opens in the desktop's program: the launcher gets
// the file's absolute path inside the folder. As an attacker: a program, a
// script, a desktop entry, a web page, a link out of the folder (named
// .pdf), a FIFO, a path with "..", an absolute path and mnote's own data
// are refused, and the launcher never runs for them.
func TestFilesOpenInApp(t *testing.T) {
	var mu sync.Mutex
	var opened []string
	fail := error(nil)
	h := newHarnessWith(t, func(c *app.Config) {
		c.OpenInApp = func(abs string) error {
			mu.Lock()
			defer mu.Unlock()
			if fail != nil {
				return fail
			}
			opened = append(opened, abs)
			return nil
		}
	})
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(h.ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("attachments/实验 报告.pdf", "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	write("attachments/Slides.PPTX", "PK\x03\x04")
	h.mustCall("files.openInApp", map[string]any{"path": "attachments/实验 报告.pdf"}, nil)
	h.mustCall("files.openInApp", map[string]any{"path": "attachments/Slides.PPTX"}, nil)
	want := []string{filepath.Join(h.ws, "attachments", "实验 报告.pdf"), filepath.Join(h.ws, "attachments", "Slides.PPTX")}
	if len(opened) != 2 || opened[0] != want[0] || opened[1] != want[1] {
		t.Fatalf("opened %q, want %q", opened, want)
	}

	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.pdf")
	if err := os.WriteFile(secret, []byte("%PDF-1.4"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(h.ws, "out.pdf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(h.ws, "outdir")); err != nil {
		t.Fatal(err)
	}
	write("run.sh", "#!/bin/sh\ntouch /tmp/pwned\n")
	write("evil.desktop", "[Desktop Entry]\nExec=sh -c id\n")
	write("page.html", "<script>alert(1)</script>")
	write("tool", "\x7fELF")
	write("folder.pdf/a.md", "# not a file\n")
	for _, tc := range []struct {
		path, reason string
	}{
		{"run.sh", app.ReasonNotOpenable},
		{"evil.desktop", app.ReasonNotOpenable},
		{"page.html", app.ReasonNotOpenable},
		{"tool", app.ReasonNotOpenable},
		{"out.pdf", app.ReasonOutsideFolder},
		{"outdir/secret.pdf", app.ReasonOutsideFolder},
		{"../secret.pdf", app.ReasonOutsideFolder},
		{secret, app.ReasonOutsideFolder},
		{"folder.pdf", app.ReasonNotRegularFile},
		{"missing.pdf", app.ReasonFileNotFound},
	} {
		e := h.call("files.openInApp", map[string]any{"path": tc.path}, nil)
		if e == nil || e.Reason != tc.reason {
			t.Errorf("%s: %+v, want reason %s", tc.path, e, tc.reason)
		}
	}
	if len(opened) != 2 {
		t.Fatalf("the launcher ran for a refused file: %q", opened)
	}

	// No desktop: said so, as a reason the page words.
	fail = opener.ErrNoDisplay
	if e := h.call("files.openInApp", map[string]any{"path": "attachments/实验 报告.pdf"}, nil); e == nil || e.Reason != app.ReasonNoOpener || !strings.Contains(e.Message, opener.ErrNoDisplay.Error()) {
		t.Errorf("without a desktop: %+v", e)
	}
}
