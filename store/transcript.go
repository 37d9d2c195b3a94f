package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"mnote/internal/jsonscan"
)

// fileWriter is what a Writer writes to: the transcript *os.File, or a
// wrapper in tests that injects failures.
type fileWriter interface {
	Write([]byte) (int, error)
	Sync() error
	Close() error
}

// WriterOptions configure a Writer.
type WriterOptions struct {
	// Now returns a record's timestamp in Unix milliseconds; nil means the
	// wall clock.
	Now func() int64
	// OnError, if set, is called once, outside the Writer's lock, with the
	// first write, flush or sync error. Every later call returns it too.
	OnError func(error)
	// FlushDelay is the longest a record stays in the buffer; 0 means
	// 100 ms.
	FlushDelay time.Duration

	// wrap lets tests put a failing fileWriter in front of the file.
	wrap func(fileWriter) fileWriter
}

const (
	writeBufSize      = 64 << 10
	defaultFlushDelay = 100 * time.Millisecond
	// MaxMalformedBytes is how much of a malformed line AppendMalformed
	// keeps.
	MaxMalformedBytes = 1 << 20
)

// Writer appends records to a transcript it holds locked. It is safe for
// concurrent use. See the package documentation for when data reaches the
// disk.
type Writer struct {
	path    string
	file    *os.File
	fw      fileWriter
	now     func() int64
	onError func(error)
	delay   time.Duration

	mu       sync.Mutex
	buf      []byte
	seq      int64
	size     int64 // bytes written + buffered
	err      error // sticky
	reported bool
	toReport error // set by fail, handed to OnError after unlocking
	timer    *time.Timer
	armed    bool
	closed   bool
}

// CreateTranscript creates a new transcript file (it must not exist), mode
// 0600, and locks it.
func CreateTranscript(path string, opts WriterOptions) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: create transcript: %w", err)
	}
	if err := lockExclusive(f, path); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil { // whatever the umask did
		f.Close()
		return nil, fmt.Errorf("store: chmod transcript %s: %w", path, err)
	}
	return newWriter(path, f, 0, 0, opts), nil
}

// OpenTranscript opens an existing transcript for appending and locks it.
// A torn last line (a crash mid-write) is truncated first; numbering
// continues after the last good record.
func OpenTranscript(path string, opts WriterOptions) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("store: open transcript: %w", err)
	}
	if err := lockExclusive(f, path); err != nil {
		f.Close()
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: open transcript %s: %w", path, err)
	}
	size := fi.Size()
	keep, needNL, lastSeq, err := scanTail(f, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: open transcript %s: %w", path, err)
	}
	if keep < size {
		slog.Warn("store: truncating torn last line of transcript", "file", path, "bytes", size-keep)
		if err := f.Truncate(keep); err != nil {
			f.Close()
			return nil, fmt.Errorf("store: truncate torn line of %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, fmt.Errorf("store: sync %s: %w", path, err)
		}
	}
	w := newWriter(path, f, lastSeq, keep, opts)
	if needNL { // a complete record that only lost its newline
		w.buf = append(w.buf, '\n')
		w.size++
	}
	return w, nil
}

func newWriter(path string, f *os.File, seq, size int64, opts WriterOptions) *Writer {
	w := &Writer{
		path:    path,
		file:    f,
		fw:      f,
		now:     opts.Now,
		onError: opts.OnError,
		delay:   opts.FlushDelay,
		buf:     make([]byte, 0, writeBufSize),
		seq:     seq,
		size:    size,
	}
	if opts.wrap != nil {
		w.fw = opts.wrap(f)
	}
	if w.now == nil {
		w.now = func() int64 { return time.Now().UnixMilli() }
	}
	if w.delay <= 0 {
		w.delay = defaultFlushDelay
	}
	return w
}

// Path returns the transcript file.
func (w *Writer) Path() string { return w.path }

// Size returns the length of the transcript including buffered records.
func (w *Writer) Size() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.size
}

// Seq returns the seq of the last record appended.
func (w *Writer) Seq() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seq
}

// Err returns the sticky error, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// envelopeMax bounds the envelope bytes around dir, kind and data.
const envelopeMax = len(`{"v":1,"seq":,"ts_ms":,"dir":"","kind":"","data":}`+"\n") + 2*20

// Append appends one record and returns its seq. data must be one valid
// JSON value (the caller's job; empty means null); it is copied. Line breaks
// inside it are removed so the record stays on one line.
func (w *Writer) Append(dir, kind string, data []byte) (int64, error) {
	rec, err := w.AppendRecord(dir, kind, data)
	return rec.Seq, err
}

