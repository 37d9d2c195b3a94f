package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// make install lays out what mnote expects: the command line in bin/, the
// window in lib/mnote/ (mnote looks in ../lib/mnote/), and a menu entry
// whose Exec names the installed mnote and keeps %f ("Open with mnote").
func TestInstallLaysOutCommandLineAndWindow(t *testing.T) {
	repo := t.TempDir()
	copyTree(t, scriptsDir(t), filepath.Join(repo, "scripts"))
	for _, d := range []string{"build/bin", "build/linux"} {
		if err := os.MkdirAll(filepath.Join(repo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	desktop, err := os.ReadFile(filepath.Join(scriptsDir(t), "..", "build", "linux", "mnote.desktop"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "build/linux/mnote.desktop"), string(desktop), 0o644)
	writeFile(t, filepath.Join(repo, "build/appicon.png"), "png", 0o644)
	writeFile(t, filepath.Join(repo, "build/bin/mnote"), "#!/bin/sh\necho cli\n", 0o755)
	writeFile(t, filepath.Join(repo, "build/bin/mnote-app"), "#!/bin/sh\necho app\n", 0o755)

	dest := t.TempDir()
	cmd := exec.CommandContext(t.Context(), "bash", "scripts/install.sh", "install")
	cmd.Dir = repo
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "PREFIX=/opt/mn", "DESTDIR=" + dest}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	for path, want := range map[string]string{"opt/mn/bin/mnote": "cli", "opt/mn/lib/mnote/mnote-app": "app"} {
		b, err := os.ReadFile(filepath.Join(dest, path))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v %q, want the %s binary", path, err, b, want)
		}
	}
	entry, err := os.ReadFile(filepath.Join(dest, "opt/mn/share/applications/mnote.desktop"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nExec=/opt/mn/bin/mnote %f\n", "\nTryExec=/opt/mn/bin/mnote\n", "\nMimeType=inode/directory;text/markdown;\n", "\nStartupWMClass=mnote\n"} {
		if !strings.Contains(string(entry), want) {
			t.Errorf("the installed entry lacks %q:\n%s", want, entry)
		}
	}
	if strings.Count(string(entry), "TryExec=") != 1 {
		t.Errorf("TryExec twice:\n%s", entry)
	}

	cmd = exec.CommandContext(t.Context(), "bash", "scripts/install.sh", "uninstall")
	cmd.Dir = repo
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "PREFIX=/opt/mn", "DESTDIR=" + dest}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	for _, p := range []string{"opt/mn/bin/mnote", "opt/mn/lib/mnote/mnote-app", "opt/mn/share/applications/mnote.desktop"} {
		if _, err := os.Stat(filepath.Join(dest, p)); err == nil {
			t.Errorf("%s left after uninstall", p)
		}
	}
}
