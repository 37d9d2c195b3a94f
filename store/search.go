package store

import (
	"context"
	"fmt"
	"strings"

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

// ftsQuery turns plain text into an FTS5 query (ftstoken.Query).
func ftsQuery(text string) string { return ftstoken.Query(text) }

// allOneCJK reports whether every word of query is one CJK character.
func allOneCJK(query string) bool { return ftstoken.AllOneCJK(query) }
