package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"mnote/store"
	"mnote/thread"
)

// Opening a long session a slice at a time (sessions.open's limit and
// before): the page asks for the last entries first, shows them, then for
// the earlier ones in slices, so that no reply is megabytes of JSON it
// must parse in one go.

// openArgs are sessions.open's arguments.
type openArgs struct {
	ID string `json:"id"`
	// Limit, when above 0, caps the entries returned to the last Limit
	// ones (before Before when given); Snapshot.Earlier counts those
	// before them.
	Limit int `json:"limit,omitempty"`
	// Before, an entry id: only entries before it are returned.
	Before string `json:"before,omitempty"`
}

func (a openArgs) check() *Error {
	if e := validID(a.ID); e != nil {
		return e
	}
	if a.Limit < 0 {
		return badRequest("limit must not be negative, not %d", a.Limit).why(ReasonInvalidArguments)
	}
	if len(a.Before) > 64 {
		return badRequest("before is not an entry id").why(ReasonInvalidArguments)
	}
	return nil
}

// paged reports whether the call asks for part of the entries.
func (a openArgs) paged() bool { return a.Limit > 0 || a.Before != "" }

// window is the range [from, to) of the n entries to return; ok is false
// when before names none of them (idAt gives the id of entry i).
func (a openArgs) window(n int, idAt func(i int) string) (from, to int, ok bool) {
	to = n
	if a.Before != "" {
		to = -1
		// Entries are numbered e1, e2, …: look there first, then everywhere.
		if k, err := strconv.Atoi(a.Before[1:]); a.Before[0] == 'e' && err == nil && k >= 1 && k <= n && idAt(k-1) == a.Before {
			to = k - 1
		} else {
			for i := n - 1; i >= 0; i-- {
				if idAt(i) == a.Before {
					to = i
					break
				}
			}
		}
		if to < 0 {
			return 0, 0, false
		}
	}
	from = 0
	if a.Limit > 0 && to-a.Limit > 0 {
		from = to - a.Limit
	}
	return from, to, true
}

func noEntry(a openArgs) *Error {
	return badRequest("session %s has no entry %q", a.ID, a.Before).why(ReasonInvalidArguments)
}

// pageLive cuts a live session's snapshot to the window asked for.
func pageLive(snap *Snapshot, a openArgs) *Error {
	es := snap.Thread.Entries
	from, to, ok := a.window(len(es), func(i int) string { return es[i].ID })
	if !ok {
		return noEntry(a)
	}
	snap.Thread.Entries = es[from:to:to]
	snap.Earlier = from
	return nil
}

// splitThread is a thread's snapshot JSON taken apart: its entries, each
// as it is, and what follows them (the thread's other fields, from the
// comma after the entries to the closing brace).
type splitThread struct {
	entries []json.RawMessage
	rest    []byte
}

// splitThreadJSON takes apart a thread snapshot's JSON as Go writes it
// (entries first) by scanning it once; anything else is decoded and
// written that way first.
func splitThreadJSON(raw []byte) (*splitThread, error) {
	if st, ok := scanThread(raw); ok {
		return st, nil
	}
	var snap thread.Snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		return nil, fmt.Errorf("split thread: %w", err)
	}
	canon, err := json.Marshal(snap)
	if err != nil {
		return nil, fmt.Errorf("split thread: %w", err)
	}
	if st, ok := scanThread(canon); ok {
		return st, nil
	}
	return nil, errors.New("split thread: unexpected snapshot JSON")
}

// scanThread splits compact JSON that starts {"entries":[ at the entries'
// top-level commas; ok is false for anything it does not expect.
func scanThread(raw []byte) (*splitThread, bool) {
	const head = `{"entries":`
	if !bytes.HasPrefix(raw, []byte(head)) {
		return nil, false
	}
	i := len(head)
	if bytes.HasPrefix(raw[i:], []byte("null")) {
		i += len("null")
		return &splitThread{rest: raw[i:]}, validRest(raw[i:])
	}
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	i++
	st := &splitThread{}
	if i < len(raw) && raw[i] == ']' {
		i++
		st.rest = raw[i:]
		return st, validRest(st.rest)
	}
	for {
		end, ok := valueEnd(raw, i)
		if !ok {
			return nil, false
		}
		st.entries = append(st.entries, raw[i:end:end])
		if end >= len(raw) {
			return nil, false
		}
		switch raw[end] {
		case ',':
			i = end + 1
		case ']':
			st.rest = raw[end+1:]
			return st, validRest(st.rest)
		default:
			return nil, false
		}
	}
}

