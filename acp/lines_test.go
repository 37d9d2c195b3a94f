package acp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

const (
	kib = 1 << 10
	mib = 1 << 20
)

// lineOf returns a line of n bytes (no newline, no CR) whose bytes depend
// on its number, so a line glued to another or cut short shows.
func lineOf(n, num int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('!' + (i*7+num*13+i/4093)%90) // printable, never '\n' or '\r'
	}
	return b
}

// streamOf joins lines, each followed by eol; tail, if not nil, is a final
// line without a newline.
func streamOf(lines [][]byte, eol string, tail []byte) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteString(eol)
	}
	b.Write(tail)
	return b.Bytes()
}

// oddPieces is an io.Reader fed by a goroutine that writes data through an
// io.Pipe in pieces of odd sizes, so the bufio buffer fills unevenly.
func oddPieces(t *testing.T, data []byte) io.Reader {
	t.Helper()
	pr, pw := io.Pipe()
	sizes := []int{1, 7, 4093, 65537, 3, 100003, 65535, 2, 1<<20 + 11, 511}
	go func() {
		for i := 0; len(data) > 0; i++ {
			n := min(sizes[i%len(sizes)], len(data))
			if _, err := pw.Write(data[:n]); err != nil {
				return
			}
			data = data[n:]
		}
		pw.Close()
	}()
	t.Cleanup(func() { pr.Close() })
	return pr
}

// readers returns the ways a test feeds a stream to a lineReader.
func readers(t *testing.T, data []byte) map[string]io.Reader {
	return map[string]io.Reader{
		"bytes.Reader": bytes.NewReader(data),
		"pipe":         oddPieces(t, data),
	}
}

// readAllLines reads lines until an error, copying each (a returned slice
// is only valid until the next call).
func readAllLines(lr *lineReader) ([][]byte, error) {
	var out [][]byte
	for {
		line, err := lr.next()
		if err != nil {
			return out, err
		}
		out = append(out, bytes.Clone(line))
	}
}

func checkLines(t *testing.T, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("line %d: got %d bytes, want %d (first difference at %d)", i, len(got[i]), len(want[i]), firstDiff(got[i], want[i]))
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// sizes: every boundary of the reader (the 64 KiB bufio buffer, the 1 MiB
// reused buffer, pieces beyond), with short lines after huge ones and huge
// ones after short ones, and the same huge size twice in a row (the reused
// buffer).
var mixedSizes = []int{
	0, 1, 64*kib - 1, 64 * kib, 64*kib + 1, 1*mib - 1, 1 * mib, 1*mib + 1, 3*mib + 7,
	0, 3*mib + 7, 1, 1*mib + 1, 64*kib - 1, 1 * mib, 0, 64 * kib, 3*mib + 7, 3*mib + 7,
	64*kib + 1, 1*mib - 1, 1*mib - 1, 1, 1*mib + 1, 64 * kib, 1 * mib, 0,
}

// expectLines reads r to its end with no limit and checks it held want.
func expectLines(t *testing.T, r io.Reader, want [][]byte) *lineReader {
	t.Helper()
	lr := newLineReader(r, 0)
	got, err := readAllLines(lr)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("ended with %v, want io.EOF", err)
	}
	checkLines(t, got, want)
	return lr
}

func TestLineReaderMixedSizes(t *testing.T) {
	var want [][]byte
	for i, n := range mixedSizes {
		want = append(want, lineOf(n, i))
	}
	data := streamOf(want, "\n", nil)
	for name, r := range readers(t, data) {
		t.Run(name, func(t *testing.T) {
			lr := expectLines(t, r, want)
			if _, err := lr.next(); !errors.Is(err, io.EOF) {
				t.Errorf("after the end: %v, want io.EOF", err)
			}
		})
	}
}

// A returned slice of a long line aliases the reused buffer: the next
// line must not be glued to or mixed with it.
func TestLineReaderReuseDoesNotLeak(t *testing.T) {
	a, b := bytes.Repeat([]byte{'a'}, 900*kib), bytes.Repeat([]byte{'b'}, 100*kib)
	lr := newLineReader(bytes.NewReader(streamOf([][]byte{a, b, a}, "\n", nil)), 0)
	for i, want := range [][]byte{a, b, a} {
		got, err := lr.next()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("line %d: %d bytes, %v; want %d bytes", i, len(got), err, len(want))
		}
	}
}

func TestLineReaderFinalUnterminated(t *testing.T) {
	for _, n := range []int{1, 5, 64*kib - 1, 64 * kib, 64*kib + 1, 1 * mib, 1*mib + 1, 3*mib + 7} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			head := [][]byte{lineOf(3*mib+7, 1), lineOf(2, 2)}
			tail := lineOf(n, 3)
			want := append(head[:2:2], tail)
			for name, r := range readers(t, streamOf(head, "\n", tail)) {
				t.Run(name, func(t *testing.T) { expectLines(t, r, want) })
			}
		})
	}
}

