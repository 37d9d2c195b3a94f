package wire_test

import (
	"errors"
	"strings"
	"testing"

	"mnote/collab/internal/wire"
)

// What a Writer writes a Reader reads back; short, trailing and non-UTF-8
// input is ErrEncoding.
func TestRoundTrip(t *testing.T) {
	w := wire.Writer{}
	w.U8(7)
	w.U64(1 << 40)
	w.Str("缓存实验")
	w.Bytes([]byte{0, 1})
	w.Long([]byte("long"))
	r := wire.Reader{B: w.B}
	if r.U8("a") != 7 || r.U64("b") != 1<<40 || r.Str("c") != "缓存实验" || string(r.Bytes("d")) != "\x00\x01" || string(r.Long("e")) != "long" {
		t.Fatal("round trip")
	}
	if err := r.End(); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"short":    w.B[:len(w.B)-1],
		"trailing": append(append([]byte{}, w.B...), 0),
	} {
		r := wire.Reader{B: b}
		r.U8("a")
		r.U64("b")
		r.Str("c")
		r.Bytes("d")
		r.Long("e")
		if err := r.End(); !errors.Is(err, wire.ErrEncoding) {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := wire.Reader{B: []byte{0, 2, 0xff, 0xfe}}
	bad.Str("s")
	if !errors.Is(bad.End(), wire.ErrEncoding) {
		t.Fatal("non-UTF-8 string read")
	}
	huge := wire.Reader{B: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1}}
	if huge.Long("x") != nil || !errors.Is(huge.End(), wire.ErrEncoding) {
		t.Fatal("a length past the end")
	}
	if wire.CheckStr("s", strings.Repeat("x", wire.MaxField)) != nil || wire.CheckStr("s", strings.Repeat("x", wire.MaxField+1)) == nil {
		t.Fatal("CheckStr bound")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a byte string over 65535 bytes was cut instead of refused")
		}
	}()
	w.Bytes(make([]byte, 1<<16))
}
