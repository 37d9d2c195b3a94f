package workspace_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mnote/internal/testenv"
	"mnote/workspace"
)

// TestConfinement runs every confinement case through an agent's file
// system: each refused request is a *workspace.RefusedError saying why, is
// reported to OnRefused, and touches nothing outside.
func TestConfinement(t *testing.T) {
	type result int
	const (
		ok       result = iota
		refused         // *workspace.RefusedError + OnRefused
		clearErr        // a clear error, not a refusal
	)
	type tc struct {
		name string
		// setup prepares dir (the workspace) and out (a folder outside) and
		// returns the path the agent asks for.
		setup   func(t *testing.T, dir, out string) string
		op      string // "read" or "write"
		want    result
		message string // in the error message
		check   func(t *testing.T, dir, out string)
	}
	outsideUntouched := func(t *testing.T, _, out string) {
		t.Helper()
		if got := read(t, filepath.Join(out, "secret.md")); got != "secret\n" {
			t.Errorf("outside file changed: %q", got)
		}
		if exists(filepath.Join(out, "new.md")) {
			t.Error("a file was created outside the workspace")
		}
	}
	cases := []tc{
		{name: "relative path", op: "read", want: refused, message: "relative",
			setup: func(t *testing.T, dir, out string) string { return "notes/a.md" }},
		{name: "relative path write", op: "write", want: refused, message: "relative",
			setup: func(t *testing.T, dir, out string) string { return "new.md" },
			check: func(t *testing.T, dir, out string) {
				if exists(filepath.Join(dir, "new.md")) {
					t.Error("relative write created a file")
				}
			}},
		{name: "dot-dot escaping", op: "read", want: refused, message: `".."`,
			setup: func(t *testing.T, dir, out string) string {
				return dir + "/notes/../../" + filepath.Base(out) + "/secret.md"
			}},
		{name: "dot-dot staying inside", op: "read", want: refused, message: `".."`,
			setup: func(t *testing.T, dir, out string) string { return dir + "/notes/../notes/a.md" }},
		{name: "absolute path elsewhere", op: "read", want: refused, message: "outside the workspace",
			setup: func(t *testing.T, dir, out string) string { return filepath.Join(out, "secret.md") }},
		{name: "absolute path elsewhere write", op: "write", want: refused, message: "outside the workspace",
			setup: func(t *testing.T, dir, out string) string { return filepath.Join(out, "new.md") },
			check: outsideUntouched},
		{name: "symlink file to outside", op: "read", want: refused, message: "outside",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Symlink(filepath.Join(out, "secret.md"), filepath.Join(dir, "link.md")))
				return filepath.Join(dir, "link.md")
			}},
		{name: "symlink file to outside write", op: "write", want: refused, message: "outside",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Symlink(filepath.Join(out, "secret.md"), filepath.Join(dir, "link.md")))
				return filepath.Join(dir, "link.md")
			},
			check: outsideUntouched},
		{name: "relative symlink climbing out", op: "read", want: refused, message: "outside",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Symlink("../"+filepath.Base(out)+"/secret.md", filepath.Join(dir, "up.md")))
				return filepath.Join(dir, "up.md")
			}},
		{name: "symlink folder to outside", op: "read", want: refused, message: "outside",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Symlink(out, filepath.Join(dir, "out")))
				return filepath.Join(dir, "out", "secret.md")
			}},
		{name: "symlink folder to outside write", op: "write", want: refused, message: "outside",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Symlink(out, filepath.Join(dir, "out")))
				return filepath.Join(dir, "out", "new.md")
			},
			check: outsideUntouched},
		{name: "relative symlink inside to inside", op: "read", want: ok,
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Symlink("notes/a.md", filepath.Join(dir, "alias.md")))
				return filepath.Join(dir, "alias.md")
			}},
		{name: "absolute symlink inside to inside", op: "read", want: ok,
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Symlink(filepath.Join(dir, "notes"), filepath.Join(dir, "n")))
				return filepath.Join(dir, "n", "a.md")
			}},
		{name: "symlink inside write goes through the link", op: "write", want: ok,
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Symlink("notes/a.md", filepath.Join(dir, "alias.md")))
				return filepath.Join(dir, "alias.md")
			},
			check: func(t *testing.T, dir, out string) {
				if got := read(t, filepath.Join(dir, "notes", "a.md")); got != "written\n" {
					t.Errorf("link target = %q, want the written content", got)
				}
				if fi, err := os.Lstat(filepath.Join(dir, "alias.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link was replaced: %v %v", fi, err)
				}
			}},
		{name: "FIFO", op: "read", want: refused, message: "FIFO",
			setup: func(t *testing.T, dir, out string) string {
				must(t, syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644))
				return filepath.Join(dir, "pipe.md")
			}},
		{name: "FIFO write", op: "write", want: refused, message: "FIFO",
			setup: func(t *testing.T, dir, out string) string {
				must(t, syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644))
				return filepath.Join(dir, "pipe.md")
			}},
		{name: "socket", op: "read", want: refused, message: "socket",
			setup: func(t *testing.T, dir, out string) string {
				p := filepath.Join(dir, "s.sock")
				l, err := net.Listen("unix", p)
				must(t, err)
				t.Cleanup(func() { l.Close() })
				return p
			}},
		{name: "/dev/null through a symlink", op: "read", want: refused, message: "outside",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Symlink("/dev/null", filepath.Join(dir, "null.md")))
				return filepath.Join(dir, "null.md")
			}},
		{name: "/dev/null directly", op: "write", want: refused, message: "/dev",
			setup: func(t *testing.T, dir, out string) string { return "/dev/null" }},
		{name: "/proc/self/environ", op: "read", want: refused, message: "/proc",
			setup: func(t *testing.T, dir, out string) string { return "/proc/self/environ" }},
		{name: "/proc through a symlink", op: "read", want: refused, message: "outside",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Symlink("/proc/self/environ", filepath.Join(dir, "env.md")))
				return filepath.Join(dir, "env.md")
			}},
		{name: "hard link write", op: "write", want: refused, message: "hard links",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Link(filepath.Join(dir, "notes", "a.md"), filepath.Join(dir, "hard.md")))
				return filepath.Join(dir, "hard.md")
			},
			check: func(t *testing.T, dir, out string) {
				if got := read(t, filepath.Join(dir, "notes", "a.md")); got != "line 1\nline 2\nline 3\n" {
					t.Errorf("hard-linked file changed: %q", got)
				}
			}},
		{name: "hard link read", op: "read", want: refused, message: "hard links",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Link(filepath.Join(out, "secret.md"), filepath.Join(dir, "hard.md")))
				return filepath.Join(dir, "hard.md")
			}},
		{name: "file over 10 MiB", op: "read", want: clearErr, message: "over the 10.0 MiB limit",
			setup: func(t *testing.T, dir, out string) string {
				p := filepath.Join(dir, "big.md")
				must(t, os.WriteFile(p, []byte(strings.Repeat("x", workspace.MaxFile+1)), 0o644))
				return p
			}},
		{name: "content over 10 MiB", op: "write-big", want: clearErr, message: "over the 10.0 MiB limit",
			setup: func(t *testing.T, dir, out string) string { return filepath.Join(dir, "notes", "a.md") },
			check: func(t *testing.T, dir, out string) {
				if got := read(t, filepath.Join(dir, "notes", "a.md")); got != "line 1\nline 2\nline 3\n" {
					t.Errorf("file changed by a refused write: %q", got)
				}
			}},
		{name: "non-UTF-8 file", op: "read", want: clearErr, message: "not UTF-8",
			setup: func(t *testing.T, dir, out string) string {
				p := filepath.Join(dir, "latin1.md")
				must(t, os.WriteFile(p, []byte("caf\xe9\n"), 0o644))
				return p
			}},
		{name: "folder", op: "read", want: clearErr, message: "folder",
			setup: func(t *testing.T, dir, out string) string { return filepath.Join(dir, "notes") }},
		{name: "root folder replaced", op: "read", want: refused, message: "replaced",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Rename(dir, dir+".old"))
				must(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o755))
				write(t, filepath.Join(dir, "notes", "a.md"), "impostor\n")
				return filepath.Join(dir, "notes", "a.md")
			}},
		{name: "root folder replaced write", op: "write", want: refused, message: "replaced",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Rename(dir, dir+".old"))
				must(t, os.Mkdir(dir, 0o755))
				return filepath.Join(dir, "new.md")
			},
			check: func(t *testing.T, dir, out string) {
				if exists(filepath.Join(dir, "new.md")) || exists(filepath.Join(dir+".old", "new.md")) {
					t.Error("a write went through after the folder was replaced")
				}
			}},
		{name: "root folder deleted", op: "read", want: refused, message: "gone",
			setup: func(t *testing.T, dir, out string) string {
				must(t, os.Rename(dir, dir+".old"))
				return filepath.Join(dir, "notes", "a.md")
			}},
	}
	// Only root may mknod; MNOTE_REQUIRE_ALL=1 (make test) adds the case
	// anyway, so that it fails rather than vanishes.
	if os.Geteuid() == 0 || testenv.Required() {
		cases = append(cases, tc{name: "character device inside", op: "read", want: refused, message: "device",
			setup: func(t *testing.T, dir, out string) string {
				p := filepath.Join(dir, "null.md")
				if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
					testenv.SkipOrFail(t, "mknod not allowed here: "+err.Error())
				}
				return p
			}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "ws")
			out := filepath.Join(base, "outside")
			write(t, filepath.Join(dir, "notes", "a.md"), "line 1\nline 2\nline 3\n")
			write(t, filepath.Join(out, "secret.md"), "secret\n")
			w, _ := openDir(t, dir, workspace.Options{})
			var refusals []string
			fsys := w.AgentFS(workspace.Hooks{OnRefused: func(p, reason string) { refusals = append(refusals, p+": "+reason) }})
			p := c.setup(t, dir, out)
			var got string
			var err error
			switch c.op {
			case "read":
				got, err = fsys.ReadTextFile(t.Context(), p, nil, nil)
			case "write":
				err = fsys.WriteTextFile(t.Context(), p, "written\n")
			case "write-big":
				err = fsys.WriteTextFile(t.Context(), p, strings.Repeat("y", workspace.MaxFile+1))
			}
			var re *workspace.RefusedError
			switch c.want {
			case ok:
				if err != nil {
					t.Fatalf("%s %s: %v", c.op, p, err)
				}
				if c.op == "read" && got != "line 1\nline 2\nline 3\n" {
					t.Errorf("read %q", got)
				}
				if len(refusals) != 0 {
					t.Errorf("refusals reported: %v", refusals)
				}
			case refused, clearErr:
				if err == nil {
					t.Fatalf("%s %s worked", c.op, p)
				}
				if isRefusal := errors.As(err, &re); isRefusal != (c.want == refused) {
					t.Fatalf("%s %s: got %v (%T), refusal %v", c.op, p, err, err, isRefusal)
				}
				if !strings.Contains(err.Error(), c.message) {
					t.Errorf("message %q does not say %q", err, c.message)
				}
				if c.want == refused && (len(refusals) != 1 || !strings.HasPrefix(refusals[0], p+": ")) {
					t.Errorf("OnRefused calls = %q, want one for %s", refusals, p)
				}
				if c.want == clearErr && len(refusals) != 0 {
					t.Errorf("not a confinement refusal, but OnRefused got %q", refusals)
				}
			}
			if c.check != nil {
				c.check(t, dir, out)
			}
			if c.name != "root folder deleted" && !strings.HasPrefix(c.name, "root folder replaced") {
				outsideUntouched(t, dir, out)
			}
		})
	}
}

