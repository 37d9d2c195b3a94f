package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"mnote/internal/jsonscan"
)

// lineWriter writes lines through a buffer that is flushed on demand or, for
// streaming text, at most 50 ms after the first unflushed byte. This keeps a
// flood of small updates from costing one syscall each while a person at a
// terminal still sees text as it comes.
type lineWriter struct {
	mu    sync.Mutex
	w     *bufio.Writer
	timer *time.Timer
	armed bool
	err   error
}

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: bufio.NewWriterSize(w, 64<<10)}
	lw.timer = time.AfterFunc(time.Hour, lw.tick)
	lw.timer.Stop()
	return lw
}

func (lw *lineWriter) tick() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.armed = false
	lw.flushLocked()
}

// write appends b; flush true sends it out now.
func (lw *lineWriter) write(b []byte, flush bool) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.put(b)
	lw.sent(flush)
}

// hugeText is the length past which a string is written by writeText: a
// line holding a 20 MiB chunk would keep it twice more in memory.
const hugeText = 256 << 10

// writeText appends head, s as a JSON string, and tail, escaping s a piece
// at a time.
func (lw *lineWriter) writeText(head []byte, s string, tail string, flush bool) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.put(head)
	lw.put([]byte{'"'})
	buf := make([]byte, 0, 80<<10)
	for len(s) > 0 {
		n := min(len(s), 64<<10)
		for n < len(s) && n > 1 && !utf8.RuneStart(s[n]) {
			n-- // a piece ends on a character boundary
		}
		buf = jsonscan.AppendString(buf[:0], s[:n])
		lw.put(buf[1 : len(buf)-1])
		s = s[n:]
	}
	lw.put([]byte{'"'})
	lw.put([]byte(tail))
	lw.sent(flush)
}

func (lw *lineWriter) put(b []byte) {
	if _, err := lw.w.Write(b); err != nil && lw.err == nil {
		lw.err = err
	}
}

// sent flushes now, or arms the timer that will.
func (lw *lineWriter) sent(flush bool) {
	if flush {
		lw.flushLocked()
		return
	}
	if !lw.armed {
		lw.armed = true
		lw.timer.Reset(50 * time.Millisecond)
	}
}

func (lw *lineWriter) flushLocked() {
	if err := lw.w.Flush(); err != nil && lw.err == nil {
		lw.err = err
	}
}

// Flush writes out everything buffered.
func (lw *lineWriter) Flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.timer.Stop()
	lw.armed = false
	lw.flushLocked()
	return lw.err
}

// jsonLine builds one output object field by field.
type jsonLine struct{ b []byte }

func (j *jsonLine) start(typ string) {
	j.b = append(j.b[:0], `{"type":`...)
	j.b = jsonscan.AppendString(j.b, typ)
}

func (j *jsonLine) str(k, v string) {
	j.b = append(j.b, ',')
	j.b = jsonscan.AppendString(j.b, k)
	j.b = append(j.b, ':')
	j.b = jsonscan.AppendString(j.b, v)
}

func (j *jsonLine) optStr(k string, v *string) {
	if v != nil {
		j.str(k, *v)
	}
}

func (j *jsonLine) int(k string, v int64) {
	j.b = append(j.b, ',')
	j.b = jsonscan.AppendString(j.b, k)
	j.b = append(j.b, ':')
	j.b = strconv.AppendInt(j.b, v, 10)
}

func (j *jsonLine) raw(k string, v json.RawMessage) {
	if len(v) == 0 {
		return
	}
	j.b = append(j.b, ',')
	j.b = jsonscan.AppendString(j.b, k)
	j.b = append(j.b, ':')
	j.b = append(j.b, v...)
}

func (j *jsonLine) value(k string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	j.raw(k, b)
}

func (j *jsonLine) end() []byte {
	j.b = append(j.b, '}', '\n')
	return j.b
}