func TestLineReaderCRLF(t *testing.T) {
	var lines [][]byte
	for i, n := range []int{0, 1, 64*kib - 2, 64*kib - 1, 64 * kib, 1*mib - 1, 1 * mib, 3*mib + 7, 10} {
		lines = append(lines, lineOf(n, i))
	}
	// A CR inside a line stays; only the one before the newline goes.
	lines = append(lines, []byte("a\rb"), []byte("\r"))
	// Each line comes back as written: trimEOL drops one CR before the
	// newline, so the line "\r" (sent as "\r\r\n") stays "\r".
	want := lines
	data := streamOf(lines, "\r\n", nil)
	for name, r := range readers(t, data) {
		t.Run(name, func(t *testing.T) {
			got, err := readAllLines(newLineReader(r, 0))
			if !errors.Is(err, io.EOF) {
				t.Fatalf("ended with %v", err)
			}
			checkLines(t, got, want)
		})
	}
}

// step is one expected result of next: a line, or a too-long error of the
// given size.
type step struct {
	line    []byte
	tooLong int64
}

func TestLineReaderLimit(t *testing.T) {
	const limit = 200 * kib
	type in struct {
		n  int
		ok bool
	}
	ins := []in{
		{10, true}, {300 * kib, false}, {0, true}, {limit, true}, {limit + 1, false}, {1, true},
		{3*mib + 7, false}, {64*kib + 1, true}, {limit - 1, true}, {1*mib + 1, false}, {1*mib + 1, false},
		{64 * kib, true}, {limit + 2, false}, {5, true},
	}
	var lines [][]byte
	var want []step
	for i, x := range ins {
		l := lineOf(x.n, i)
		lines = append(lines, l)
		if x.ok {
			want = append(want, step{line: l})
		} else {
			want = append(want, step{tooLong: int64(x.n)})
		}
	}
	data := streamOf(lines, "\n", nil)
	for name, r := range readers(t, data) {
		t.Run(name, func(t *testing.T) {
			lr := newLineReader(r, limit)
			for i, w := range want {
				got, err := lr.next()
				if w.tooLong > 0 {
					var tl *LineTooLongError
					if !errors.As(err, &tl) || !errors.Is(err, ErrLineTooLong) {
						t.Fatalf("step %d: got %d bytes, %v; want LineTooLongError", i, len(got), err)
					}
					if tl.Size != w.tooLong || tl.Limit != limit {
						t.Fatalf("step %d: Size %d Limit %d, want %d %d", i, tl.Size, tl.Limit, w.tooLong, limit)
					}
					continue
				}
				if err != nil || !bytes.Equal(got, w.line) {
					t.Fatalf("step %d: got %d bytes, %v; want %d bytes", i, len(got), err, len(w.line))
				}
			}
			if _, err := lr.next(); !errors.Is(err, io.EOF) {
				t.Fatalf("after the last line: %v, want io.EOF", err)
			}
		})
	}
}

// An over-long final line without a newline is skipped too; the stream
// then ends.
func TestLineReaderLimitUnterminated(t *testing.T) {
	const limit = 200 * kib
	for _, n := range []int{limit + 1, limit + 2, 300 * kib, 3*mib + 7} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			lr := newLineReader(bytes.NewReader(streamOf([][]byte{lineOf(7, 0)}, "\n", lineOf(n, 1))), limit)
			if l, err := lr.next(); err != nil || len(l) != 7 {
				t.Fatalf("first line: %d bytes, %v", len(l), err)
			}
			l, err := lr.next()
			var tl *LineTooLongError
			if !errors.As(err, &tl) {
				t.Fatalf("got %d bytes, %v; want LineTooLongError", len(l), err)
			}
			if _, err := lr.next(); !errors.Is(err, io.EOF) {
				t.Fatalf("after it: %v, want io.EOF", err)
			}
			if tl.Size != int64(n) {
				t.Errorf("Size %d for an unterminated line of %d bytes", tl.Size, n)
			}
		})
	}
}

// A limit below the 64 KiB buffer: a line that fits the buffer but not
// the limit.
func TestLineReaderSmallLimit(t *testing.T) {
	const limit = 1000
	lr := newLineReader(bytes.NewReader(streamOf([][]byte{lineOf(5000, 0), lineOf(3, 1)}, "\n", nil)), limit)
	l, err := lr.next()
	if err == nil {
		t.Fatalf("a %d-byte line under a limit of %d was returned", len(l), limit)
	}
	var tl *LineTooLongError
	if !errors.As(err, &tl) || tl.Size != 5000 {
		t.Fatalf("got %v, want LineTooLongError of 5000 bytes", err)
	}
	if l, err := lr.next(); err != nil || !bytes.Equal(l, lineOf(3, 1)) {
		t.Fatalf("next line: %q, %v", l, err)
	}
}
