package notes

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// metaSchema holds what a note says about itself: its title (front
// matter's title:, else its first heading) and its tags (#标签 in its text,
// front matter's tags:), each where it is written.
const metaSchema = `
CREATE TABLE IF NOT EXISTS titles (
    path  TEXT PRIMARY KEY,
    title TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tags (
    path    TEXT NOT NULL,
    line    INTEGER NOT NULL,
    tag     TEXT NOT NULL,    -- as written, without #
    key     TEXT NOT NULL,    -- lower-case, for matching
    context TEXT NOT NULL     -- the line (trimmed)
);
CREATE INDEX IF NOT EXISTS tags_path ON tags (path);
CREATE INDEX IF NOT EXISTS tags_key ON tags (key);
`

// TagAt is one tag written in a note.
type TagAt struct {
	Tag     string // without #
	Line    int    // 1-based
	Context string // the line, trimmed
}

// meta reads, from one line of a note's text below its front matter and
// outside code blocks (parse), its title and tags. The title is front
// matter's title:, else the text of the first heading, else "". Tags are
// front matter's tags: (a list, or inline: [a, b], "a, b", "a b") and
// every #tag in the text: a # at the start of a line or after a space,
// followed by letters or digits of any script (and _ - /), not all
// digits, ending at a space or punctuation — not in code (fences,
// `spans`), not a heading's "# ", not a URL's #fragment.
func (p *parsed) meta(line, t string, n int, h Heading, isHead bool) {
	if p.title == "" && isHead {
		p.title = h.Text
	}
	if !strings.Contains(line, "#") {
		return
	}
	ctx := cut(t, contextMax)
	for _, tag := range inlineTags(strings.TrimRight(line, "\r")) {
		p.tags = append(p.tags, TagAt{Tag: tag, Line: n, Context: ctx})
	}
}

type frontMatterFields struct {
	title string
	tags  []TagAt
}

// frontMatter reads a YAML front matter block (--- … --- at the very top)
// for title: and tags:; end is the index of the line after it (0: none).
func frontMatter(lines []string) (fm frontMatterFields, end int) {
	if len(lines) == 0 || strings.TrimRight(lines[0], "\r ") != "---" {
		return fm, 0
	}
	close := -1
	for i := 1; i < len(lines) && i < 200; i++ {
		if t := strings.TrimRight(lines[i], "\r "); t == "---" || t == "..." {
			close = i
			break
		}
	}
	if close < 0 {
		return fm, 0
	}
	inTags := false
	for i := 1; i < close; i++ {
		line := strings.TrimRight(lines[i], "\r")
		t := strings.TrimSpace(line)
		if inTags {
			if item, ok := strings.CutPrefix(t, "- "); ok || t == "-" {
				for _, tag := range yamlTags(item) {
					fm.tags = append(fm.tags, TagAt{Tag: tag, Line: i + 1, Context: cut(t, contextMax)})
				}
				continue
			}
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			inTags = false
		}
		if line != strings.TrimLeft(line, " \t") { // nested keys are not ours
			continue
		}
		key, val, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "title":
			fm.title = unquote(val)
		case "tags", "tag":
			if val == "" {
				inTags = true
				continue
			}
			for _, tag := range yamlTags(strings.Trim(val, "[]")) {
				fm.tags = append(fm.tags, TagAt{Tag: tag, Line: i + 1, Context: cut(t, contextMax)})
			}
		}
	}
	return fm, close + 1
}

// yamlTags splits an inline list of tags ("a, b", "a b", "'a', \"b\"").
func yamlTags(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '，' || unicode.IsSpace(r) }) {
		f = strings.TrimPrefix(unquote(f), "#")
		if validTag(f) {
			out = append(out, f)
		}
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// isTagRune reports whether r may be part of a tag.
func isTagRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || r == '_' || r == '-' || r == '/'
}

// validTag: tag characters only, and not only digits (#1 is an issue number).
func validTag(s string) bool {
	if s == "" || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") {
		return false
	}
	digits := true
	for _, r := range s {
		if !isTagRune(r) {
			return false
		}
		if !unicode.IsNumber(r) {
			digits = false
		}
	}
	return !digits
}

// inlineTags finds the #tags of one line of text (outside `code spans`).
func inlineTags(line string) []string {
	var out []string
	code := 0 // length of the open code span's backtick run, 0 outside one
	for i := 0; i < len(line); {
		c := line[i]
		if c == '`' {
			n := 0
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			switch {
			case code == 0:
				if strings.Contains(line[i+n:], strings.Repeat("`", n)) {
					code = n
				}
			case code == n:
				code = 0
			}
			i += n
			continue
		}
		if c != '#' || code != 0 {
			i++
			continue
		}
		if i > 0 {
			prev, _ := utf8.DecodeLastRuneInString(line[:i])
			if !unicode.IsSpace(prev) && !strings.ContainsRune("(（[【,，、;；", prev) {
				i++
				continue
			}
		}
		j := i + 1
		for j < len(line) {
			r, size := utf8.DecodeRuneInString(line[j:])
			if !isTagRune(r) {
				break
			}
			j += size
		}
		tag := strings.TrimRight(line[i+1:j], "/")
		if validTag(tag) {
			out = append(out, tag)
		}
		if j == i+1 {
			j++
		}
		i = j
	}
	return out
}

// TagCount is one tag of the folder and how many notes carry it.
type TagCount struct {
	Tag   string `json:"tag"`
	Notes int    `json:"notes"`
}

