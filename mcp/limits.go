package mcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"mnote/internal/jsonscan"
)

// Limits bound what the clients of the socket can make mnote hold: an
// agent is an untrusted program with a token, and other programs of the
// user can connect too. The zero value of a field is its default.
type Limits struct {
	// Conns is how many connections may be open at once (64); a
	// connection past it is answered "refused" and closed.
	Conns int
	// Pending is how many of them may not have presented their token
	// yet (16).
	Pending int
	// HelloTimeout is how long a new connection has to present its
	// token (5 s); then it is closed.
	HelloTimeout time.Duration
	// PerToken is how many connections one token may have open (8).
	PerToken int
	// Calls is how many calls one connection may have running (16); the
	// host reads its next request only when one ends.
	Calls int
	// Bytes is the budget of bytes in flight, shared by every connection
	// (128 MiB): each call holds, from its request to its answer sent,
	// its request line and what its answer may take to build (NoteBytes
	// for a tool that reads a whole note, 1 MiB for the others), and
	// then its answer's own size if that is more. A call waits until the
	// budget has room (a small one passes a big one waiting); an answer
	// that cannot fit at all is an error saying what to ask instead. An
	// edit_note holds its share while the user decides.
	Bytes int64
	// NoteBytes is what a call that reads a whole note (read_note,
	// edit_note) may take to build its answer (32 MiB: a note of up to
	// 10 MiB, its text and its numbered lines).
	NoteBytes int64
	// IOTimeout is how long a client has to take one answer, or to send
	// the rest of a request longer than the read buffer once it began
	// (30 s); a client that stalls is closed, so its calls free the
	// budget.
	IOTimeout time.Duration
	// LogEvery is the least time between two log lines about refused
	// connections (1 min); the next line says how many were not logged.
	LogEvery time.Duration
}

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.Conns, 64)
	def(&l.Pending, 16)
	def(&l.PerToken, 8)
	def(&l.Calls, 16)
	if l.Bytes <= 0 {
		l.Bytes = 128 << 20
	}
	if l.NoteBytes <= 0 {
		l.NoteBytes = 32 << 20
	}
	for _, d := range []struct {
		v *time.Duration
		d time.Duration
	}{{&l.HelloTimeout, 5 * time.Second}, {&l.IOTimeout, 30 * time.Second}, {&l.LogEvery, time.Minute}} {
		if *d.v <= 0 {
			*d.v = d.d
		}
	}
	return l
}

// smallAnswer is what a call of a tool that does not read a whole note
// holds of the budget for its answer until the answer's size is known.
const smallAnswer = 1 << 20

// maxHello bounds the hello line (a 64-digit token and a little JSON).
const maxHello = 4 << 10

// reserve is what a call of tool, whose request line has n bytes, holds
// of the budget while it runs (at most the whole budget).
func (l Limits) reserve(tool string, n int) int64 {
	need := int64(n) + smallAnswer
	if tool == ToolReadNote || tool == ToolEditNote {
		need = int64(n) + l.NoteBytes
	}
	return min(need, l.Bytes)
}

// bigLine is what the reading of a request line of more than the read
// buffer holds of the budget until the line is read: the longest line and
// what its call may hold, so that the call only ever gives back.
func (l Limits) bigLine() int64 { return min(maxLine+l.NoteBytes, l.Bytes) }

// budget is the bytes in flight (Limits.Bytes) that calls hold. Unlike a
// first-come queue, a call whose share fits goes at once, so small calls
// pass a whole-note one waiting for room.
type budget struct {
	size int64

	mu   sync.Mutex
	used int64
	wake chan struct{} // closed (and replaced) by every release
}

func newBudget(size int64) *budget { return &budget{size: size, wake: make(chan struct{})} }

// acquire waits until n bytes (at most size) fit, or ctx ends.
func (b *budget) acquire(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.used+n <= b.size {
			b.used += n
			b.mu.Unlock()
			return nil
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// tryAcquire takes n bytes if they fit now.
func (b *budget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.size {
		return false
	}
	b.used += n
	return true
}

// release gives n bytes back and wakes the calls waiting for room.
func (b *budget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

// refusalLog writes the log lines of refused connections, at most one per
// interval; the next line says how many were not logged meanwhile.
type refusalLog struct {
	log   *slog.Logger
	every time.Duration
	now   func() time.Time

	mu      sync.Mutex
	last    time.Time
	dropped int
}

func (r *refusalLog) warn(msg string, args ...any) {
	r.mu.Lock()
	now := r.now()
	if !r.last.IsZero() && now.Sub(r.last) < r.every {
		r.dropped++
		r.mu.Unlock()
		return
	}
	n := r.dropped
	r.last, r.dropped = now, 0
	r.mu.Unlock()
	if n > 0 {
		args = append(args, "notLogged", n)
	}
	r.log.Warn(msg, args...)
}

// flush logs how many refusals were not logged since the last line.
func (r *refusalLog) flush() {
	r.mu.Lock()
	n := r.dropped
	r.dropped = 0
	r.mu.Unlock()
	if n > 0 {
		r.log.Warn("mcp: more connections were refused since the last such line", "notLogged", n)
	}
}

// textChunk is how much of an answer's text is encoded at a time.
const textChunk = 32 << 10

// eachTextChunk calls fn with text as a JSON string's content (without
// the quotes), a piece at a time, cut at character boundaries; scratch
// is reused between pieces.
func eachTextChunk(text string, scratch []byte, fn func([]byte) error) error {
	for len(text) > 0 {
		n := min(textChunk, len(text))
		// Back to the start of a character (past UTFMax-1 continuation
		// bytes, the bytes are not UTF-8: each is encoded alone anyway).
		for i := 1; i < utf8.UTFMax && n < len(text) && !utf8.RuneStart(text[n]); i++ {
			n--
		}
		scratch = jsonscan.AppendString(scratch[:0], text[:n])
		if err := fn(scratch[1 : len(scratch)-1]); err != nil {
			return err
		}
		text = text[n:]
	}
	return nil
}

// textLineLen is the length of the answer line of id with text.
func textLineLen(id uint64, text string, isError bool, scratch []byte) int {
	n := len(`{"id":`) + len(strconv.FormatUint(id, 10)) + len(`,"text":""`) + len("}\n")
	if isError {
		n += len(`,"isError":true`)
	}
	_ = eachTextChunk(text, scratch, func(b []byte) error { n += len(b); return nil })
	return n
}

// writeText writes the answer line of id with text to w, encoding the
// text a piece at a time: no copy of a large answer is made.
func writeText(w *bufio.Writer, id uint64, text string, isError bool, scratch []byte) error {
	fmt.Fprintf(w, `{"id":%d,"text":"`, id)
	if err := eachTextChunk(text, scratch, func(b []byte) error { _, err := w.Write(b); return err }); err != nil {
		return err
	}
	if isError {
		_, _ = io.WriteString(w, `","isError":true}`+"\n")
	} else {
		_, _ = io.WriteString(w, `"}`+"\n")
	}
	return w.Flush()
}

// humanBytes says n bytes for a message.
func humanBytes(n int64) string {
	if n >= 1<<20 {
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