// AppendRecord is Append returning the whole record as written (seq,
// timestamp, End = the transcript size after it), ready for
// Indexer.Observe. Its Data is data as passed, not a copy.
func (w *Writer) AppendRecord(dir, kind string, data []byte) (Record, error) {
	switch dir {
	case DirIn, DirOut, DirApp:
	default:
		return Record{}, fmt.Errorf("store: append to %s: bad dir %q", w.path, dir)
	}
	if kind == "" {
		return Record{}, fmt.Errorf("store: append to %s: empty kind", w.path)
	}
	if len(data) == 0 {
		data = []byte("null")
	} else if bytes.IndexByte(data, '\n') >= 0 || bytes.IndexByte(data, '\r') >= 0 {
		var c bytes.Buffer
		if err := json.Compact(&c, data); err != nil {
			return Record{}, fmt.Errorf("store: append %s to %s: %w", kind, w.path, err)
		}
		data = c.Bytes()
	}
	w.mu.Lock()
	defer w.unlockAndReport()
	if err := w.usable(); err != nil {
		return Record{}, err
	}
	need := envelopeMax + len(dir) + 6*len(kind) + len(data)
	if len(w.buf)+need > cap(w.buf) && len(w.buf) > 0 {
		if err := w.flushLocked(); err != nil {
			return Record{}, err
		}
	}
	rec := Record{V: 1, Seq: w.seq + 1, TsMs: w.now(), Dir: dir, Kind: kind, Data: data}
	if need > cap(w.buf) {
		// A huge record goes straight to the file, in three writes (the
		// buffer is empty): copying it into one line would hold it twice.
		head := appendRecordHead(w.buf[:0], rec.Seq, rec.TsMs, dir, kind)
		n := len(head) + len(data) + len(recordTail)
		err := w.write(head)
		if err == nil {
			err = w.write(data)
		}
		if err == nil {
			err = w.write([]byte(recordTail))
		}
		if err != nil {
			return Record{}, err
		}
		w.seq = rec.Seq
		w.size += int64(n)
		rec.End = w.size
		return rec, nil
	}
	n := len(w.buf)
	w.buf = appendRecord(w.buf, rec.Seq, rec.TsMs, dir, kind, data)
	w.size += int64(len(w.buf) - n)
	w.seq = rec.Seq
	rec.End = w.size
	if !w.armed {
		w.armed = true
		if w.timer == nil {
			w.timer = time.AfterFunc(w.delay, w.timerFlush)
		} else {
			w.timer.Reset(w.delay)
		}
	}
	return rec, nil
}

// appendRecord appends one transcript line to dst.
func appendRecord(dst []byte, seq, ts int64, dir, kind string, data []byte) []byte {
	dst = appendRecordHead(dst, seq, ts, dir, kind)
	dst = append(dst, data...)
	return append(dst, recordTail...)
}

// recordTail ends a transcript line after its data.
const recordTail = "}\n"

// appendRecordHead appends a transcript line up to its data.
func appendRecordHead(dst []byte, seq, ts int64, dir, kind string) []byte {
	dst = append(dst, `{"v":1,"seq":`...)
	dst = strconv.AppendInt(dst, seq, 10)
	dst = append(dst, `,"ts_ms":`...)
	dst = strconv.AppendInt(dst, ts, 10)
	dst = append(dst, `,"dir":"`...)
	dst = append(dst, dir...)
	dst = append(dst, `","kind":`...)
	dst = jsonscan.AppendString(dst, kind)
	return append(dst, `,"data":`...)
}

// AppendJSON appends a record whose data is v encoded with encoding/json.
func (w *Writer) AppendJSON(dir, kind string, v any) (int64, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return 0, fmt.Errorf("store: append %s to %s: %w", kind, w.path, err)
	}
	return w.Append(dir, kind, data)
}

// AppendMalformed records a line that is not a JSON object, as a JSON
// string holding at most MaxMalformedBytes of it plus a "…[truncated N
// bytes]" suffix.
func (w *Writer) AppendMalformed(dir string, line []byte) (int64, error) {
	return w.Append(dir, KindMalformed, MalformedData(line))
}

// MalformedData returns the data of a "malformed" record for line.
func MalformedData(line []byte) []byte {
	s := line
	suffix := ""
	if len(s) > MaxMalformedBytes {
		cut := MaxMalformedBytes
		for cut > MaxMalformedBytes-utf8.UTFMax && cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		suffix = "…[truncated " + strconv.Itoa(len(s)-cut) + " bytes]"
		s = s[:cut]
	}
	out := make([]byte, 0, len(s)+len(suffix)+16)
	return jsonscan.AppendString(out, string(s)+suffix)
}

