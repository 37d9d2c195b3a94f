package notes

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"mnote/store/ftstoken"
)

// Hit is one note matching a search.
type Hit struct {
	Path string `json:"path"`
	// Line is the 1-based line of the first match, Snippet that line (cut
	// around the match when long) with the matched terms between « and ».
	Line    int     `json:"line"`
	Snippet string  `json:"snippet"`
	Rank    float64 `json:"rank"` // bm25: lower is better
	// Count is how many lines of the note match, Lines the first of them
	// (SearchOptions.Lines), in order.
	Count int       `json:"count,omitempty"`
	Lines []HitLine `json:"lines,omitempty"`
}

// HitLine is one matching line of a note: 1-based, and its snippet as
// Hit.Snippet.
type HitLine struct {
	Line    int    `json:"line"`
	Snippet string `json:"snippet"`
}

// SearchOptions narrow a search.
type SearchOptions struct {
	// Folder, when set, keeps notes in that folder (slash-separated,
	// relative) and below.
	Folder string
	Limit  int // 50 when 0
	// Lines, when set, lists up to that many matching lines of each note
	// (Hit.Lines); Hit.Count counts them all.
	Lines int
}

// snippetRunes is about how much of a long line a hit shows.
const snippetRunes = 160

// Search finds notes holding every word of query (any order; the last a
// prefix of 3 or more characters; CJK text as substrings: see
// store/ftstoken), best first. Words written tag:NAME or #NAME keep the
// notes carrying that tag (or a tag nested in it, NAME/…); a query of tags
// alone lists those notes by path, their hits being where the tags are
// written.
func (ix *Index) Search(ctx context.Context, query string, o SearchOptions) ([]Hit, error) {
	tags, query := splitTags(query)
	limit := o.Limit
	if limit <= 0 {
		limit = 50
	}
	folder := strings.Trim(path.Clean("/"+o.Folder), "/")
	match := ftstoken.Query(query)
	if match == "" {
		if len(tags) > 0 {
			return ix.searchTags(ctx, tags, folder, limit, o.Lines)
		}
		return nil, nil
	}
	sqlq := `SELECT n.path, highlight(notes_fts, 0, char(1), char(2)), notes_fts.rank
		FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid
		WHERE notes_fts MATCH ?`
	args := []any{match}
	if folder != "" {
		sqlq += ` AND n.path >= ? AND n.path < ?` // '0' follows '/'
		args = append(args, folder+"/", folder+"0")
	}
	if len(tags) > 0 {
		cond, targs := tagFilter(tags)
		sqlq += cond
		args = append(args, targs...)
	}
	common := ftstoken.AllOneCJK(query) // see ftstoken.AllOneCJK
	if !common {
		var err error
		if common, err = ix.matchesMoreThan(ctx, match, rankLimit); err != nil {
			return nil, fmt.Errorf("notes: search %q: %w", query, err)
		}
	}
	if common {
		sqlq += ` ORDER BY notes_fts.rowid DESC LIMIT ?`
	} else {
		sqlq += ` ORDER BY notes_fts.rank LIMIT ?`
	}
	args = append(args, limit)
	rows, err := ix.r.QueryContext(ctx, sqlq, args...)
	if err != nil {
		return nil, fmt.Errorf("notes: search %q: %w", query, err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		var marked string
		if err := rows.Scan(&h.Path, &marked, &h.Rank); err != nil {
			return nil, fmt.Errorf("notes: search %q: %w", query, err)
		}
		h.Line, h.Snippet = lineOfMatch(marked)
		if o.Lines > 0 {
			h.Count, h.Lines = matchLines(marked, o.Lines)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("notes: search %q: %w", query, err)
	}
	return hits, nil
}

// rankLimit is how many matching notes a search ranks by relevance (bm25
// scores every match: on 100,000 notes a word in half of them took 150 ms).
// A query matching more — a very common word — lists the notes indexed
// most recently first, which FTS5 reads in order and stops at the limit.
const rankLimit = 5000

// matchesMoreThan reports whether the FTS5 query match finds more than n
// notes, counting no further than n+1 (doclists are merged in rowid order,
// without scoring, so this is cheap even for a common word).
func (ix *Index) matchesMoreThan(ctx context.Context, match string, n int) (bool, error) {
	var count int
	err := ix.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? LIMIT ?)`, match, n+1).Scan(&count)
	return count > n, err
}

// lineOfMatch finds the first highlighted match (between \x01 and \x02) in
// a note's marked text: its 1-based line, and that line with « » marks,
// cut around the match when long.
func lineOfMatch(marked string) (int, string) {
	i := strings.IndexByte(marked, 1)
	if i < 0 {
		return 1, ""
	}
	line := 1 + strings.Count(marked[:i], "\n")
	start := strings.LastIndexByte(marked[:i], '\n') + 1
	end := strings.IndexByte(marked[i:], '\n')
	if end < 0 {
		end = len(marked)
	} else {
		end += i
	}
	return line, snippet(marked[start:end], i-start)
}

// matchLines lists the lines of a note's marked text holding a match
// (up to max of them, each as lineOfMatch words it) and counts them all.
func matchLines(marked string, max int) (int, []HitLine) {
	var out []HitLine
	count, line := 0, 1
	for rest := marked; rest != ""; line++ {
		text, next, found := strings.Cut(rest, "\n")
		if at := strings.IndexByte(text, 1); at >= 0 {
			count++
			if len(out) < max {
				out = append(out, HitLine{Line: line, Snippet: snippet(text, at)})
			}
		}
		if !found {
			break
		}
		rest = next
	}
	return count, out
}

// snippet is a line with its first match at byte at: cut around it when
// long, the marks turned into « ».
func snippet(text string, at int) string {
	// Cut a long line around the first match.
	if utf8.RuneCountInString(text) > snippetRunes {
		from := at
		for n := 0; from > 0 && n < snippetRunes/3; n++ {
			_, size := utf8.DecodeLastRuneInString(text[:from])
			from -= size
		}
		to := from
		for n := 0; to < len(text) && n < snippetRunes; n++ {
			_, size := utf8.DecodeRuneInString(text[to:])
			to += size
		}
		prefix, suffix := "", ""
		if from > 0 {
			prefix = "…"
		}
		if to < len(text) {
			suffix = "…"
		}
		text = prefix + text[from:to] + suffix
		// A cut may have split a pair of marks.
		if strings.Count(text, "\x01") > strings.Count(text, "\x02") {
			text += "\x02"
		}
		if j := strings.IndexByte(text, 2); j >= 0 && (strings.IndexByte(text, 1) < 0 || j < strings.IndexByte(text, 1)) {
			text = "\x01" + text
		}
	}
	text = strings.TrimRight(text, "\r")
	return strings.NewReplacer("\x01", "«", "\x02", "»").Replace(text)
}

// Headings finds headings matching query (Quick Open's "#"), best first;
// an empty query lists the first ones by path.
func (ix *Index) Headings(ctx context.Context, query string, limit int) ([]Heading, error) {
	if limit <= 0 {
		limit = 50
	}
	match := ftstoken.Query(query)
	var q string
	var args []any
	if match == "" {
		q = `SELECT path, level, text, line FROM headings ORDER BY path, line LIMIT ?`
		args = []any{limit}
	} else {
		q = `SELECT h.path, h.level, h.text, h.line FROM headings_fts JOIN headings h ON h.id = headings_fts.rowid
			WHERE headings_fts MATCH ? ORDER BY headings_fts.rank LIMIT ?`
		args = []any{match, limit}
	}
	return ix.headings(ctx, q, args...)
}

// Outline lists a note's headings in order.
func (ix *Index) Outline(ctx context.Context, rel string) ([]Heading, error) {
	return ix.headings(ctx, `SELECT path, level, text, line FROM headings WHERE path = ? ORDER BY line`, path.Clean(rel))
}

func (ix *Index) headings(ctx context.Context, q string, args ...any) ([]Heading, error) {
	rows, err := ix.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("notes: headings: %w", err)
	}
	defer rows.Close()
	var out []Heading
	for rows.Next() {
		var h Heading
		if err := rows.Scan(&h.Path, &h.Level, &h.Text, &h.Line); err != nil {
			return nil, fmt.Errorf("notes: headings: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Note is one indexed file.
type Note struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	// Skipped says why its text is not indexed: "too-big", "not-text".
	Skipped string `json:"skipped,omitempty"`
}

// List lists the notes in folder (and below; "" is all), by path.
func (ix *Index) List(ctx context.Context, folder string) ([]Note, error) {
	folder = strings.Trim(path.Clean("/"+folder), "/")
	q := `SELECT path, size, skipped FROM notes`
	var args []any
	if folder != "" {
		q += ` WHERE path >= ? AND path < ?` // '0' follows '/'
		args = append(args, folder+"/", folder+"0")
	}
	rows, err := ix.r.QueryContext(ctx, q+` ORDER BY path`, args...)
	if err != nil {
		return nil, fmt.Errorf("notes: list: %w", err)
	}
	defer rows.Close()
	var out []Note
	for rows.Next() {
		var n Note
		if err := rows.Scan(&n.Path, &n.Size, &n.Skipped); err != nil {
			return nil, fmt.Errorf("notes: list: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Resolve finds the note a link from the note at from points at (see the
// package doc), or "" when none does.
func (ix *Index) Resolve(ctx context.Context, from string, l Link) (string, error) {
	target := l.Target
	name := strings.ToLower(path.Base(target))
	q := `SELECT path FROM notes WHERE name = ?`
	switch {
	case l.Wiki && isFileTarget(target):
		q = `SELECT path FROM files WHERE name = ?` // [[a.pdf]], ![[a.png]]: an attachment
	case !l.Wiki:
		name = strings.TrimSuffix(name, path.Ext(name))
	}
	rows, err := ix.r.QueryContext(ctx, q, name)
	if err != nil {
		return "", fmt.Errorf("notes: resolve %s: %w", target, err)
	}
	var cands []string
	for rows.Next() {
		var p string
		rows.Scan(&p)
		cands = append(cands, p)
	}
	rows.Close()
	return pick(from, l, cands), nil
}

// pick chooses among the notes named like a link's target.
func pick(from string, l Link, cands []string) string {
	lt := strings.ToLower(l.Target)
	var ok []string
	for _, c := range cands {
		lc := strings.ToLower(c)
		if !l.Wiki {
			if lc == lt {
				return c
			}
			continue
		}
		stem := strings.TrimSuffix(lc, path.Ext(lc))
		if isFileTarget(l.Target) {
			stem = lc // an attachment is named with its extension
		}
		if stem == lt || strings.HasSuffix(stem, "/"+lt) {
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		return ""
	}
	dir := path.Dir(from)
	sort.Slice(ok, func(i, j int) bool {
		a, b := path.Dir(ok[i]) == dir, path.Dir(ok[j]) == dir
		if a != b {
			return a
		}
		if len(ok[i]) != len(ok[j]) {
			return len(ok[i]) < len(ok[j])
		}
		return ok[i] < ok[j]
	})
	return ok[0]
}

// Links lists a note's outgoing links, each resolved.
func (ix *Index) Links(ctx context.Context, rel string) ([]Link, error) {
	rel = path.Clean(rel)
	links, err := ix.links(ctx, `SELECT src, line, context, target, heading, alias, wiki FROM links WHERE src = ? AND file = 0 ORDER BY line`, rel)
	if err != nil {
		return nil, err
	}
	for i := range links {
		if links[i].Resolved, err = ix.Resolve(ctx, rel, links[i]); err != nil {
			return nil, err
		}
	}
	return links, nil
}

// Backlinks lists the links in other notes (and in the note itself) that
// resolve to the note at rel, by linking note and line.
func (ix *Index) Backlinks(ctx context.Context, rel string) ([]Link, error) {
	rel = path.Clean(rel)
	key := strings.ToLower(strings.TrimSuffix(path.Base(rel), path.Ext(rel)))
	links, err := ix.links(ctx, `SELECT src, line, context, target, heading, alias, wiki FROM links WHERE key = ? AND file = 0 ORDER BY src, line`, key)
	if err != nil {
		return nil, err
	}
	out := links[:0]
	for _, l := range links {
		to, err := ix.Resolve(ctx, l.From, l)
		if err != nil {
			return nil, err
		}
		if to == rel {
			l.Resolved = to
			out = append(out, l)
		}
	}
	return out, nil
}

// Unresolved lists the links to notes that no note answers (as Resolve
// would find none), by linking note and line: of the note at rel, or of
// every note when rel is "". Links to attachments are not counted.
func (ix *Index) Unresolved(ctx context.Context, rel string) ([]Link, error) {
	q, args := `SELECT src, line, context, target, heading, alias, wiki FROM links WHERE file = 0 ORDER BY src, line`, []any(nil)
	if rel != "" {
		q, args = `SELECT src, line, context, target, heading, alias, wiki FROM links WHERE src = ? AND file = 0 ORDER BY line`, []any{path.Clean(rel)}
	}
	links, err := ix.links(ctx, q, args...)
	if err != nil || len(links) == 0 {
		return nil, err
	}
	all, err := ix.List(ctx, "")
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(all))
	for i, n := range all {
		paths[i] = n.Path
	}
	set := newNoteSet(paths)
	out := links[:0]
	for _, l := range links {
		if set.pick(l.From, l) == "" {
			out = append(out, l)
		}
	}
	return out, nil
}

func (ix *Index) links(ctx context.Context, q string, args ...any) ([]Link, error) {
	rows, err := ix.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("notes: links: %w", err)
	}
	defer rows.Close()
	var out []Link
	for rows.Next() {
		var l Link
		if err := rows.Scan(&l.From, &l.Line, &l.Context, &l.Target, &l.Heading, &l.Alias, &l.Wiki); err != nil {
			return nil, fmt.Errorf("notes: links: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
