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
// found, and Latin words keep unicode61's word semantics. In documents the
// last character of each run is also a token (at the same position as the
// run's last bigram), so that a one-character query, searched as a prefix
// (缓*), finds every occurrence of that character: either it starts a
// bigram or it ends its run.
//
// Importing the package registers the tokenizer for every SQLite
// connection opened afterwards (sqlite3_auto_extension).
package ftstoken
