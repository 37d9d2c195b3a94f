package notes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path"
	"slices"
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
// to another folder. An attachment (a file that is no note: an image, a
// PDF) moved from → to gets its links rewritten the same way:
// ![](attachments/a.png) recomputed, ![[a.png]] renamed. read gives a note's current text (its path as it is
// now); a note read reports missing is left out. Nothing is written.
//
// The candidates come from the index, which may not have seen the move
// yet: the move is applied to what it lists before resolving.
func (ix *Index) MoveRewrites(ctx context.Context, from, to string, read func(rel string) (string, error)) ([]Rewrite, error) {
	from, to = path.Clean(from), path.Clean(to)
	if isNoteName(from) != isNoteName(to) || from == to {
		return nil, nil // a note that became another kind of file (or back): its links are not the same kind
	}
	return ix.movesRewrites(ctx, map[string]string{from: to}, read)
}

// FolderMoveRewrites is MoveRewrites for a folder renamed or moved from →
// to (already at to): every note in it moved, and the links that pointed
// at any of them, or from them to notes outside, are rewritten as for a
// note's move, all at once (a link between two notes of the folder keeps
// working as it is written, and stays so). The index may list the notes
// under either folder.
func (ix *Index) FolderMoveRewrites(ctx context.Context, from, to string, read func(rel string) (string, error)) ([]Rewrite, error) {
	from, to = path.Clean(from), path.Clean(to)
	if from == to || from == "." || to == "." || strings.HasPrefix(from, "../") || strings.HasPrefix(to, "../") ||
		strings.HasPrefix(to+"/", from+"/") || strings.HasPrefix(from+"/", to+"/") {
		return nil, nil
	}
	moves := map[string]string{}
	for _, dir := range []string{from, to} {
		list, err := ix.List(ctx, dir)
		if err != nil {
			return nil, err
		}
		for _, n := range list {
			rest := strings.TrimPrefix(n.Path, dir+"/")
			moves[from+"/"+rest] = to + "/" + rest
		}
	}
	// Its attachments moved too (on disk at to).
	if err := ix.walkFiles(to, func(rel string) {
		rest := strings.TrimPrefix(rel, to+"/")
		moves[from+"/"+rest] = to + "/" + rest
	}); err != nil {
		return nil, err
	}
	if len(moves) == 0 {
		return nil, nil
	}
	return ix.movesRewrites(ctx, moves, read)
}

// movesRewrites computes the rewrites for notes moved old → new (moves).
func (ix *Index) movesRewrites(ctx context.Context, moves map[string]string, read func(rel string) (string, error)) ([]Rewrite, error) {
	list, err := ix.List(ctx, "")
	if err != nil {
		return nil, err
	}
	news := make(map[string]bool, len(moves))
	for _, nw := range moves {
		news[nw] = true
	}
	var all []string
	for _, n := range list {
		if _, old := moves[n.Path]; !old && !news[n.Path] {
			all = append(all, n.Path)
		}
	}
	// The moved notes first (their own links may need to follow them),
	// then the notes linking to a name one of them has (an attachment's
	// name keeps its extension).
	var srcs []string
	keys := map[string]bool{}
	for _, old := range slices.Sorted(maps.Keys(moves)) {
		nw := moves[old]
		if !isNoteName(nw) {
			keys[strings.ToLower(path.Base(old))] = true
			keys[strings.ToLower(path.Base(nw))] = true
			continue
		}
		all = append(all, nw)
		srcs = append(srcs, nw)
		keys[strings.ToLower(stem(old))] = true
		keys[strings.ToLower(stem(nw))] = true
	}
	seen := map[string]bool{}
	for _, s := range srcs {
		seen[s] = true
	}
	ks := slices.Sorted(maps.Keys(keys))
	for len(ks) > 0 {
		batch := ks[:min(len(ks), 400)]
		ks = ks[len(batch):]
		linking, err := ix.linkingTo(ctx, batch)
		if err != nil {
			return nil, err
		}
		for _, s := range linking {
			if nw, ok := moves[s]; ok {
				s = nw
			}
			if !seen[s] {
				seen[s] = true
				srcs = append(srcs, s)
			}
		}
	}
	mv := newMover(moves, all)
	var out []Rewrite
	for _, s := range srcs {
		text, err := read(s)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("notes: read %s: %w", s, err)
		}
		if nt, n := mv.rewrite(s, text); n > 0 {
			out = append(out, Rewrite{Path: s, Old: text, New: nt, Links: n})
		}
	}
	return out, nil
}

// linkingTo lists the notes with a link whose name (lower-case) is one of
// keys, by path.
func (ix *Index) linkingTo(ctx context.Context, keys []string) ([]string, error) {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	q := `SELECT DISTINCT src FROM links WHERE key IN (?` + strings.Repeat(",?", len(keys)-1) + `) ORDER BY src`
	rows, err := ix.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("notes: links to the moved notes: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("notes: links to the moved notes: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("notes: links to the moved notes: %w", err)
	}
	return out, nil
}

