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
// buffer and one growing buffer for longer ones, up to a limit.
type lineReader struct {
	r     *bufio.Reader
	long  []byte
	limit int
}

func newLineReader(r io.Reader, limit int) *lineReader {
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	return &lineReader{r: bufio.NewReaderSize(r, 256<<10), limit: limit}
}

// next returns the next line without its newline. The slice is valid until
// the following call. At the end of the stream a final unterminated line is
// returned before io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	line, err := lr.r.ReadSlice('\n')
	if err == nil {
		return trimEOL(line), nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(line) > 0 && errors.Is(err, io.EOF) {
			return trimEOL(line), nil
		}
		return nil, err
	}
	lr.long = append(lr.long[:0], line...)
	for {
		line, err = lr.r.ReadSlice('\n')
		if len(lr.long)+len(line) > lr.limit+1 {
			return nil, lr.skip(int64(len(lr.long)+len(line)), err)
		}
		lr.long = append(lr.long, line...)
		switch {
		case err == nil:
			out := trimEOL(lr.long)
			if cap(lr.long) > 8<<20 {
				lr.long = nil // do not keep a huge buffer alive
			}
			return out, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(lr.long) > 0:
			out := trimEOL(lr.long)
			lr.long = nil
			return out, nil
		default:
			return nil, err
		}
	}
}

// skip discards the rest of an over-long line.
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
	return &LineTooLongError{Size: size - 1, Limit: lr.limit}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
