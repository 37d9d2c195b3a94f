package app_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"mnote/app"
)

// apiMethodItem is a method's entry in API.md: a list item, or a clause
// after "; " in one, that starts with the method's name in backticks.
var apiMethodItem = regexp.MustCompile("(?:^- |; )`([a-z]+\\.[a-zA-Z]+)`")

// apiMention is any backticked name that may be a method.
var apiMention = regexp.MustCompile("`([a-z]+\\.[a-zA-Z]+)`")

// API.md documents exactly the methods the bridge dispatches: each one
// has its entry, it has no entry for a method that does not exist, and
// no other mention of a method names one that does not exist.
func TestAPIDocListsEveryMethod(t *testing.T) {
	doc, err := os.ReadFile("API.md")
	if err != nil {
		t.Fatal(err)
	}
	methods := app.Methods()
	if len(methods) < 40 {
		t.Fatalf("the dispatch table has %d methods: %v", len(methods), methods)
	}
	namespaces := map[string]bool{}
	for _, m := range methods {
		namespaces[m[:strings.IndexByte(m, '.')]] = true
	}
	documented := map[string]bool{}
	for line := range strings.SplitSeq(string(doc), "\n") {
		for _, m := range apiMethodItem.FindAllStringSubmatch(line, -1) {
			documented[m[1]] = true
		}
		for _, m := range apiMention.FindAllStringSubmatch(line, -1) {
			name := m[1]
			if namespaces[name[:strings.IndexByte(name, '.')]] && !slices.Contains(methods, name) {
				t.Errorf("API.md mentions %s, which the bridge does not dispatch: %q", name, line)
			}
		}
	}
	for _, m := range methods {
		if !documented[m] {
			t.Errorf("API.md has no entry for %s (a list item starting with `%s`)", m, m)
		}
	}
	for m := range documented {
		if !slices.Contains(methods, m) {
			t.Errorf("API.md documents %s, which the bridge does not dispatch", m)
		}
	}
}
