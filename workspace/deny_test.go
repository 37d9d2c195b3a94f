package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mnote/workspace"
)

// mnoteHome lays out a home folder with mnote's own folders where the XDG
// defaults put them, and returns home, the config and the data folder.
func mnoteHome(t *testing.T) (home, cfg, data string) {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	cfg = filepath.Join(home, ".config", "mnote")
	data = filepath.Join(home, ".local", "share", "mnote")
	write(t, filepath.Join(cfg, "secrets.json"), `{"agents":{"x":{"KEY":"sk-secret"}}}`)
	write(t, filepath.Join(cfg, "config.json"), "{}\n")
	write(t, filepath.Join(data, "transcripts", "s1.jsonl"), "{}\n")
	write(t, filepath.Join(home, "notes", "a.md"), "note\n")
	return home, cfg, data
}

// walkTree calls fn for every node under n.
func walkTree(n *workspace.Node, fn func(*workspace.Node)) {
	fn(n)
	for _, c := range n.Children {
		walkTree(c, fn)
	}
}

// Folders in Options.Deny are out of reach whatever path leads there:
// direct, through a link to the folder, to a subfolder or to a file, with
// a hard link; for agents, for the page's reads and tree operations, and
// the tree does not list them. The workspace folder cannot be one of them.
func TestDeniedFolders(t *testing.T) {
	home, cfg, data := mnoteHome(t)
	must(t, os.Symlink(cfg, filepath.Join(home, "notes", "cfg")))
	must(t, os.Symlink("../.local/share/mnote/transcripts", filepath.Join(home, "notes", "tr")))
	must(t, os.Symlink(filepath.Join(cfg, "secrets.json"), filepath.Join(home, "key.md")))
	must(t, os.Link(filepath.Join(cfg, "secrets.json"), filepath.Join(home, "hard.md")))
	w, _ := openDir(t, home, workspace.Options{Deny: []string{cfg, data}})
	var refusals []string
	fsys := w.AgentFS(workspace.Hooks{OnRefused: func(p, reason string) { refusals = append(refusals, p) }})
	for _, c := range []struct {
		p    string
		want error
	}{
		{filepath.Join(cfg, "secrets.json"), workspace.ErrDenied},
		{filepath.Join(cfg, "config.json"), workspace.ErrDenied},
		{filepath.Join(data, "transcripts", "s1.jsonl"), workspace.ErrDenied},
		{filepath.Join(home, "notes", "cfg", "secrets.json"), workspace.ErrDenied},
		{filepath.Join(home, "notes", "tr", "s1.jsonl"), workspace.ErrDenied},
		{filepath.Join(home, "key.md"), workspace.ErrDenied},
		{filepath.Join(home, "hard.md"), workspace.ErrHardLink},
		{filepath.Join(cfg, "new", "x.md"), workspace.ErrDenied},
	} {
		n := len(refusals)
		if s, err := fsys.ReadTextFile(t.Context(), c.p, nil, nil); !errors.Is(err, c.want) || strings.Contains(s, "sk-secret") {
			t.Errorf("read %s = %q, %v; want %v", c.p, s, err, c.want)
		}
		if err := fsys.WriteTextFile(t.Context(), c.p, "pwned"); !errors.Is(err, c.want) {
			t.Errorf("write %s = %v; want %v", c.p, err, c.want)
		}
		if len(refusals) != n+2 {
			t.Errorf("%s: refusals not reported: %q", c.p, refusals[n:])
		}
	}
	if got := read(t, filepath.Join(cfg, "secrets.json")); !strings.Contains(got, "sk-secret") || exists(filepath.Join(cfg, "new")) {
		t.Errorf("secrets.json now %q, or a folder was created in the config folder", got)
	}
	if s, err := fsys.ReadTextFile(t.Context(), filepath.Join(home, "notes", "a.md"), nil, nil); err != nil || s != "note\n" {
		t.Fatalf("a note: %q, %v", s, err)
	}

	// The page's side: reads (prompt attachments), tree operations, tree.
	if _, err := w.ReadFile(".config/mnote/secrets.json"); !errors.Is(err, workspace.ErrDenied) {
		t.Errorf("ReadFile = %v", err)
	}
	if err := w.CreateFile(".config/mnote/x.md", nil); !errors.Is(err, workspace.ErrDenied) {
		t.Errorf("CreateFile = %v", err)
	}
	if err := w.Rename(".local/share/mnote/transcripts/s1.jsonl", "s1.jsonl"); !errors.Is(err, workspace.ErrDenied) {
		t.Errorf("Rename = %v", err)
	}
	if _, err := w.Delete("notes/tr/s1.jsonl"); !errors.Is(err, workspace.ErrDenied) {
		t.Errorf("Delete = %v", err)
	}
	for _, d := range []string{".config/mnote", "notes/tr"} {
		if _, err := w.Tree(workspace.TreeOptions{Dir: d, AllFiles: true, Hidden: true}); !errors.Is(err, workspace.ErrDenied) {
			t.Errorf("Tree(%s) = %v", d, err)
		}
	}
	tree, err := w.Tree(workspace.TreeOptions{AllFiles: true, Hidden: true})
	must(t, err)
	seen := map[string]bool{}
	walkTree(tree, func(n *workspace.Node) {
		seen[n.Path] = true
		if strings.HasPrefix(n.Path, ".config/mnote") || strings.HasPrefix(n.Path, ".local/share/mnote") || n.Path == "notes/cfg" || n.Path == "notes/tr" {
			t.Errorf("the tree lists %s", n.Path)
		}
	})
	if !seen["notes/a.md"] || !seen[".config"] {
		t.Errorf("the tree lost other entries: %v", seen)
	}

	// The workspace folder cannot be, or be inside, a denied folder.
	for _, d := range []string{cfg, filepath.Join(data, "transcripts"), filepath.Join(home, "notes", "tr")} {
		if _, err := workspace.Open(d, workspace.Options{Deny: []string{cfg, data}}); !errors.Is(err, workspace.ErrDenied) {
			t.Errorf("Open(%s) = %v, want ErrDenied", d, err)
		}
	}
}

