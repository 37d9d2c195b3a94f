package projection

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"mnote/thread"
)

// summaryFiles is how many files a tool summary names; more are counted.
const summaryFiles = 5

// Summary returns the tool summary an actor may choose to share
// (Options.Summary): the files a tool call touched — its locations and
// the files of its diffs — named relative to root (a file outside root by
// its base name), each diff with the lines it added and removed, as
// "notes/a.md +3 −1, b.md". Nothing of the call's input, output or the
// diffs' text is in it. "" when it touched no file. FromThread cleans it
// like every text that leaves (a secret in a file's name).
func Summary(root string) func(tc *thread.ToolCall) string {
	return func(tc *thread.ToolCall) string {
		if tc == nil {
			return ""
		}
		type file struct {
			name           string
			diff           bool
			added, removed int
		}
		var files []*file
		byName := map[string]*file{}
		touch := func(p string) *file {
			n := summaryName(root, p)
			if n == "" {
				return nil
			}
			f := byName[n]
			if f == nil {
				f = &file{name: n}
				byName[n] = f
				files = append(files, f)
			}
			return f
		}
		for _, l := range tc.Locations {
			touch(l.Path)
		}
		for _, c := range tc.Content {
			if c.Type != "diff" {
				continue
			}
			if f := touch(c.Path); f != nil {
				a, r := diffCounts(c.OldText, c.NewText)
				f.diff, f.added, f.removed = true, f.added+a, f.removed+r
			}
		}
		var parts []string
		for i, f := range files {
			if i == summaryFiles {
				parts = append(parts, fmt.Sprintf("… +%d", len(files)-summaryFiles))
				break
			}
			if f.diff {
				parts = append(parts, fmt.Sprintf("%s +%d −%d", f.name, f.added, f.removed))
			} else {
				parts = append(parts, f.name)
			}
		}
		return strings.Join(parts, ", ")
	}
}

// summaryName is p relative to root with forward slashes, or its base
// name when it is not inside root; control characters and line breaks
// become spaces (the summary is one line).
func summaryName(root, p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	name := ""
	if root != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(root, p); err == nil && rel != "." && filepath.IsLocal(rel) {
			name = filepath.ToSlash(rel)
		}
	} else if root != "" && filepath.IsLocal(p) {
		name = filepath.ToSlash(filepath.Clean(p))
	}
	if name == "" {
		name = filepath.Base(strings.ReplaceAll(p, `\`, "/"))
		if name == "." || name == "/" || name == ".." {
			return ""
		}
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, name)
}

// diffCounts are the lines a diff of old → new adds and removes: what
// is left of each after their common first and last lines.
func diffCounts(oldText *string, newText string) (added, removed int) {
	var old, cur []string
	if oldText != nil && *oldText != "" {
		old = strings.Split(strings.TrimSuffix(*oldText, "\n"), "\n")
	}
	if newText != "" {
		cur = strings.Split(strings.TrimSuffix(newText, "\n"), "\n")
	}
	pre := 0
	for pre < len(old) && pre < len(cur) && old[pre] == cur[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(cur)-pre && old[len(old)-1-suf] == cur[len(cur)-1-suf] {
		suf++
	}
	return len(cur) - pre - suf, len(old) - pre - suf
}
