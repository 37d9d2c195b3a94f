// Package ftstoken adds the "mnote" tokenizer to SQLite's FTS5, for the
// full-text indexes of transcripts (store) and notes.
//
// FTS5's default tokenizer, unicode61, splits text at spaces and
// punctuation only. Chinese and Japanese are written without spaces, so a
// whole clause ("Reasonix的缓存命中率很高") became one token and a search for
// 缓存 found nothing. FTS5's trigram tokenizer finds substrings, but not
// those shorter than three characters, and two-character words are the
// most common words in Chinese; it also drops word semantics for English
// (a search for "cat" would find "concatenate").
//
// "mnote" is unicode61 (with the arguments given to it, e.g.
// remove_diacritics 2) with each run of Han, kana or Hangul characters in
// a unicode61 token cut into overlapping bigrams, as Lucene's CJK analyzer
// does: 缓存命中率 → 缓存 存命 命中 中率. A query is cut the same way and
// searched as a phrase, so any CJK substring of two or more characters is
// found, and Latin words keep unicode61's word semantics. In documents
// every CJK character is also a token, at the position of the bigram it
// starts (the run's last character at the last bigram's), so that a
// one-character query is a single term: FTS5 reads its doclist newest first
// and stops at the limit, where a prefix query (缓*) would merge the doclists
// of every bigram starting with 缓 first. It costs one more posting per CJK
// character.
//
// Importing the package registers the tokenizer for every SQLite
// connection opened afterwards (sqlite3_auto_extension).
package ftstoken
