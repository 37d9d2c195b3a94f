package scripts

import (
	"os"
	"os/exec"
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

// fakeRepo copies the Makefile and scripts/ into a new folder laid out as a
// fresh clone (frontend/dist holding only its .gitkeep).
func fakeRepo(t *testing.T) string {
	t.Helper()
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

	return repo
}

// `make test` alone on a fresh machine: the window's vet must get the tag of
// the WebKitGTK that the test's own first step (deps) installed. It did not
// while make expanded the whole test recipe, $(APP_TAGS) included, before
// running its first line. Every other package is vetted by go test with all
// of go vet's checks (-vet=all), in the build of its tests.
func TestMakeTestVetsTheAppWithTheWebKitDepsInstalled(t *testing.T) {
	repo := fakeRepo(t)
	// The run stops after vet and go test: the steps after them are not faked.
	if err := os.Remove(filepath.Join(repo, "scripts", "agents.sh")); err != nil {
		t.Fatal(err)
	}
	f := newFakeEnv(t, "0")
	f.set(t, "repo", append(slices.Clone(otherPkgs), webkit40, webkit41)...)
	f.set(t, "lists", append(slices.Clone(otherPkgs), webkit40, webkit41)...)
	out, errOut, _ := f.run(t, repo, "make", "test")
	var vets, tests []string
	for _, l := range f.lines(t, "go.log") {
		switch {
		case strings.HasPrefix(l, "vet "):
			vets = append(vets, l)
		case strings.HasPrefix(l, "test "):
			tests = append(tests, l)
		}
	}
	want := []string{"vet -tags desktop,production,sqlite_fts5,webkit2_41 . ./desktop"}
	if !slices.Equal(vets, want) {
		t.Fatalf("make test ran\n  go %s\nwant\n  go %s\n\n%s%s", strings.Join(vets, "\n  go "), strings.Join(want, "\n  go "), out, errOut)
	}
	if len(tests) != 1 || !strings.Contains(tests[0], " -vet=all -tags sqlite_fts5 ") || !strings.HasSuffix(tests[0], " ./...") {
		t.Fatalf("make test ran go test as\n  go %s\nwant one go test -vet=all -tags sqlite_fts5 ... ./...\n\n%s%s", strings.Join(tests, "\n  go "), out, errOut)
	}
}

// `make test` ends with the slowest tests of the suites that ran, read from
// their reports (here go test's, through the real scripts/testreport), after
// the timings; go test's output reads as plain go test's, not as JSON.
func TestMakeTestListsTheSlowestTests(t *testing.T) {
	repo := fakeRepo(t)
	if err := os.Remove(filepath.Join(repo, "scripts", "agents.sh")); err != nil {
		t.Fatal(err)
	}
	// Built after fakeRepo copied its sources, so make finds it up to date
	// (the fake go builds nothing).
	build := exec.CommandContext(t.Context(), "go", "build", "-o", filepath.Join(repo, ".cache", "bin", "testreport"), "./testreport")
	build.Dir = scriptsDir(t)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./scripts/testreport: %v\n%s", err, b)
	}
	f := newFakeEnv(t, "0")
	f.set(t, "repo", append(slices.Clone(otherPkgs), webkit41)...)
	f.set(t, "lists", append(slices.Clone(otherPkgs), webkit41)...)
	f.set(t, "gotest.json",
		`{"Action":"run","Package":"mnote/store","Test":"TestSlow"}`,
		`{"Action":"output","Package":"mnote/store","Test":"TestSlow","Output":"=== RUN   TestSlow\n"}`,
		`{"Action":"pass","Package":"mnote/store","Test":"TestSlow","Elapsed":7.5}`,
		`{"Action":"pass","Package":"mnote/store","Test":"TestQuick","Elapsed":0.2}`,
		`{"Action":"output","Package":"mnote/store","Output":"ok  \tmnote/store\t7.9s\n"}`,
		`{"Action":"pass","Package":"mnote/store","Elapsed":7.9}`,
	)
	out, errOut, ok := f.run(t, repo, "make", "test")
	if ok {
		t.Fatalf("make test passed without scripts/agents.sh:\n%s%s", out, errOut)
	}
	want := "\n== slowest tests ==\n" +
		"    7.5s  go-test  mnote/store TestSlow\n" +
		"    0.2s  go-test  mnote/store TestQuick\n"
	if !strings.Contains(out, want) || strings.Index(out, "== timings ==") > strings.Index(out, want) {
		t.Fatalf("make test's output lacks, after its timings,%s\n---\n%s%s", want, out, errOut)
	}
	if !strings.Contains(out, "ok  \tmnote/store\t7.9s\n") || strings.Contains(out, `"Action"`) || strings.Contains(out, "=== RUN") {
		t.Fatalf("go test's output is not plain go test's:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(repo, ".cache", "test-reports", "go-test.gotest.json")); err != nil {
		t.Fatalf("go test's report: %v", err)
	}
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
			repo := fakeRepo(t)
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
