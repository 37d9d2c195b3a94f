// Package wire is the canonical binary encoding of what collab signs and
// seals: fields in a fixed order, strings and byte strings prefixed with a
// big-endian uint16 length, integers big-endian, no optional parts. A
// Reader refuses trailing bytes (End), so one value has one encoding and
// what is signed is what is parsed.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrEncoding is the error of everything that does not parse.
var ErrEncoding = errors.New("malformed encoding")

// MaxField is the longest string a Writer takes (CheckStr); byte strings
// are at most 65535 bytes.
const MaxField = 1 << 12

// Writer appends the canonical encoding to B.
type Writer struct{ B []byte }

// U8 appends a byte.
func (w *Writer) U8(v byte) { w.B = append(w.B, v) }

// U64 appends a big-endian uint64.
func (w *Writer) U64(v uint64) { w.B = binary.BigEndian.AppendUint64(w.B, v) }

// Bytes appends a byte string of at most 65535 bytes; a longer one is a
// bug of the caller (strings are checked with CheckStr, the rest are keys,
// signatures and headers) and panics rather than being cut.
func (w *Writer) Bytes(v []byte) {
	if len(v) > 0xffff {
		panic(fmt.Sprintf("wire: byte string of %d bytes", len(v)))
	}
	w.B = binary.BigEndian.AppendUint16(w.B, uint16(len(v)))
	w.B = append(w.B, v...)
}

// Long appends a byte string with a uint64 length (ciphertexts).
func (w *Writer) Long(v []byte) {
	w.U64(uint64(len(v)))
	w.B = append(w.B, v...)
}

// Str appends a string (check it with CheckStr).
func (w *Writer) Str(v string) { w.Bytes([]byte(v)) }

// Reader parses the canonical encoding of B; the first error sticks in Err.
type Reader struct {
	B   []byte
	Err error
}

// Fail records a parse error unless one is there.
func (r *Reader) Fail(what string) {
	if r.Err == nil {
		r.Err = fmt.Errorf("%w: %s", ErrEncoding, what)
	}
}

// Take reads n bytes.
func (r *Reader) Take(n int, what string) []byte {
	if r.Err != nil {
		return nil
	}
	if n > len(r.B) {
		r.Fail("short " + what)
		return nil
	}
	v := r.B[:n:n]
	r.B = r.B[n:]
	return v
}

// U8 reads a byte.
func (r *Reader) U8(what string) byte {
	if v := r.Take(1, what); v != nil {
		return v[0]
	}
	return 0
}

// U64 reads a big-endian uint64.
func (r *Reader) U64(what string) uint64 {
	if v := r.Take(8, what); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// Bytes reads a byte string.
func (r *Reader) Bytes(what string) []byte {
	l := r.Take(2, what)
	if l == nil {
		return nil
	}
	return r.Take(int(binary.BigEndian.Uint16(l)), what)
}

// Long reads a byte string with a uint64 length.
func (r *Reader) Long(what string) []byte {
	n := r.U64(what + " length")
	if r.Err == nil && n > uint64(len(r.B)) {
		r.Fail("short " + what)
		return nil
	}
	return r.Take(int(n), what)
}

// Str reads a UTF-8 string.
func (r *Reader) Str(what string) string {
	v := r.Bytes(what)
	if r.Err == nil && !utf8.Valid(v) {
		r.Fail(what + " is not UTF-8")
	}
	return string(v)
}

// End fails when bytes are left.
func (r *Reader) End() error {
	if r.Err == nil && len(r.B) != 0 {
		r.Fail("trailing bytes")
	}
	return r.Err
}

// CheckStr refuses a string too long for the encoding.
func CheckStr(what, v string) error {
	if len(v) > MaxField {
		return fmt.Errorf("%w: %s longer than %d bytes", ErrEncoding, what, MaxField)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("%w: %s is not UTF-8", ErrEncoding, what)
	}
	return nil
}