// walkFiles calls fn with the workspace-relative path of every regular
// file under the folder dir that is no note (its attachments), leaving out
// what the index ignores.
func (ix *Index) walkFiles(dir string, fn func(rel string)) error {
	root, err := os.OpenRoot(ix.dir)
	if err != nil {
		return fmt.Errorf("notes: open %s: %w", ix.dir, err)
	}
	defer root.Close()
	err = fs.WalkDir(root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // unreadable below: left alone
		}
		if ix.ignored(d.Name()) && p != dir {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !isNoteName(p) {
			fn(p)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("notes: files in %s: %w", dir, err)
	}
	return nil
}

// RewriteLinks returns the text of the note at rel with every link that
// pointed at the note from now pointing at to, where it moved, and how
// many links it changed. notes lists the workspace's notes after the move
// (to among them, from not); links resolve as Resolve does, before the
// move against the notes as they were.
//
// A wikilink keeps its #heading, its |alias and its form: a bare name
// stays a bare name when that name finds the moved note afterwards, else
// it becomes the note's path (without .md); a link written as a path keeps
// it when it still finds the note (the end of a path matches), else gets
// the new path. A relative Markdown link is recomputed from the linking
// note's folder. When rel is to (the moved note itself), its relative
// links to other notes are recomputed from its new folder; its own
// [[#Heading]] links are left alone. A wikilink to another note that the
// move would take over (the moved note is now beside the linking one, or
// has a shorter path) gets that note's path, so that it keeps pointing
// where it did. Code blocks are not touched.
func RewriteLinks(rel, text, from, to string, notes []string) (string, int) {
	return newMover(map[string]string{from: to}, notes).rewrite(rel, text)
}

// RewriteMovedLinks is RewriteLinks for several notes moved at once
// (moves: old path → new path; a folder's move), notes listing the notes
// after the moves.
func RewriteMovedLinks(rel, text string, moves map[string]string, notes []string) (string, int) {
	return newMover(moves, notes).rewrite(rel, text)
}

// mover rewrites links for a set of moves.
type mover struct {
	moves  map[string]string // old → new
	lower  map[string]string // lower-case old → new (Markdown links)
	files  map[string]string // lower-case old → new, of the attachments moved
	back   map[string]string // new → old
	before noteSet           // the notes as they were
	after  noteSet           // the notes as they are
}

func newMover(moves map[string]string, notes []string) *mover {
	m := &mover{moves: moves, lower: map[string]string{}, files: map[string]string{}, back: map[string]string{}}
	for old, nw := range moves {
		m.lower[strings.ToLower(old)] = nw
		m.back[nw] = old
		if !isNoteName(old) {
			m.files[strings.ToLower(old)] = nw
		}
	}
	before := make([]string, 0, len(notes)+len(moves))
	for _, n := range notes {
		if _, moved := m.back[n]; !moved {
			before = append(before, n)
		}
	}
	for old := range moves {
		before = append(before, old)
	}
	m.before, m.after = newNoteSet(before), newNoteSet(notes)
	return m
}

func (m *mover) rewrite(rel, text string) (string, int) {
	relBefore := rel
	if old, ok := m.back[rel]; ok {
		relBefore = old
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
		nl, n := m.rewriteWiki(line, rel, relBefore)
		nl, k := m.rewriteMarkdown(nl, rel, relBefore)
		if n+k > 0 {
			lines[i] = nl
			changed += n + k
		}
	}
	if changed == 0 {
		return text, 0
	}
	return strings.Join(lines, "\n"), changed
}

func (m *mover) rewriteWiki(line, rel, relBefore string) (string, int) {
	ms := wikiRe.FindAllStringSubmatchIndex(line, -1)
	if ms == nil {
		return line, 0
	}
	var sb strings.Builder
	last, n := 0, 0
	for _, mt := range ms {
		inner := line[mt[2]:mt[3]]
		target, _, _ := wikiParts(inner)
		if target == "" { // [[#Heading]]: the note itself, whatever its name
			continue
		}
		if isFileTarget(target) {
			if ni, ok := m.fileWiki(inner, target); ok {
				sb.WriteString(line[last:mt[2]])
				sb.WriteString(ni)
				last = mt[3]
				n++
			}
			continue
		}
		l := Link{Target: target, Wiki: true}
		was := m.before.pick(relBefore, l)
		if was == "" {
			continue
		}
		now, moved := m.moves[was]
		bare := !strings.Contains(target, "/")
		if !moved {
			now = was
		}
		if (!moved || !bare) && m.after.pick(rel, l) == now {
			continue // still finds it as written
		}
		// Replace only the target part, keeping #heading, |alias and spacing.
		head, alias, hasAlias := strings.Cut(inner, "|")
		tpart, hpart, hasHeading := strings.Cut(head, "#")
		newT := strings.TrimSuffix(now, path.Ext(now))
		if moved && bare {
			name := stem(now)
			if m.after.pick(rel, Link{Target: name, Wiki: true}) == now {
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
		sb.WriteString(line[last:mt[2]])
		sb.WriteString(ni)
		last = mt[3]
		n++
	}
	if n == 0 {
		return line, 0
	}
	sb.WriteString(line[last:])
	return sb.String(), n
}

func (m *mover) rewriteMarkdown(line, rel, relBefore string) (string, int) {
	ms := mdLinkRe.FindAllStringSubmatchIndex(line, -1)
	if ms == nil {
		return line, 0
	}
	moved := relBefore != rel && path.Dir(relBefore) != path.Dir(rel)
	var sb strings.Builder
	last, n := 0, 0
	for _, mt := range ms {
		raw := line[mt[4]:mt[5]]
		target, ok := relativeFile(path.Dir(relBefore), raw)
		if !ok {
			continue
		}
		p, _, _ := strings.Cut(target, "#")
		if nw, ok := m.lower[strings.ToLower(p)]; ok {
			p = nw
		} else if !moved {
			continue
		}
		rawPath, frag, hasFrag := strings.Cut(raw, "#")
		nr := relPath(path.Dir(rel), p)
		if strings.HasPrefix(rawPath, "./") && !strings.HasPrefix(nr, "../") {
			nr = "./" + nr
		}
		nr = escapeLinkPath(nr, linkEscaping(rawPath))
		if hasFrag {
			nr += "#" + frag
		}
		if nr == raw {
			continue
		}
		sb.WriteString(line[last:mt[4]])
		sb.WriteString(nr)
		last = mt[5]
		n++
	}
	if n == 0 {
		return line, 0
	}
	sb.WriteString(line[last:])
	return sb.String(), n
}

// fileWiki rewrites the inside of a wikilink to an attachment
// (![[a.png]], [[docs/a.pdf|the report]]) that moved: a bare name gets the
// new name, a path the new path; #… and |alias stay. ok is false when the
// link names no moved attachment, or already reads as it should.
func (m *mover) fileWiki(inner, target string) (string, bool) {
	lt := strings.ToLower(target)
	var now string
	for old, nw := range m.files {
		if old == lt || strings.HasSuffix(old, "/"+lt) {
			now = nw
			break
		}
	}
	if now == "" {
		return "", false
	}
	head, alias, hasAlias := strings.Cut(inner, "|")
	_, hpart, hasHeading := strings.Cut(head, "#")
	ni := now
	if !strings.Contains(target, "/") {
		ni = path.Base(now)
	}
	if hasHeading {
		ni += "#" + hpart
	}
	if hasAlias {
		ni += "|" + alias
	}
	return ni, ni != inner
}

// noteSet holds note paths by lower-case name, to resolve links against a
// list of notes (Resolve's rule without the index).
type noteSet map[string][]string

func newNoteSet(notes []string) noteSet {
	s := noteSet{}
	for _, n := range notes {
		k := strings.ToLower(stem(n))
		s[k] = append(s[k], n)
	}
	return s
}

// pick resolves a link from the note at from.
func (s noteSet) pick(from string, l Link) string {
	name := strings.ToLower(path.Base(l.Target))
	if !l.Wiki {
		name = strings.TrimSuffix(name, path.Ext(name))
	}
	return pick(from, l, s[name])
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

// How a link's path was written: as it reads (a bare target), with the
// characters a bare target cannot hold escaped (%20 — what mnote writes for a
// pasted file), or every non-ASCII character escaped too (%E7%BC%93…).
type escaping int

const (
	escapeNone escaping = iota
	escapeASCII
	escapeAll
)

// linkEscaping tells how raw (a link's path as written) was escaped.
func linkEscaping(raw string) escaping {
	e := escapeNone
	for i := 0; i+2 < len(raw); i++ {
		if raw[i] != '%' || !isHex(raw[i+1]) || !isHex(raw[i+2]) {
			continue
		}
		if raw[i+1] >= '8' {
			return escapeAll // a UTF-8 byte: non-ASCII was escaped
		}
		e = escapeASCII
	}
	return e
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// escapeLinkPath makes a path usable as a Markdown link target, escaped as
// the link was written: each segment URL-escaped (escapeAll); else only what
// a bare target cannot hold (spaces, parentheses), Chinese and the rest left
// as they read — and a literal % escaped when the link had escapes, so it is
// not read as one.
func escapeLinkPath(p string, e escaping) string {
	if e == escapeAll {
		segs := strings.Split(p, "/")
		for i, s := range segs {
			if s != ".." && s != "." {
				segs[i] = url.PathEscape(s)
			}
		}
		return strings.Join(segs, "/")
	}
	if e == escapeASCII {
		p = strings.ReplaceAll(p, "%", "%25")
	}
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "\t", "%09").Replace(p)
}