// Tags lists the folder's tags, the most used first (then by name). A tag
// written in several cases is listed once, as most notes write it.
func (ix *Index) Tags(ctx context.Context) ([]TagCount, error) {
	rows, err := ix.r.QueryContext(ctx, `
		SELECT (SELECT t2.tag FROM tags t2 WHERE t2.key = t.key GROUP BY t2.tag ORDER BY count(*) DESC, t2.tag LIMIT 1),
		       count(DISTINCT t.path) AS n
		FROM tags t GROUP BY t.key ORDER BY n DESC, t.key`)
	if err != nil {
		return nil, fmt.Errorf("notes: tags: %w", err)
	}
	defer rows.Close()
	var out []TagCount
	for rows.Next() {
		var tc TagCount
		if err := rows.Scan(&tc.Tag, &tc.Notes); err != nil {
			return nil, fmt.Errorf("notes: tags: %w", err)
		}
		out = append(out, tc)
	}
	return out, rows.Err()
}

// NoteTitle is a note's path and its title ("" when it has none).
type NoteTitle struct {
	Path  string `json:"path"`
	Title string `json:"title,omitempty"`
}

// Titles lists every indexed note with its title, by path (Quick Open).
func (ix *Index) Titles(ctx context.Context) ([]NoteTitle, error) {
	rows, err := ix.r.QueryContext(ctx, `SELECT n.path, coalesce(t.title, '') FROM notes n LEFT JOIN titles t ON t.path = n.path ORDER BY n.path`)
	if err != nil {
		return nil, fmt.Errorf("notes: titles: %w", err)
	}
	defer rows.Close()
	var out []NoteTitle
	for rows.Next() {
		var nt NoteTitle
		if err := rows.Scan(&nt.Path, &nt.Title); err != nil {
			return nil, fmt.Errorf("notes: titles: %w", err)
		}
		out = append(out, nt)
	}
	return out, rows.Err()
}

// splitTags takes the tag filters out of a search query: words written
// tag:NAME or #NAME. They are returned lower-cased; rest is the query
// without them.
func splitTags(query string) (tags []string, rest string) {
	var words []string
	for _, w := range strings.Fields(query) {
		t, ok := strings.CutPrefix(w, "#")
		if !ok && len(w) > 4 && strings.EqualFold(w[:4], "tag:") {
			t, ok = strings.TrimPrefix(w[4:], "#"), true
		}
		if ok && validTag(strings.TrimRight(t, "/")) {
			tags = append(tags, strings.ToLower(strings.TrimRight(t, "/")))
			continue
		}
		words = append(words, w)
	}
	return tags, strings.Join(words, " ")
}

// tagFilter is the SQL condition (on n.path) keeping notes that carry
// every tag (a tag also matches its nested tags: a matches a/b).
func tagFilter(tags []string) (string, []any) {
	var b strings.Builder
	var args []any
	for _, t := range tags {
		b.WriteString(` AND n.path IN (SELECT path FROM tags WHERE key = ? OR (key >= ? AND key < ?))`)
		args = append(args, t, t+"/", t+"0") // '0' follows '/'
	}
	return b.String(), args
}

// searchTags answers a query made only of tags: the notes carrying all of
// them, each with the lines where they are written.
func (ix *Index) searchTags(ctx context.Context, tags []string, folder string, limit, lines int) ([]Hit, error) {
	cond, args := tagFilter(tags)
	q := `SELECT n.path, t.line, t.tag, t.context FROM notes n JOIN tags t ON t.path = n.path WHERE 1` + cond
	if folder != "" {
		q += ` AND n.path >= ? AND n.path < ?`
		args = append(args, folder+"/", folder+"0")
	}
	rows, err := ix.r.QueryContext(ctx, q+` ORDER BY n.path, t.line`, args...)
	if err != nil {
		return nil, fmt.Errorf("notes: search tags: %w", err)
	}
	defer rows.Close()
	var hits []Hit
	lastLine := 0
	for rows.Next() {
		var p, tag, ctxLine string
		var line int
		if err := rows.Scan(&p, &line, &tag, &ctxLine); err != nil {
			return nil, fmt.Errorf("notes: search tags: %w", err)
		}
		if !tagWanted(strings.ToLower(tag), tags) {
			continue
		}
		if len(hits) == 0 || hits[len(hits)-1].Path != p {
			if len(hits) == limit {
				break
			}
			hits = append(hits, Hit{Path: p, Line: line, Snippet: markTag(ctxLine, tag)})
			lastLine = 0
		}
		h := &hits[len(hits)-1]
		if line == lastLine { // two tags on one line: one hit
			continue
		}
		lastLine = line
		h.Count++
		if lines > 0 && len(h.Lines) < lines {
			h.Lines = append(h.Lines, HitLine{Line: line, Snippet: markTag(ctxLine, tag)})
		}
	}
	return hits, rows.Err()
}

func tagWanted(key string, tags []string) bool {
	for _, t := range tags {
		if key == t || strings.HasPrefix(key, t+"/") {
			return true
		}
	}
	return false
}

// markTag marks the first #tag (or bare tag, in front matter) in a line.
func markTag(line, tag string) string {
	lower, lt := strings.ToLower(line), strings.ToLower(tag)
	i := strings.Index(lower, "#"+lt)
	n := len(lt) + 1
	if i < 0 {
		i, n = strings.Index(lower, lt), len(lt)
	}
	if i < 0 || len(lower) != len(line) {
		return line
	}
	return line[:i] + "«" + line[i:i+n] + "»" + line[i+n:]
}
