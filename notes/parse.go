package notes

import (
	"net/url"
	"path"
	"regexp"
	"strings"
)

// Heading is one ATX heading (# … ######) of a note.
type Heading struct {
	Path  string `json:"path"`
	Level int    `json:"level"`
	Text  string `json:"text"`
	Line  int    `json:"line"` // 1-based
}

// Link is one link in a note.
type Link struct {
	// From is the linking note, Line the 1-based line of the link and
	// Context that line's text (trimmed).
	From    string `json:"from"`
	Line    int    `json:"line"`
	Context string `json:"context"`
	// Target is what the link names: a note name or path for a wikilink
	// ("Note", "folder/Note"), a workspace-relative path for a Markdown
	// link ("folder/b.md"). Heading is the part after #, Alias the shown
	// text of [[Note|alias]].
	Target  string `json:"target"`
	Heading string `json:"heading,omitempty"`
	Alias   string `json:"alias,omitempty"`
	Wiki    bool   `json:"wiki"`
	// Resolved is the note the link points at, "" when none does (filled
	// in by the index when asked).
	Resolved string `json:"resolved,omitempty"`
}

var (
	wikiRe = regexp.MustCompile(`\[\[([^\[\]\n]+?)\]\]`)
	// mdLinkRe matches [text](target) but not images' ![alt](src).
	mdLinkRe = regexp.MustCompile(`(^|[^!])\[[^\]\n]*\]\(([^()\s]+)(?:\s+"[^"\n]*")?\)`)
)

// contextMax bounds a link's context line (in bytes, cut at a rune).
const contextMax = 300

// parse reads a note's headings and links. Code blocks (``` or ~~~ fences)
// hold neither.
func parse(rel, text string) (heads []Heading, links []Link) {
	dir := path.Dir(rel)
	var fence fences
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		t := strings.TrimSpace(line)
		if fence.skip(t) {
			continue
		}
		if h, ok := heading(t); ok {
			h.Path, h.Line = rel, n
			heads = append(heads, h)
		}
		if !strings.Contains(line, "](") && !strings.Contains(line, "[[") {
			continue
		}
		ctx := cut(t, contextMax)
		for _, m := range wikiRe.FindAllStringSubmatch(line, -1) {
			l := Link{From: rel, Line: n, Context: ctx, Wiki: true}
			l.Target, l.Heading, l.Alias = wikiParts(m[1])
			if l.Target == "" && l.Heading == "" {
				continue
			}
			if l.Target == "" { // [[#Heading]]: this note
				l.Target = strings.TrimSuffix(path.Base(rel), path.Ext(rel))
			}
			links = append(links, l)
		}
		for _, m := range mdLinkRe.FindAllStringSubmatch(line, -1) {
			target, ok := relativeTarget(dir, m[2])
			if !ok {
				continue
			}
			l := Link{From: rel, Line: n, Context: ctx}
			l.Target, l.Heading, _ = strings.Cut(target, "#")
			links = append(links, l)
		}
	}
	return heads, links
}

// fences follows ``` and ~~~ code fences line by line.
type fences string

// skip reports whether the trimmed line t opens, closes or is inside a
// fenced code block (which holds neither headings nor links).
func (f *fences) skip(t string) bool {
	if *f != "" {
		if strings.HasPrefix(t, string(*f)) {
			*f = ""
		}
		return true
	}
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		*f = fences(t[:3])
		return true
	}
	return false
}

// wikiParts splits the inside of [[…]] into its target (".md" dropped),
// heading and alias, each trimmed.
func wikiParts(inner string) (target, heading, alias string) {
	inner, alias, _ = strings.Cut(inner, "|")
	target, heading, _ = strings.Cut(inner, "#")
	return strings.TrimSuffix(strings.TrimSpace(target), ".md"), strings.TrimSpace(heading), strings.TrimSpace(alias)
}

// relativeTarget resolves a Markdown link's target against the linking
// note's folder: only relative links to Markdown files inside the
// workspace count (not URLs, not absolute paths, not ../ past the top).
func relativeTarget(dir, raw string) (string, bool) {
	if strings.Contains(raw, ":") || strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "\\") || strings.HasPrefix(raw, "#") {
		return "", false
	}
	p, frag, _ := strings.Cut(raw, "#")
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	if !isNoteName(p) {
		return "", false
	}
	j := path.Join(dir, p)
	if j == ".." || strings.HasPrefix(j, "../") {
		return "", false
	}
	if frag != "" {
		if u, err := url.PathUnescape(frag); err == nil {
			frag = u
		}
		return j + "#" + frag, true
	}
	return j, true
}

// heading reads an ATX heading line.
func heading(t string) (Heading, bool) {
	level := 0
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
		return Heading{}, false
	}
	text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[level:]), "#"))
	if text == "" {
		return Heading{}, false
	}
	return Heading{Level: level, Text: text}, true
}

// isNoteName reports whether a file name is a Markdown note's.
func isNoteName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// cut shortens s to at most n bytes, at a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !runeStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }
