//go:build !desktop

package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mnote/acp/acptest"
)

func TestMain(m *testing.M) { acptest.Main(m) }

func TestResolveTarget(t *testing.T) {
	cwd := t.TempDir()
	notes := filepath.Join(cwd, "notes")
	for _, d := range []string{notes, filepath.Join(cwd, "dir with space")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"notes/todo.md": "# todo\n", "notes/pic.png": "png", "README.MD": "x"} {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		arg     string
		want    target
		window  bool
		wantErr string
	}{
		{arg: "notes", want: target{Dir: notes}, window: true},
		{arg: notes + "/", want: target{Dir: notes}, window: true},
		{arg: "notes/../notes/todo.md", want: target{Dir: notes, File: filepath.Join(notes, "todo.md")}, window: true},
		{arg: "file://" + strings.ReplaceAll(filepath.Join(cwd, "dir with space"), " ", "%20"), want: target{Dir: filepath.Join(cwd, "dir with space")}, window: true},
		{arg: "README.MD", want: target{Dir: cwd, File: filepath.Join(cwd, "README.MD")}, window: true},
		{arg: "frobnicate"}, // an unknown command: cli says so
		{arg: "notes/gone.md", wantErr: "no such folder or file"}, // a path: say it is not there
		{arg: "gone/", wantErr: "no such folder or file"},
		{arg: "notes/pic.png", wantErr: "not a folder or a Markdown file"},
	}
	for _, c := range cases {
		got, window, err := resolveTarget(c.arg, cwd)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: err %v, want %q", c.arg, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", c.arg, err)
		case got != c.want || window != c.window:
			t.Errorf("%q: %+v window=%v, want %+v window=%v", c.arg, got, window, c.want, c.window)
		}
	}
}

// A command's name wins over a folder of that name in the current folder.
func TestWindowArgsCommandWins(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, d := range []string{"notes", "prompt"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"notes"}, {"prompt"}, {"--version"}, {"notes", "search", "x"}} {
		if _, window, err := windowArgs(args); window || err != nil {
			t.Errorf("%q: window=%v err=%v, want the command", args, window, err)
		}
	}
	if got, window, err := windowArgs([]string{"./notes"}); !window || err != nil || got.Dir != filepath.Join(dir, "notes") {
		t.Errorf("./notes: %+v window=%v err=%v, want the folder", got, window, err)
	}
}

// The command line must not load GTK or WebKit: its ELF needs none of them.
func TestCommandLineLinksNoGTK(t *testing.T) {
	f, err := elf.Open(acptest.Binary(t, ".", "mnote"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range libs {
		for _, bad := range []string{"gtk", "webkit", "gdk", "javascriptcore", "soup"} {
			if strings.Contains(strings.ToLower(l), bad) {
				t.Errorf("the command line links %s (DT_NEEDED %q)", bad, libs)
			}
		}
	}
}

// installed lays out the command line as a package does: bin/mnote and the
// window's binary at app (relative to the root), a fake that records its
// arguments. It returns the command and the record file.
func installed(t *testing.T, app string) (mnote, record string) {
	t.Helper()
	root := t.TempDir()
	mnote = filepath.Join(root, "bin", "mnote")
	record = filepath.Join(root, "argv")
	b, err := os.ReadFile(acptest.Binary(t, ".", "mnote"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{mnote, filepath.Join(root, app)} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(mnote, b, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" >" + record + "\n"
	if err := os.WriteFile(filepath.Join(root, app), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	return mnote, record
}

func run(t *testing.T, dir string, env []string, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "MNOTE_HOME=" + t.TempDir()}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestCommandLineExecsTheWindow(t *testing.T) {
	for _, app := range []string{"bin/mnote-app", "lib/mnote/mnote-app"} {
		t.Run(app, func(t *testing.T) {
			mnote, record := installed(t, app)
			cwd := t.TempDir()
			if err := os.Mkdir(filepath.Join(cwd, "notes"), 0o755); err != nil {
				t.Fatal(err)
			}
			note := filepath.Join(cwd, "notes", "a.md")
			if err := os.WriteFile(note, []byte("# a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// The window runs as "mnote" (argv[0]: GTK's WM_CLASS); $0 of the fake is its path.
			wantApp := filepath.Join(filepath.Dir(filepath.Dir(mnote)), app)
			for _, c := range []struct {
				args []string
				want []string
			}{
				{nil, []string{wantApp}},
				{[]string{"./notes"}, []string{wantApp, filepath.Join(cwd, "notes")}},
				{[]string{"notes/a.md"}, []string{wantApp, note}},
			} {
				os.Remove(record)
				if out, err := run(t, cwd, []string{"DISPLAY=:99"}, mnote, c.args...); err != nil {
					t.Fatalf("mnote %q: %v\n%s", c.args, err, out)
				}
				b, err := os.ReadFile(record)
				if err != nil {
					t.Fatalf("mnote %q did not start the window: %v", c.args, err)
				}
				if got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); strings.Join(got, "|") != strings.Join(c.want, "|") {
					t.Errorf("mnote %q started %q, want %q", c.args, got, c.want)
				}
			}
			// Headless commands stay in the command line.
			os.Remove(record)
			if out, err := run(t, cwd, []string{"DISPLAY=:99"}, mnote, "--version"); err != nil || !strings.HasPrefix(out, "mnote ") {
				t.Fatalf("mnote --version: %v %q", err, out)
			}
			if _, err := os.Stat(record); err == nil {
				t.Fatal("mnote --version started the window")
			}
			// No display: say so, start nothing.
			out, err := run(t, cwd, nil, mnote)
			if err == nil || !strings.Contains(out, "no display") {
				t.Fatalf("mnote without a display: %v %q", err, out)
			}
			if _, err := os.Stat(record); err == nil {
				t.Fatal("mnote without a display started the window")
			}
		})
	}
}

func TestCommandLineWithoutTheWindow(t *testing.T) {
	mnote, _ := installed(t, "elsewhere/mnote-app")
	out, err := run(t, t.TempDir(), []string{"DISPLAY=:99"}, mnote)
	if err == nil || !strings.Contains(out, "the window is not installed") {
		t.Fatalf("mnote with no mnote-app: %v %q", err, out)
	}
}

// The man page (docs/mnote.1, packaged) describes every command --help lists.
func TestManPageMatchesHelp(t *testing.T) {
	help, err := run(t, t.TempDir(), nil, acptest.Binary(t, ".", "mnote"), "--help")
	if err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile("docs/mnote.1")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(help, "\n") {
		f := strings.Fields(line)
		if !strings.HasPrefix(line, "  ") || len(f) < 2 {
			continue
		}
		n++
		desc := strings.ReplaceAll(strings.Join(f[1:], " "), "-", `\-`)
		if !strings.Contains(string(man), ".B "+f[0]+"\n"+desc+"\n") && !strings.Contains(string(man), ".B "+f[0]+"\n"+strings.Join(f[1:], " ")+"\n") {
			t.Errorf("docs/mnote.1 does not describe %q as --help does (%q)", f[0], strings.Join(f[1:], " "))
		}
	}
	if n < 10 {
		t.Fatalf("--help listed %d commands:\n%s", n, help)
	}
}

// Each binary carries its half once: the window (mnote-app) none of the
// services, which run in the command line binary, and the command line none
// of Wails.
func TestEachBinaryCarriesItsHalfOnce(t *testing.T) {
	deps := func(tags string) []string {
		out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-tags", tags, ".").Output()
		if err != nil {
			t.Fatalf("go list -tags %s: %v", tags, err)
		}
		return strings.Fields(string(out))
	}
	window := map[string]bool{"mnote": true, "mnote/desktop": true, "mnote/internal/winlink": true,
		"mnote/internal/xdgdirs": true, "mnote/internal/l10n": true, "mnote/internal/atomicfile": true}
	for _, p := range deps("desktop,production,sqlite_fts5") {
		if (strings.HasPrefix(p, "mnote/") || p == "mnote") && !window[p] {
			t.Errorf("the window links %s: the services belong in the command line binary", p)
		}
		for _, heavy := range []string{"mattn/go-sqlite3", "modelcontextprotocol", "yuin/goldmark"} {
			if strings.Contains(p, heavy) {
				t.Errorf("the window links %s", p)
			}
		}
	}
	for _, p := range deps("sqlite_fts5") {
		if strings.Contains(p, "wailsapp") {
			t.Errorf("the command line links %s", p)
		}
	}
}