// TestRefusedErrorsWrapSentinels: callers of the Go API can tell the
// reasons apart with errors.Is.
func TestRefusedErrorsWrapSentinels(t *testing.T) {
	w, dir := open(t, workspace.Options{})
	write(t, filepath.Join(dir, "a.md"), "a\n")
	must(t, os.Link(filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "p.md"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "bin.md"), []byte{0xff, 0xfe}, 0o644))
	for _, c := range []struct {
		rel  string
		want error
	}{
		{"../x.md", workspace.ErrOutside},
		{"/etc/passwd", workspace.ErrOutside},
		{"p.md", workspace.ErrNotRegular},
		{"bin.md", workspace.ErrNotText},
		{"missing.md", workspace.ErrNotFound},
	} {
		_, err := w.Buffers().Open(c.rel)
		if !errors.Is(err, c.want) {
			t.Errorf("Open(%q) = %v, want %v", c.rel, err, c.want)
		}
	}
	if err := w.CreateFile("a.md", nil); !errors.Is(err, workspace.ErrExists) {
		t.Errorf("CreateFile over an existing file = %v, want ErrExists", err)
	}
	if _, err := w.Rel("/etc/passwd"); !errors.Is(err, workspace.ErrOutside) {
		t.Errorf("Rel(/etc/passwd) = %v", err)
	}
	if r, err := w.Rel(filepath.Join(dir, "x", "y.md")); err != nil || r != "x/y.md" {
		t.Errorf("Rel inside = %q, %v", r, err)
	}
}

// TestOpenRefusesSystemFolders: /proc and the like are not workspaces.
func TestOpenRefusesSystemFolders(t *testing.T) {
	for _, d := range []string{"/proc", "/proc/self", "/dev"} {
		if _, err := workspace.Open(d, workspace.Options{}); !errors.Is(err, workspace.ErrOutside) {
			t.Errorf("Open(%s) = %v, want ErrOutside", d, err)
		}
	}
	if _, err := workspace.Open(filepath.Join(t.TempDir(), "missing"), workspace.Options{}); err == nil {
		t.Error("Open of a missing folder worked")
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
