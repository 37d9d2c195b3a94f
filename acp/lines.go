package acp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the longest line accepted from an agent.
const DefaultMaxLine = 64<<20 + 64<<10

// ErrLineTooLong reports a line longer than the reader's limit. The line was
// skipped; the reader is positioned at the start of the next one.
var ErrLineTooLong = errors.New("line too long")

// LineTooLongError carries the size of a skipped line.
type LineTooLongError struct {
	Size  int64
	Limit int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("agent sent a line of %d bytes, over the %d-byte limit; it was skipped", e.Size, e.Limit)
}

func (e *LineTooLongError) Unwrap() error { return ErrLineTooLong }

// lineReader splits a stream into lines with no copy for lines that fit its
// buffer, a reused buffer for longer ones and one exact copy for huge ones,
// up to a limit.
type lineReader struct {
	r     *bufio.Reader
	long  []byte
	limit int
}

func newLineReader(r io.Reader, limit int) *lineReader {
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// next returns the next line without its newline. The slice is valid until
// the following call. At the end of the stream a final unterminated line is
// returned before io.EOF. A line of more than limit bytes (not counting its
// newline) gives a *LineTooLongError, and the next call reads the line
// after it.
func (lr *lineReader) next() ([]byte, error) {
	line, err := lr.r.ReadSlice('\n')
	if err == nil || len(line) > 0 && errors.Is(err, io.EOF) {
		if n := contentLen(len(line), err); n > lr.limit {
			return nil, &LineTooLongError{Size: int64(n), Limit: lr.limit}
		}
		return trimEOL(line), nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	// A long line grows one reused buffer up to 1 MiB; beyond, it is
	// gathered in pieces and joined once (growing a buffer to 20 MiB would
	// copy it over and over and hold up to 2.25 times the line).
	buf := append(lr.long[:0], line...)
	var pieces [][]byte
	size := len(buf)
	for {
		if size > lr.limit {
			lr.long = nil
			return nil, lr.skip(int64(size), err)
		}
		line, err = lr.r.ReadSlice('\n')
		if contentLen(size+len(line), err) > lr.limit {
			lr.long = nil
			return nil, lr.skip(int64(size+len(line)), err)
		}
		switch {
		case err == nil, errors.Is(err, io.EOF):
			if pieces == nil {
				buf = append(buf, line...)
				lr.long = buf
				return trimEOL(buf), nil
			}
			out := make([]byte, 0, size+len(line))
			out = append(out, buf...)
			for _, p := range pieces {
				out = append(out, p...)
			}
			lr.long = buf[:0]
			return trimEOL(append(out, line...)), nil
		case errors.Is(err, bufio.ErrBufferFull):
			if pieces == nil && len(buf)+len(line) <= longBuffer {
				buf = append(buf, line...)
			} else {
				pieces = append(pieces, append([]byte(nil), line...))
			}
			size += len(line)
		default:
			return nil, err
		}
	}
}

// contentLen is the length of a line read as n bytes whose last read
// returned err: without its newline when it has one (err nil).
func contentLen(n int, err error) int {
	if err == nil {
		return n - 1
	}
	return n
}

// longBuffer is how far a long line grows the reader's reused buffer.
const longBuffer = 1 << 20

// skip discards the rest of an over-long line, of which size bytes were
// read by a read that returned err.
func (lr *lineReader) skip(size int64, err error) error {
	lr.long = nil
	for errors.Is(err, bufio.ErrBufferFull) {
		var line []byte
		line, err = lr.r.ReadSlice('\n')
		size += int64(len(line))
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if err == nil {
		size-- // the newline
	}
	return &LineTooLongError{Size: size, Limit: lr.limit}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
