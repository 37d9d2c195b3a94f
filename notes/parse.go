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
	// file: the link points at a file that is no note (an attachment:
	// ![](attachments/a.png), [[a.pdf]]); kept for moves, not listed as a
	// note's link.
	file bool
}

var (
	wikiRe = regexp.MustCompile(`\[\[([^\[\]\n]+?)\]\]`)
	// mdLinkRe matches [text](target) and images' ![alt](src) (group 1 is
	// the "!" of an image, group 2 the target).
	mdLinkRe = regexp.MustCompile(`(!?)\[[^\]\n]*\]\(([^()\s]+)(?:\s+"[^"\n]*")?\)`)
)

// fileExts are the extensions of the files a wikilink names as they are
// (![[a.png]], [[report.pdf]]): attachments, not notes. Any other name is
// a note's ([[v1.2]] is the note v1.2.md).
var fileExts = map[string]bool{}

func init() {
	// The same list as the UI's (frontend/src/lib/rename.ts KNOWN, less md).
	for _, e := range strings.Fields(`txt text org rst adoc tex html htm xml json jsonl yaml yml toml ini csv tsv log
		png jpg jpeg gif bmp svg webp avif ico tif tiff heic
		mp3 wav m4a ogg flac aac opus mp4 webm ogv mov mkv avi
		pdf zip epub doc docx xls xlsx ppt pptx odt ods odp canvas excalidraw
		js ts py go rs java c h cpp sh sql css`) {
		fileExts["."+e] = true
	}
}

// isFileTarget reports whether a wikilink's target names an attachment.
func isFileTarget(target string) bool {
	return fileExts[strings.ToLower(path.Ext(target))]
}

// contextMax bounds a link's context line (in bytes, cut at a rune).
const contextMax = 300

// parsed is what a note says, read in one pass: its headings and links
// (code blocks, ``` or ~~~ fences, hold neither), its title and its tags
// (what meta reads, tags.go).
type parsed struct {
	heads []Heading
	links []Link
	title string
	tags  []TagAt
}

// parse reads a note's headings, links, title and tags.
func parse(rel, text string) (p parsed) {
	dir := path.Dir(rel)
	lines := strings.Split(text, "\n")
	fm, body := frontMatter(lines)
	p.title, p.tags = fm.title, fm.tags
	// The title and tags are read below the front matter, whose fences are
	// followed from there.
	var fence, bodyFence fences
	for i, line := range lines {
		n := i + 1
		t := strings.TrimSpace(line)
		h, isHead := heading(t)
		if i >= body && !bodyFence.skip(t) {
			p.meta(line, t, n, h, isHead)
		}
		if fence.skip(t) {
			continue
		}
		if isHead {
			h.Path, h.Line = rel, n
			p.heads = append(p.heads, h)
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
			l.file = isFileTarget(l.Target)
			p.links = append(p.links, l)
		}
		for _, m := range mdLinkRe.FindAllStringSubmatch(line, -1) {
			target, ok := relativeFile(dir, m[2])
			if !ok {
				continue
			}
			l := Link{From: rel, Line: n, Context: ctx}
			l.Target, l.Heading, _ = strings.Cut(target, "#")
			l.file = m[1] == "!" || !isNoteName(l.Target)
			p.links = append(p.links, l)
		}
	}
	return p
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
	t, ok := relativeFile(dir, raw)
	if !ok {
		return "", false
	}
	if p, _, _ := strings.Cut(t, "#"); !isNoteName(p) {
		return "", false
	}
	return t, true
}

// relativeFile is relativeTarget for a link to any file (a note, an
// image, a PDF…): its workspace-relative path, with its #fragment.
func relativeFile(dir, raw string) (string, bool) {
	if strings.Contains(raw, ":") || strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "\\") || strings.HasPrefix(raw, "#") {
		return "", false
	}
	p, frag, _ := strings.Cut(raw, "#")
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	if p == "" || strings.HasSuffix(p, "/") {
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

// IsNote reports whether rel names a note (a Markdown file).
func IsNote(rel string) bool { return isNoteName(rel) }

// Section is the part of a note's text under its heading named heading
// (case-insensitive, as [[Note#Heading]] names it): the heading's line and
// what follows, up to the next heading of its level or higher (headings in
// code fences do not count). ok is false when the note has no such heading.
func Section(text, heading string) (section string, ok bool) {
	heads := parse("", text).heads
	lines := strings.SplitAfter(text, "\n")
	for i, h := range heads {
		if !strings.EqualFold(h.Text, strings.TrimSpace(heading)) {
			continue
		}
		end := len(lines)
		for _, next := range heads[i+1:] {
			if next.Level <= h.Level {
				end = next.Line - 1
				break
			}
		}
		return strings.Join(lines[h.Line-1:end], ""), true
	}
	return "", false
}
