package scripts

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// appBuild returns the arguments of the go build that made build/bin/mnote-app
// (the window).
func appBuild(t *testing.T, f *fakeEnv) string { return goBuildOf(t, f, "build/bin/mnote-app") }

// goBuildOf returns the arguments of the one go build of the root package
// into out.
func goBuildOf(t *testing.T, f *fakeEnv, out string) string {
	t.Helper()
	var found []string
	for _, l := range f.lines(t, "go.log") {
		if strings.HasPrefix(l, "build ") && strings.HasSuffix(l, " -o "+out+" .") {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		t.Fatalf("go calls %q: want one build of %s", f.lines(t, "go.log"), out)
	}
	return found[0]
}

// A fresh machine: WebKitGTK is not installed when make starts, so the tag
// can only be right if the Makefile asks for it after deps installed it.
func TestMakeDepsBuildUsesTheWebKitDepsInstalled(t *testing.T) {
	cases := []struct {
		name     string
		repo     []string
		makeArgs []string
		wantTags string
	}{
		{name: "Debian 13", repo: []string{webkit41}, wantTags: "desktop,production,sqlite_fts5,webkit2_41"},
		{name: "Debian 12", repo: []string{webkit40, webkit41}, wantTags: "desktop,production,sqlite_fts5,webkit2_41"},
		{name: "only 4.0", repo: []string{webkit40}, wantTags: "desktop,production,sqlite_fts5"},
		{name: "4.0 asked for", repo: []string{webkit40, webkit41}, makeArgs: []string{"WEBKIT_TAG="}, wantTags: "desktop,production,sqlite_fts5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			copyTree(t, scriptsDir(t), filepath.Join(repo, "scripts"))
			mk, err := os.ReadFile(filepath.Join(scriptsDir(t), "..", "Makefile"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(repo, "Makefile"), string(mk), 0o644)
			if err := os.MkdirAll(filepath.Join(repo, "frontend", "dist"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(repo, "frontend", "package.json"), "{}\n", 0o644)
			writeFile(t, filepath.Join(repo, "frontend", "package-lock.json"), "{}\n", 0o644)
			writeFile(t, filepath.Join(repo, "frontend", "dist", ".gitkeep"), "", 0o644) // as in a clone

			f := newFakeEnv(t, "0")
			f.set(t, "repo", append(slices.Clone(otherPkgs), c.repo...)...)
			f.set(t, "lists", append(slices.Clone(otherPkgs), c.repo...)...)
			args := append([]string{"deps", "build"}, c.makeArgs...)
			out, errOut, ok := f.run(t, repo, "make", args...)
			if !ok {
				t.Fatalf("make %q failed:\n%s%s", args, out, errOut)
			}
			if got, want := appBuild(t, f), "build -tags "+c.wantTags+" "; !strings.HasPrefix(got, want) {
				t.Fatalf("the app was built with\n  go %s\nwant the tags %s", got, c.wantTags)
			}
			// The command line links no GTK: no desktop tag, whatever WebKitGTK is installed.
			if got, want := goBuildOf(t, f, "build/bin/mnote"), "build -tags sqlite_fts5 "; !strings.HasPrefix(got, want) {
				t.Fatalf("the command line was built with\n  go %s\nwant only the tag sqlite_fts5", got)
			}
		})
	}
}
