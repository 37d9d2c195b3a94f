package workspace_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"mnote/workspace"
)

// An agent's terminal gets its working folder from AgentFS.OpenDir, under
// the rules of fs/*: mnote's own folders are refused whatever path leads
// there (direct, below, through a link, the config folder), and so are
// "..", relative paths, links out, files and kernel file systems; a
// folder of notes opens, a link to one inside gives the real path.
func TestAgentOpenDir(t *testing.T) {
	home, cfg, data := mnoteHome(t)
	outside := t.TempDir()
	must(t, os.Symlink(data, filepath.Join(home, "notes", "own")))
	must(t, os.Symlink(outside, filepath.Join(home, "notes", "out")))
	must(t, os.Symlink("notes", filepath.Join(home, "n")))
	w, _ := openDir(t, home, workspace.Options{Deny: []string{cfg, data}})
	fsys := w.AgentFS(workspace.Hooks{OnRefused: func(p, _ string) { t.Errorf("OnRefused told of %s", p) }})
	for p, want := range map[string]error{
		data:                                workspace.ErrDenied,
		filepath.Join(data, "transcripts"):  workspace.ErrDenied,
		cfg:                                 workspace.ErrDenied,
		filepath.Join(home, "notes", "own"): workspace.ErrDenied,
		filepath.Join(home, "notes", "own", "transcripts"): workspace.ErrDenied,
		home + "/notes/../.config/mnote":                   workspace.ErrOutside,
		"notes":                                            workspace.ErrOutside,
		filepath.Join(home, "notes", "out"):                workspace.ErrOutside,
		outside:                                            workspace.ErrOutside,
		"/proc":                                            workspace.ErrOutside,
		filepath.Join(home, "notes", "a.md"):               fs.ErrNotExist,
		filepath.Join(home, "missing"):                     fs.ErrNotExist,
	} {
		if f, abs, err := fsys.OpenDir(p); !errors.Is(err, want) {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenDir(%s) = %s, %v; want %v", p, abs, err, want)
		}
	}
	for p, want := range map[string]string{
		home:                          home,
		filepath.Join(home, "notes"):  filepath.Join(home, "notes"),
		filepath.Join(home, "n"):      filepath.Join(home, "notes"),
		filepath.Join(home, ".local"): filepath.Join(home, ".local"),
	} {
		f, abs, err := fsys.OpenDir(p)
		if err != nil || abs != want {
			t.Errorf("OpenDir(%s) = %s, %v; want %s", p, abs, err, want)
			continue
		}
		if fi, err := os.Stat(want); err != nil || !os.SameFile(fi, mustStat(t, f)) {
			t.Errorf("OpenDir(%s) opened another folder: %v", p, err)
		}
		f.Close()
	}
}

func mustStat(t *testing.T, f *os.File) os.FileInfo {
	t.Helper()
	fi, err := f.Stat()
	must(t, err)
	return fi
}
