package notes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strings"
)

// Rewrite is the new text of one note whose links pointed at a note that
// moved (see MoveRewrites).
type Rewrite struct {
	Path  string
	Old   string
	New   string
	Links int // links changed
}

// MoveRewrites computes, for a note renamed or moved from → to (the file
// already at to), the new text of every note whose links pointed at it,
// and of the moved note itself when its own relative links must follow it
// to another folder. read gives a note's current text (its path as it is
// now); a note read reports missing is left out. Nothing is written.
//
// The candidates come from the index, which may not have seen the move
// yet: the move is applied to what it lists before resolving.
func (ix *Index) MoveRewrites(ctx context.Context, from, to string, read func(rel string) (string, error)) ([]Rewrite, error) {
	from, to = path.Clean(from), path.Clean(to)
	if !isNoteName(from) || !isNoteName(to) || from == to {
		return nil, nil
	}
	list, err := ix.List(ctx, "")
	if err != nil {
		return nil, err
	}
	var all []string
	for _, n := range list {
		if n.Path != from && n.Path != to {
			all = append(all, n.Path)
		}
	}
	all = append(all, to)
	key := strings.ToLower(stem(from))
	rows, err := ix.r.QueryContext(ctx, `SELECT DISTINCT src FROM links WHERE key = ? ORDER BY src`, key)
	if err != nil {
		return nil, fmt.Errorf("notes: links to %s: %w", from, err)
	}
	srcs := []string{to}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, fmt.Errorf("notes: links to %s: %w", from, err)
		}
		if s != from && s != to {
			srcs = append(srcs, s)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("notes: links to %s: %w", from, err)
	}
	var out []Rewrite
	for _, s := range srcs {
		text, err := read(s)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("notes: read %s: %w", s, err)
		}
		if nt, n := RewriteLinks(s, text, from, to, all); n > 0 {
			out = append(out, Rewrite{Path: s, Old: text, New: nt, Links: n})
		}
	}
	return out, nil
}

// RewriteLinks returns the text of the note at rel with every link that
// pointed at the note from now pointing at to, where it moved, and how
// many links it changed. notes lists the workspace's notes after the move
// (to among them, from not); links resolve as Resolve does, before the
// move against the notes as they were.
//
// A wikilink keeps its #heading, its |alias and its form: a bare name
// stays a bare name when that name finds the moved note afterwards, else
// it becomes the note's path (without .md); a link written as a path gets
// the new path. A relative Markdown link is recomputed from the linking
// note's folder. When rel is to (the moved note itself), its relative
// links to other notes are recomputed from its new folder; its own
// [[#Heading]] links are left alone. Code blocks are not touched.
func RewriteLinks(rel, text, from, to string, notes []string) (string, int) {
	before := make([]string, 0, len(notes)+1)
	for _, n := range notes {
		if n != to {
			before = append(before, n)
		}
	}
	before = append(before, from)
	relBefore := rel
	if rel == to {
		relBefore = from
	}
	lines := strings.Split(text, "\n")
	changed := 0
	var fence fences
	for i, line := range lines {
		if fence.skip(strings.TrimSpace(line)) {
			continue
		}
		if !strings.Contains(line, "](") && !strings.Contains(line, "[[") {
			continue
		}
		nl, n := rewriteWiki(line, rel, relBefore, from, to, before, notes)
		nl, m := rewriteMarkdown(nl, rel, relBefore, from, to)
		if n+m > 0 {
			lines[i] = nl
			changed += n + m
		}
	}
	if changed == 0 {
		return text, 0
	}
	return strings.Join(lines, "\n"), changed
}

