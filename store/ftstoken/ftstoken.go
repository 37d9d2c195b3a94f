package ftstoken

// int mnoteRegister(void);
// int mnoteIsCJK(unsigned c);
import "C"

import (
	"fmt"

	_ "github.com/mattn/go-sqlite3" // SQLite itself, whose functions cjk.c calls
)

// Name is the tokenizer's name in a CREATE VIRTUAL TABLE … USING fts5
// (…, tokenize = 'mnote remove_diacritics 2').
const Name = "mnote"

// registerErr is why registration failed, if it did.
var registerErr error

func init() {
	if rc := C.mnoteRegister(); rc != 0 {
		registerErr = fmt.Errorf("ftstoken: register the %s FTS5 tokenizer: SQLite result code %d", Name, int(rc))
	}
}

// Err reports whether the tokenizer could not be registered (then every
// index using it fails to open, with SQLite's "no such tokenizer").
func Err() error { return registerErr }

// IsCJK reports whether the tokenizer cuts r into bigrams (Han, kana,
// Hangul): a query of one such character is searched as a prefix.
func IsCJK(r rune) bool { return r >= 0x1100 && C.mnoteIsCJK(C.unsigned(r)) != 0 }
