package workspace_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mnote/internal/testenv"
	"mnote/workspace"
)

func TestUnifiedDiffFormat(t *testing.T) {
	a := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
	b := "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven"
	want := "--- a/x.md\n+++ b/x.md\n" +
		"@@ -1,5 +1,5 @@\n one\n-two\n+TWO\n three\n four\n five\n" +
		"@@ -8,3 +8,4 @@\n eight\n nine\n ten\n+eleven\n\\ No newline at end of file\n"
	if got := workspace.UnifiedDiff("a/x.md", "b/x.md", a, b); got != want {
		t.Errorf("diff =\n%s\nwant\n%s", got, want)
	}
	if got := workspace.UnifiedDiff("a", "b", "same\n", "same\n"); got != "" {
		t.Errorf("equal texts: %q", got)
	}
	if got := workspace.UnifiedDiff("/dev/null", "b/n.md", "", "new\n"); got != "--- /dev/null\n+++ b/n.md\n@@ -0,0 +1 @@\n+new\n" {
		t.Errorf("creation diff = %q", got)
	}
}

// TestUnifiedDiffAppliesWithPatch: for random edits, patch(1) turns the
// old text into the new one with our diff, so the diffs are real ones.
func TestUnifiedDiffAppliesWithPatch(t *testing.T) {
	patch, err := exec.LookPath("patch")
	if err != nil {
		testenv.SkipOrFail(t, "patch(1) not installed")
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "gamma", "delta", "", "# title", "- item", "same"}
	gen := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[r.IntN(len(words))]
		}
		return out
	}
	dir := t.TempDir()
	for i := 0; i < 60; i++ {
		a := gen(r.IntN(40))
		b := append([]string(nil), a...)
		for e := r.IntN(6); e >= 0; e-- {
			switch k := r.IntN(3); {
			case k == 0 && len(b) > 0:
				j := r.IntN(len(b))
				b = append(b[:j], b[j+1:]...)
			case k == 1:
				j := r.IntN(len(b) + 1)
				b = append(b[:j], append(gen(1+r.IntN(3)), b[j:]...)...)
			case len(b) > 0:
				b[r.IntN(len(b))] = fmt.Sprint("changed ", r.IntN(100))
			}
		}
		at, bt := strings.Join(a, "\n"), strings.Join(b, "\n")
		if r.IntN(2) == 0 && at != "" {
			at += "\n"
		}
		if r.IntN(2) == 0 && bt != "" {
			bt += "\n"
		}
		d := workspace.UnifiedDiff("a/f", "b/f", at, bt)
		if d == "" {
			if at != bt {
				t.Fatalf("empty diff for different texts %q %q", at, bt)
			}
			continue
		}
		f := filepath.Join(dir, "f")
		must(t, os.WriteFile(f, []byte(at), 0o644))
		must(t, os.WriteFile(f+".diff", []byte(d), 0o644))
		cmd := exec.Command(patch, "-s", "-p1", "-i", "f.diff", "f")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("case %d: patch: %v\n%s\ndiff:\n%s", i, err, out, d)
		}
		if got := read(t, f); got != bt {
			t.Fatalf("case %d: patched %q, want %q\ndiff:\n%s", i, got, bt, d)
		}
	}
}

// TestUnifiedDiffLargeInputs: a big rewrite falls back to remove-all /
// add-all instead of using quadratic memory, and is still correct.
func TestUnifiedDiffLargeInputs(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&a, "a line %d\n", i)
		fmt.Fprintf(&b, "b line %d\n", i)
	}
	d := workspace.UnifiedDiff("a", "b", a.String(), b.String())
	if strings.Count(d, "\n-a line") != 5000 || strings.Count(d, "\n+b line") != 5000 {
		t.Errorf("big rewrite: %d removed, %d added lines", strings.Count(d, "\n-a line"), strings.Count(d, "\n+b line"))
	}
}
