package ftstoken

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinPrefixRunes is the shortest last word searched as a prefix: shorter
// prefixes would match much of the vocabulary.
const MinPrefixRunes = 3

// Query turns plain text into an FTS5 query for an index made with this
// tokenizer: each word a quoted phrase (quotes doubled: FTS5 syntax is
// taken literally), all of them required, the last one a prefix when it
// has MinPrefixRunes or more characters (a word of one CJK character is
// not: the tokenizer indexes every CJK character as a term of its own).
// Words without a letter or digit are dropped (they
// would tokenize to nothing). "" means nothing to search.
func Query(text string) string {
	var words []string
	for _, w := range strings.Fields(text) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0 {
			words = append(words, w)
		}
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(w, `"`, `""`))
		b.WriteByte('"')
		if i == len(words)-1 && utf8.RuneCountInString(w) >= MinPrefixRunes && !oneCJK(w) {
			b.WriteByte('*')
		}
	}
	return b.String()
}

// oneCJK reports whether w is one CJK character.
func oneCJK(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && IsCJK(r)
}

// AllOneCJK reports whether every word of query is one CJK character. Such
// a query matches a large part of a Chinese index (a character is like a
// letter): ranking would score all of it, so callers order such hits by
// rowid, which FTS5 reads in order and stops at the limit.
func AllOneCJK(query string) bool {
	words := strings.Fields(query)
	for _, w := range words {
		if !oneCJK(w) {
			return false
		}
	}
	return len(words) > 0
}