// Flush writes the buffered records to the file (no fsync).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.unlockAndReport()
	if err := w.usable(); err != nil {
		return err
	}
	return w.flushLocked()
}

// Sync flushes the buffer and fsyncs the file.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.unlockAndReport()
	if err := w.usable(); err != nil {
		return err
	}
	return w.syncLocked()
}

func (w *Writer) syncLocked() error {
	if err := w.flushLocked(); err != nil {
		return err
	}
	if err := w.fw.Sync(); err != nil {
		return w.fail("sync", err)
	}
	return nil
}

// Close flushes, fsyncs, unlocks and closes the transcript. It returns the
// sticky error if the Writer had failed; the file is closed either way.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.unlockAndReport()
	if w.closed {
		return nil
	}
	err := w.err
	if err == nil {
		err = w.syncLocked()
	}
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	if uerr := unlock(w.file); uerr != nil && err == nil {
		err = fmt.Errorf("store: unlock transcript %s: %w", w.path, uerr)
	}
	if cerr := w.fw.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("store: close transcript %s: %w", w.path, cerr)
	}
	if w.fw != fileWriter(w.file) {
		w.file.Close()
	}
	return err
}

var errClosed = errors.New("transcript writer is closed")

func (w *Writer) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("store: %s: %w", w.path, errClosed)
	}
	return nil
}

// flushLocked writes the buffer out.
func (w *Writer) flushLocked() error {
	if len(w.buf) == 0 {
		return nil
	}
	err := w.write(w.buf)
	w.buf = w.buf[:0]
	return err
}

func (w *Writer) write(b []byte) error {
	n, err := w.fw.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return w.fail("write", err)
	}
	return nil
}

// fail makes the error sticky; the first one is handed to OnError by
// unlockAndReport.
func (w *Writer) fail(op string, cause error) error {
	w.err = fmt.Errorf("store: %s transcript %s: %w", op, w.path, cause)
	if !w.reported {
		w.reported = true
		w.toReport = w.err
	}
	return w.err
}

// unlockAndReport releases the lock, then reports a new failure, so the
// callback may call the Writer.
func (w *Writer) unlockAndReport() {
	err := w.toReport
	w.toReport = nil
	w.mu.Unlock()
	if err == nil {
		return
	}
	slog.Error("store: transcript write failed", "file", w.path, "err", err)
	if w.onError != nil {
		w.onError(err)
	}
}

// timerFlush runs on the timer armed by the first unflushed append.
func (w *Writer) timerFlush() {
	w.mu.Lock()
	defer w.unlockAndReport()
	w.armed = false
	if !w.closed && w.err == nil {
		_ = w.flushLocked() // a failure is sticky and reported
	}
}

// scanTail finds where the complete records of a transcript end and the
// seq of the last good one. keep is the length to truncate to; needNL is
// true when the last record is complete but lost its newline (kept).
func scanTail(f io.ReaderAt, size int64) (keep int64, needNL bool, lastSeq int64, err error) {
	if size == 0 {
		return 0, false, 0, nil
	}
	nl, err := lastNewline(f, size)
	if err != nil {
		return 0, false, 0, err
	}
	keep = nl + 1 // 0 when there is no newline at all
	if keep < size {
		tail := make([]byte, size-keep)
		if _, err := f.ReadAt(tail, keep); err != nil {
			return 0, false, 0, err
		}
		if rec, ok := parseRecord(bytes.TrimRight(tail, "\r"), false); ok {
			return size, true, rec.Seq, nil
		}
	}
	// Walk back over complete lines to the last good record.
	end := keep - 1 // the newline ending the current line
	for end > 0 {
		start, err := lastNewline(f, end)
		if err != nil {
			return 0, false, 0, err
		}
		start++
		line := make([]byte, end-start)
		if _, err := f.ReadAt(line, start); err != nil {
			return 0, false, 0, err
		}
		if rec, ok := parseRecord(bytes.TrimRight(line, "\r"), false); ok {
			return keep, false, rec.Seq, nil
		}
		end = start - 1
	}
	return keep, false, 0, nil
}

// lastNewline returns the offset of the last '\n' in f[0:end], or -1.
func lastNewline(f io.ReaderAt, end int64) (int64, error) {
	const block = 64 << 10
	buf := make([]byte, block)
	for end > 0 {
		start := max(0, end-block)
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i), nil
		}
		end = start
	}
	return -1, nil
}
