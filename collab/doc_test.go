package collab

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/shared-sessions.md names, for each thing a party cannot do, the test
// that shows it: every test it names exists.
func TestThreatModelNamesRealTests(t *testing.T) {
	doc, err := os.ReadFile("../docs/shared-sessions.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`(Test[A-Za-z0-9_]+)`").FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = false
	}
	if len(named) < 20 {
		t.Fatalf("the threat model names %d tests; it should name the test of each claim", len(named))
	}
	err = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") && p != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for name := range named {
			if strings.Contains(string(b), "func "+name+"(") {
				named[name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, found := range named {
		if !found {
			t.Errorf("docs/shared-sessions.md names %s, which no test file defines", name)
		}
	}
}