// validRest: what follows the entries is the thread's other fields.
func validRest(rest []byte) bool {
	if len(rest) == 0 || (rest[0] != ',' && rest[0] != '}') {
		return false
	}
	obj := append([]byte{'{'}, rest[1:]...)
	if rest[0] == '}' {
		obj = []byte("{}")
		if len(rest) != 1 {
			return false
		}
	}
	return json.Valid(obj)
}

// valueEnd is the index just after the compact JSON object or array that
// starts at raw[i] (strings skipped, escapes included).
func valueEnd(raw []byte, i int) (int, bool) {
	if i >= len(raw) || (raw[i] != '{' && raw[i] != '[') {
		return 0, false
	}
	depth := 0
	for ; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
			if i >= len(raw) {
				return 0, false
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// id reads entry i's id (the first field Go writes; decoded only when not).
func (st *splitThread) id(i int) string {
	e := st.entries[i]
	if p := []byte(`{"id":"`); bytes.HasPrefix(e, p) {
		if end := bytes.IndexByte(e[len(p):], '"'); end >= 0 && bytes.IndexByte(e[len(p):len(p)+end], '\\') < 0 {
			return string(e[len(p) : len(p)+end])
		}
	}
	var v struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(e, &v)
	return v.ID
}

// encode writes the thread with entries [from, to) only.
func (st *splitThread) encode(from, to int) json.RawMessage {
	size := len(st.rest) + 16
	for _, e := range st.entries[from:to] {
		size += len(e) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, `{"entries":[`...)
	for i, e := range st.entries[from:to] {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	out = append(out, ']')
	return append(out, st.rest...)
}

// threadPages keeps the last past thread opened a slice at a time, taken
// apart, so that its slices cost one read and one split, not one each;
// dropped when its first entries went out, or when no slice was asked of
// it for a while (its tab closed while the earlier entries loaded).
type threadPages struct {
	mu    sync.Mutex
	id    string
	stamp store.TranscriptStamp
	split *splitThread
	idle  *time.Timer
	// idleAfter is that while (0: pagesIdle).
	idleAfter time.Duration
}

// pagesIdle is how long a split thread is kept with no slice asked of it.
const pagesIdle = 30 * time.Second

// touchLocked keeps the split thread for another while (p.mu held).
func (p *threadPages) touchLocked() {
	if p.idle != nil {
		p.idle.Stop()
	}
	d := p.idleAfter
	if d <= 0 {
		d = pagesIdle
	}
	split := p.split
	p.idle = time.AfterFunc(d, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.split == split { // not a newer one
			p.id, p.split = "", nil
		}
	})
}

// dropLocked lets the split thread go (p.mu held).
func (p *threadPages) dropLocked() {
	p.id, p.split = "", nil
	if p.idle != nil {
		p.idle.Stop()
		p.idle = nil
	}
}

// pastPage is the snapshot JSON of a past thread's window, and how many
// entries are before it.
func (s *Services) pastPage(id string, a openArgs) (json.RawMessage, int, *Error) {
	stamp, err := store.StampOf(s.paths.TranscriptPath(id))
	if err != nil {
		return nil, 0, pastErr(id, err)
	}
	p := &s.pages
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.split == nil || p.id != id || p.stamp != stamp {
		raw, err := s.pastThread(id)
		if err != nil {
			return nil, 0, pastErr(id, err)
		}
		st, err := splitThreadJSON(raw)
		if err != nil {
			return nil, 0, errorFrom("read session "+id, err)
		}
		// The stamp seen before reading: a later change is read next time.
		p.id, p.stamp, p.split = id, stamp, st
	}
	st := p.split
	p.touchLocked()
	from, to, ok := a.window(len(st.entries), st.id)
	if !ok {
		return nil, 0, noEntry(a)
	}
	out := st.encode(from, to)
	if from == 0 {
		// The page has it all now: nothing to keep.
		p.dropLocked()
	}
	return out, from, nil
}
