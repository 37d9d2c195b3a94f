package export

import (
	"fmt"
	"slices"
)

// anchorScanner finds every occurrence of a set of lowercase words in one
// pass over a text (an Aho–Corasick automaton, as a DFA): the rules' anchors.
type anchorScanner struct {
	words []string
	next  [][256]int32 // state × byte → state
	out   [][]uint8    // state → ids of the words that end there
}

// anchorHit is one occurrence: the word's id and where it starts.
type anchorHit struct {
	id  uint8
	pos int32
}

// newAnchors returns the scanner of all the rules' anchors and sets each
// rule's mask.
func newAnchors(rules []rule) *anchorScanner {
	var words []string
	for i := range rules {
		for _, a := range rules[i].anchors {
			id := slices.Index(words, a)
			if id < 0 {
				id = len(words)
				words = append(words, a)
			}
			if id >= 64 {
				panic(fmt.Sprintf("export: more than 64 redaction anchors (%q)", a))
			}
			rules[i].mask |= 1 << id
		}
	}
	return newAnchorScanner(words)
}

func newAnchorScanner(words []string) *anchorScanner {
	a := &anchorScanner{words: words, next: make([][256]int32, 1), out: make([][]uint8, 1)}
	// The trie; -1 is "no edge yet".
	for i := range a.next[0] {
		a.next[0][i] = -1
	}
	for id, w := range words {
		st := int32(0)
		for i := 0; i < len(w); i++ {
			c := w[i]
			if a.next[st][c] < 0 {
				var row [256]int32
				for j := range row {
					row[j] = -1
				}
				a.next = append(a.next, row)
				a.out = append(a.out, nil)
				a.next[st][c] = int32(len(a.next) - 1)
			}
			st = a.next[st][c]
		}
		a.out[st] = append(a.out[st], uint8(id))
	}
	// Failure links, breadth first, folded into the transitions.
	fail := make([]int32, len(a.next))
	var queue []int32
	for c := range 256 {
		if s := a.next[0][c]; s < 0 {
			a.next[0][c] = 0
		} else {
			fail[s] = 0
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		a.out[st] = append(a.out[st], a.out[fail[st]]...)
		for c := range 256 {
			s := a.next[st][c]
			if s < 0 {
				a.next[st][c] = a.next[fail[st]][c]
				continue
			}
			fail[s] = a.next[fail[st]][c]
			queue = append(queue, s)
		}
	}
	return a
}

// scan appends the occurrences of the words in text to hits.
func (a *anchorScanner) scan(text string, hits []anchorHit) []anchorHit {
	st := int32(0)
	for i := 0; i < len(text); i++ {
		st = a.next[st][text[i]]
		for _, id := range a.out[st] {
			hits = append(hits, anchorHit{id: id, pos: int32(i + 1 - len(a.words[id]))})
		}
	}
	return hits
}