func rewriteWiki(line, rel, relBefore, from, to string, before, after []string) (string, int) {
	ms := wikiRe.FindAllStringSubmatchIndex(line, -1)
	if ms == nil {
		return line, 0
	}
	var sb strings.Builder
	last, n := 0, 0
	for _, m := range ms {
		inner := line[m[2]:m[3]]
		target, _, _ := wikiParts(inner)
		if target == "" { // [[#Heading]]: the note itself, whatever its name
			continue
		}
		l := Link{Target: target, Wiki: true}
		if pickAmong(relBefore, l, before) != from {
			continue
		}
		// Replace only the target part, keeping #heading, |alias and spacing.
		head, alias, hasAlias := strings.Cut(inner, "|")
		tpart, hpart, hasHeading := strings.Cut(head, "#")
		newT := strings.TrimSuffix(to, path.Ext(to))
		if !strings.Contains(target, "/") {
			name := stem(to)
			if pickAmong(rel, Link{Target: name, Wiki: true}, after) == to {
				newT = name
			}
		}
		if strings.HasSuffix(strings.TrimSpace(tpart), ".md") {
			newT += ".md"
		}
		ni := newT
		if hasHeading {
			ni += "#" + hpart
		}
		if hasAlias {
			ni += "|" + alias
		}
		if ni == inner {
			continue
		}
		sb.WriteString(line[last:m[2]])
		sb.WriteString(ni)
		last = m[3]
		n++
	}
	if n == 0 {
		return line, 0
	}
	sb.WriteString(line[last:])
	return sb.String(), n
}

func rewriteMarkdown(line, rel, relBefore, from, to string) (string, int) {
	ms := mdLinkRe.FindAllStringSubmatchIndex(line, -1)
	if ms == nil {
		return line, 0
	}
	moved := rel == to && path.Dir(from) != path.Dir(to)
	var sb strings.Builder
	last, n := 0, 0
	for _, m := range ms {
		raw := line[m[4]:m[5]]
		target, ok := relativeTarget(path.Dir(relBefore), raw)
		if !ok {
			continue
		}
		p, _, _ := strings.Cut(target, "#")
		switch {
		case strings.EqualFold(p, from):
			p = to
		case !moved:
			continue
		}
		rawPath, frag, hasFrag := strings.Cut(raw, "#")
		nr := relPath(path.Dir(rel), p)
		if strings.HasPrefix(rawPath, "./") && !strings.HasPrefix(nr, "../") {
			nr = "./" + nr
		}
		nr = escapeLinkPath(nr, strings.Contains(rawPath, "%"))
		if hasFrag {
			nr += "#" + frag
		}
		if nr == raw {
			continue
		}
		sb.WriteString(line[last:m[4]])
		sb.WriteString(nr)
		last = m[5]
		n++
	}
	if n == 0 {
		return line, 0
	}
	sb.WriteString(line[last:])
	return sb.String(), n
}

// pickAmong resolves a link against a list of note paths (Resolve's rule
// without the index).
func pickAmong(from string, l Link, notes []string) string {
	name := strings.ToLower(path.Base(l.Target))
	if !l.Wiki {
		name = strings.TrimSuffix(name, path.Ext(name))
	}
	var cands []string
	for _, n := range notes {
		if strings.ToLower(stem(n)) == name {
			cands = append(cands, n)
		}
	}
	return pick(from, l, cands)
}

// stem is a note's file name without its extension.
func stem(rel string) string {
	b := path.Base(rel)
	return strings.TrimSuffix(b, path.Ext(b))
}

// relPath is the relative path from the folder dir to the note at target
// (both workspace-relative; "." is the top).
func relPath(dir, target string) string {
	if dir == "." || dir == "" {
		return target
	}
	ds := strings.Split(dir, "/")
	ts := strings.Split(target, "/")
	i := 0
	for i < len(ds) && i < len(ts)-1 && ds[i] == ts[i] {
		i++
	}
	var parts []string
	for range ds[i:] {
		parts = append(parts, "..")
	}
	return strings.Join(append(parts, ts[i:]...), "/")
}

// escapeLinkPath makes a path usable as a Markdown link target: each
// segment URL-escaped when the link was written escaped, else only what a
// bare target cannot hold (spaces, parentheses).
func escapeLinkPath(p string, escaped bool) string {
	if escaped {
		segs := strings.Split(p, "/")
		for i, s := range segs {
			if s != ".." && s != "." {
				segs[i] = url.PathEscape(s)
			}
		}
		return strings.Join(segs, "/")
	}
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "\t", "%09").Replace(p)
}
