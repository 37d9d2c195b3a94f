package keys

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// The binary encodings here are canonical: fields in a fixed order, strings
// and byte strings prefixed with a big-endian uint16 length, integers
// big-endian, no optional parts. A parser refuses trailing bytes, so one
// value has one encoding and what is signed is what is parsed.

// maxField is the longest string or byte string in an encoding.
const maxField = 1 << 12

// writer appends the canonical encoding.
type writer struct{ b []byte }

func (w *writer) u8(v byte)    { w.b = append(w.b, v) }
func (w *writer) u64(v uint64) { w.b = binary.BigEndian.AppendUint64(w.b, v) }
func (w *writer) bytes(v []byte) {
	w.b = binary.BigEndian.AppendUint16(w.b, uint16(len(v)))
	w.b = append(w.b, v...)
}
func (w *writer) str(v string) { w.bytes([]byte(v)) }

// reader parses the canonical encoding; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrEncoding, what)
	}
}

func (r *reader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.b) {
		r.fail("short " + what)
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8(what string) byte {
	if v := r.take(1, what); v != nil {
		return v[0]
	}
	return 0
}

func (r *reader) u64(what string) uint64 {
	if v := r.take(8, what); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

func (r *reader) bytes(what string) []byte {
	l := r.take(2, what)
	if l == nil {
		return nil
	}
	return r.take(int(binary.BigEndian.Uint16(l)), what)
}

func (r *reader) str(what string) string {
	v := r.bytes(what)
	if r.err == nil && !utf8.Valid(v) {
		r.fail(what + " is not UTF-8")
	}
	return string(v)
}

// end fails when bytes are left.
func (r *reader) end() error {
	if r.err == nil && len(r.b) != 0 {
		r.fail("trailing bytes")
	}
	return r.err
}

// checkStr refuses a string too long for the encoding.
func checkStr(what, v string) error {
	if len(v) > maxField {
		return fmt.Errorf("%w: %s longer than %d bytes", ErrEncoding, what, maxField)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("%w: %s is not UTF-8", ErrEncoding, what)
	}
	return nil
}
