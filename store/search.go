package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"mnote/store/ftstoken"
)

// Hit is one message matching a search.
type Hit struct {
	SessionID string
	Title     string
	Turn      int
	Role      string // user, assistant
	Entry     string // the thread entry id ("e12") of the (first) message
	// Entries are the ids of every message the hit covers: short answers
	// of one turn split by thoughts or tool calls are indexed together.
	Entries []string
	// Snippet is the matching part of the message with the matched terms
	// between « and », and … where text was cut.
	Snippet string
	// Rank is FTS5's bm25 rank: lower (more negative) is better.
	Rank float64
}

// snippetTokens is how many tokens a snippet shows.
const snippetTokens = 16

// Search finds messages matching a plain-text query: every word must
// appear (in any order), the last one as a prefix (search as you type).
// Quotes and other FTS5 syntax in the query are taken literally. Sessions
// in the trash are left out. Hits come best first.
func (ix *Index) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	match := ftsQuery(query)
	if match == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = 50
	}
	// ORDER BY rank is done inside FTS5, so snippet() runs only for the
	// rows returned. Titles come from a second, tiny query.
	// A query of single CJK characters matches a large part of a Chinese
	// index (a character is like a letter); ranking would score all of
	// it, so such hits come newest first, which FTS5 reads in order and
	// stops at the limit.
	order := "rank"
	if allOneCJK(query) {
		order = "rowid DESC"
	}
	rows, err := ix.r.QueryContext(ctx, `
		SELECT session_id, turn, role, entry, snippet(messages_fts, 0, '«', '»', '…', ?), rank
		FROM messages_fts WHERE messages_fts MATCH ? ORDER BY `+order+` LIMIT ?`,
		snippetTokens, match, limit+searchSlack)
	if err != nil {
		return nil, fmt.Errorf("store: search %q in %s: %w", query, ix.path, err)
	}
	var hits []Hit
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.SessionID, &h.Turn, &h.Role, &h.Entry, &h.Snippet, &h.Rank); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: search %q in %s: %w", query, ix.path, err)
		}
		hits = append(hits, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search %q in %s: %w", query, ix.path, err)
	}
	if len(hits) == 0 {
		return nil, nil
	}
	type sess struct{ title, status string }
	sessions := make(map[string]*sess)
	var ids []any
	for _, h := range hits {
		if sessions[h.SessionID] == nil {
			sessions[h.SessionID] = &sess{status: StatusDeleted} // no row: leave it out
			ids = append(ids, h.SessionID)
		}
	}
	srows, err := ix.r.QueryContext(ctx, `SELECT id, title, status FROM sessions WHERE id IN (?`+
		strings.Repeat(",?", len(ids)-1)+`)`, ids...)
	if err != nil {
		return nil, fmt.Errorf("store: search %q in %s: %w", query, ix.path, err)
	}
	defer srows.Close()
	for srows.Next() {
		var id string
		var s sess
		if err := srows.Scan(&id, &s.title, &s.status); err != nil {
			return nil, fmt.Errorf("store: search %q in %s: %w", query, ix.path, err)
		}
		sessions[id] = &s
	}
	if err := srows.Err(); err != nil {
		return nil, fmt.Errorf("store: search %q in %s: %w", query, ix.path, err)
	}
	out := hits[:0]
	for _, h := range hits {
		if s := sessions[h.SessionID]; s.status != StatusDeleted && len(out) < limit {
			h.Title = s.title
			h.Entries = strings.Fields(h.Entry)
			if len(h.Entries) > 0 {
				h.Entry = h.Entries[0]
			}
			out = append(out, h)
		}
	}
	return out, nil
}

// searchSlack is how many extra hits Search fetches to make up for those
// of trashed sessions it leaves out.
const searchSlack = 10

// minPrefixRunes is the shortest last word searched as a prefix: shorter
// prefixes would match much of the vocabulary.
const minPrefixRunes = 3

// oneCJK reports whether w is one Chinese, Japanese or Korean character,
// searched as a prefix: the tokenizer (store/ftstoken) indexes such text
// as bigrams, plus each run's last character, so a prefix query of one
// character finds every occurrence of it. (A prefix of one character
// scans the terms that start with it: a few thousand bigrams at most.)
func oneCJK(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && ftstoken.IsCJK(r)
}

// allOneCJK reports whether every word of query is one CJK character.
func allOneCJK(query string) bool {
	words := strings.Fields(query)
	for _, w := range words {
		if !oneCJK(w) {
			return false
		}
	}
	return len(words) > 0
}

// ftsQuery turns plain text into an FTS5 query: each word a quoted string
// (quotes doubled), all of them required, the last one a prefix. Words
// without a letter or digit are dropped (they would tokenize to nothing).
func ftsQuery(text string) string {
	var words []string
	for _, w := range strings.Fields(text) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0 {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return ""
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(w, `"`, `""`))
		b.WriteByte('"')
		if (i == len(words)-1 && utf8.RuneCountInString(w) >= minPrefixRunes) || oneCJK(w) {
			b.WriteByte('*')
		}
	}
	return b.String()
}