// bindMount mounts src on dst for the test (root only).
func bindMount(t *testing.T, src, dst string) {
	t.Helper()
	must(t, os.MkdirAll(dst, 0o755))
	if err := syscall.Mount(src, dst, "", syscall.MS_BIND, ""); err != nil {
		t.Skip("bind mounts not allowed here:", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dst, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dst, err)
		}
	})
}

// Bind mounts of a denied folder, of a folder under it, and of /proc
// inside the workspace are told by identity and file system, not by path.
func TestDeniedThroughBindMounts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("bind mounts need root")
	}
	home, cfg, data := mnoteHome(t)
	bindMount(t, cfg, filepath.Join(home, "notes", "m"))
	bindMount(t, filepath.Join(data, "transcripts"), filepath.Join(home, "notes", "t"))
	bindMount(t, "/proc", filepath.Join(home, "notes", "p"))
	w, _ := openDir(t, home, workspace.Options{Deny: []string{cfg, data}})
	fsys := w.AgentFS(workspace.Hooks{})
	for p, want := range map[string]error{
		"notes/m/secrets.json": workspace.ErrDenied,
		"notes/t/s1.jsonl":     workspace.ErrDenied,
		"notes/p/self/environ": workspace.ErrOutside,
	} {
		abs := filepath.Join(home, p)
		if s, err := fsys.ReadTextFile(t.Context(), abs, nil, nil); !errors.Is(err, want) {
			t.Errorf("read %s = %q, %v; want %v", p, s, err, want)
		}
		if err := fsys.WriteTextFile(t.Context(), abs, "pwned"); !errors.Is(err, want) {
			t.Errorf("write %s = %v; want %v", p, err, want)
		}
	}
	tree, err := w.Tree(workspace.TreeOptions{Dir: "notes", AllFiles: true, Hidden: true})
	must(t, err)
	walkTree(tree, func(n *workspace.Node) {
		if strings.HasPrefix(n.Path, "notes/m") || strings.HasPrefix(n.Path, "notes/t") || strings.HasPrefix(n.Path, "notes/p") {
			t.Errorf("the tree lists %s", n.Path)
		}
	})
	if _, err := workspace.Open(filepath.Join(home, "notes", "p"), workspace.Options{}); !errors.Is(err, workspace.ErrOutside) {
		t.Errorf("Open of a bind mount of /proc = %v", err)
	}
}

// An agent's read answered from an open buffer with unsaved edits is
// refused like one from disk: a hard-linked file (its other name here is
// outside the workspace) stays out of reach even when open in the editor.
func TestAgentReadOfHardLinkedBuffer(t *testing.T) {
	w, dir := open(t, workspace.Options{})
	outside := filepath.Join(t.TempDir(), "secret.md")
	write(t, outside, "secret\n")
	must(t, os.Link(outside, filepath.Join(dir, "hard.md")))
	bs := w.Buffers()
	if _, err := bs.Open("hard.md"); err != nil {
		t.Fatal(err)
	}
	bs.Update("hard.md", "secret\nand more\n", true)
	s, err := w.AgentFS(workspace.Hooks{}).ReadTextFile(t.Context(), filepath.Join(dir, "hard.md"), nil, nil)
	if !errors.Is(err, workspace.ErrHardLink) {
		t.Fatalf("read = %q, %v; want ErrHardLink", s, err)
	}
}
