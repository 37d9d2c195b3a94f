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
	// ForkedFrom and ForkedTitle: the session this one was forked from
	// and its title ("" for a session that is no fork).
	ForkedFrom, ForkedTitle string
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
		snippetTokens, match, 2*limit+searchSlack)
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
	sessions, err := ix.searchSessions(ctx, hits)
	if err != nil {
		return nil, fmt.Errorf("store: search %q in %s: %w", query, ix.path, err)
	}
	// A fork's transcript holds copies of the original's turns before the
	// fork point: a message found there and in the original (or in
	// another fork of it) is one hit, shown once, where it was written.
	type key struct {
		owner         string
		turn          int
		role, snippet string
	}
	seen := make(map[key]int) // index in out
	hops := make([]int, 0, len(hits))
	out := hits[:0]
	for _, h := range hits {
		s := sessions[h.SessionID]
		if s.status == StatusDeleted {
			continue
		}
		owner, n := h.SessionID, 0
		for o := sessions[owner]; o.forkedFrom != "" && h.Turn < o.forkedTurn && n < len(sessions); o = sessions[owner] {
			owner, n = o.forkedFrom, n+1
		}
		k := key{owner, h.Turn, h.Role, h.Snippet}
		if i, dup := seen[k]; dup {
			if n < hops[i] { // nearer to where it was written
				out[i], hops[i] = ix.hitOf(h, s, sessions), n
			}
			continue
		}
		if len(out) == limit {
			continue
		}
		seen[k] = len(out)
		out = append(out, ix.hitOf(h, s, sessions))
		hops = append(hops, n)
	}
	return out, nil
}

// searchSession is what Search needs of a session.
type searchSession struct {
	title, status, forkedFrom string
	forkedTurn                int
}

// hitOf completes a hit with its session's title and fork.
func (ix *Index) hitOf(h Hit, s *searchSession, sessions map[string]*searchSession) Hit {
	h.Title = s.title
	h.Entries = strings.Fields(h.Entry)
	if len(h.Entries) > 0 {
		h.Entry = h.Entries[0]
	}
	if s.forkedFrom != "" {
		h.ForkedFrom = s.forkedFrom
		if o := sessions[s.forkedFrom]; o != nil {
			h.ForkedTitle = o.title
		}
	}
	return h
}

// searchSessions reads the sessions of hits and the sessions they were
// forked from, up to their first originals. A session without a row is
// StatusDeleted (left out).
func (ix *Index) searchSessions(ctx context.Context, hits []Hit) (map[string]*searchSession, error) {
	sessions := make(map[string]*searchSession)
	var ids []any
	for _, h := range hits {
		if sessions[h.SessionID] == nil {
			sessions[h.SessionID] = &searchSession{status: StatusDeleted}
			ids = append(ids, h.SessionID)
		}
	}
	for len(ids) > 0 {
		rows, err := ix.r.QueryContext(ctx, `SELECT id, title, status, forked_from, forked_turn FROM sessions WHERE id IN (?`+
			strings.Repeat(",?", len(ids)-1)+`)`, ids...)
		if err != nil {
			return nil, err
		}
		var next []any
		for rows.Next() {
			var id string
			var s searchSession
			if err := rows.Scan(&id, &s.title, &s.status, &s.forkedFrom, &s.forkedTurn); err != nil {
				rows.Close()
				return nil, err
			}
			sessions[id] = &s
			if s.forkedFrom != "" && sessions[s.forkedFrom] == nil {
				sessions[s.forkedFrom] = &searchSession{status: StatusDeleted}
				next = append(next, s.forkedFrom)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		ids = next
	}
	return sessions, nil
}

// searchSlack is how many extra hits Search fetches (beyond twice the
// limit) to make up for those of trashed sessions and of forks' copies it
// leaves out.
const searchSlack = 10

// ftsQuery turns plain text into an FTS5 query (ftstoken.Query).
func ftsQuery(text string) string { return ftstoken.Query(text) }

// allOneCJK reports whether every word of query is one CJK character.
func allOneCJK(query string) bool { return ftstoken.AllOneCJK(query) }
