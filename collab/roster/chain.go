package roster

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"mnote/collab/internal/wire"
	"mnote/collab/keys"
)

// The version byte of statements and the type byte of each chain.
const (
	statementVersion = 1
	typeSession      = 'S'
	typeDevices      = 'D'
)

// Signature contexts (keys.Device.Sign).
const (
	ctxSession = "roster session v1"
	ctxDevices = "roster devices v1"
)

// maxChain bounds the statements of one chain.
const maxChain = 1 << 20

// Checkpoint is what a client keeps of a chain it verified, to check that
// the next one it is shown extends it (Extends).
type Checkpoint struct {
	Len  uint64   // number of statements
	Head [32]byte // SHA-256 of the last statement's encoding
}

// link is what every statement has: which chain, where in it, when, by whom.
type link struct {
	Scope  string // session id or account
	N      uint64
	Prev   [32]byte
	Time   time.Time // asserted by the signer, to the millisecond
	Signer string    // device id
}

// writeLink starts a statement's encoding.
func writeLink(w *wire.Writer, typ byte, l link) error {
	if err := wire.CheckStr("scope", l.Scope); err != nil {
		return err
	}
	w.U8(statementVersion)
	w.U8(typ)
	w.Str(l.Scope)
	w.U64(l.N)
	w.Bytes(l.Prev[:])
	w.U64(uint64(l.Time.UnixMilli()))
	w.Str(l.Signer)
	return nil
}

// readLink parses what writeLink wrote.
func readLink(r *wire.Reader, typ byte) link {
	if v := r.U8("version"); r.Err == nil && v != statementVersion {
		r.Err = fmt.Errorf("%w: statement version %d", keys.ErrVersion, v)
	}
	if t := r.U8("type"); r.Err == nil && t != typ {
		r.Fail(fmt.Sprintf("statement of type %q, want %q", t, typ))
	}
	l := link{Scope: r.Str("scope"), N: r.U64("n")}
	if p := r.Bytes("prev"); r.Err == nil {
		if len(p) != len(l.Prev) {
			r.Fail("prev hash size")
		}
		copy(l.Prev[:], p)
	}
	l.Time = time.UnixMilli(int64(r.U64("time"))).UTC()
	l.Signer = r.Str("signer")
	return l
}

// finish appends the signature of by over the encoding so far.
func finish(w *wire.Writer, by *keys.Device, context string) []byte {
	w.Bytes(by.Sign(context, w.B))
	return w.B
}

// readSig reads the signature that ends a statement and returns the
// signed body.
func readSig(r *wire.Reader, blob []byte) (body, sig []byte, err error) {
	body = blob[:len(blob)-len(r.B)]
	sig = r.Bytes("signature")
	if err := r.End(); err != nil {
		return nil, nil, malformed(err)
	}
	return body, sig, nil
}

func malformed(err error) error {
	if errors.Is(err, ErrMalformed) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

// chain checks the links of a chain as its statements come.
type chain struct {
	scope  string
	hashes [][32]byte
	last   time.Time
}

// next checks l as the next statement; scope is fixed by the first.
func (c *chain) next(l link) error {
	i := uint64(len(c.hashes))
	if i == 0 {
		c.scope = l.Scope
	}
	var prev [32]byte
	if i > 0 {
		prev = c.hashes[i-1]
	}
	switch {
	case l.N != i:
		return fmt.Errorf("%w: statement %d where %d belongs", ErrBrokenChain, l.N, i)
	case l.Prev != prev:
		return fmt.Errorf("%w: previous hash does not match", ErrBrokenChain)
	case l.Scope != c.scope:
		return fmt.Errorf("%w: statement of %q in the chain of %q", ErrBrokenChain, l.Scope, c.scope)
	case l.Time.Before(c.last):
		return fmt.Errorf("%w: dated before its predecessor", ErrBrokenChain)
	}
	return nil
}

// push records a statement that verified.
func (c *chain) push(blob []byte, l link) {
	c.hashes = append(c.hashes, sha256.Sum256(blob))
	c.last = l.Time
}

func (c *chain) checkpoint() Checkpoint {
	if len(c.hashes) == 0 {
		return Checkpoint{}
	}
	return Checkpoint{Len: uint64(len(c.hashes)), Head: c.hashes[len(c.hashes)-1]}
}

// nextLink is the link of a statement to append.
func (c *chain) nextLink(by *keys.Device, now time.Time) link {
	cp := c.checkpoint()
	t := now.UTC().Truncate(time.Millisecond)
	if t.Before(c.last) {
		t = c.last // a clock behind the last statement's: keep the order
	}
	return link{Scope: c.scope, N: cp.Len, Prev: cp.Head, Time: t, Signer: by.ID()}
}

// extends checks that the chain seen before (cp) is a prefix of c.
func (c *chain) extends(cp Checkpoint) error {
	switch {
	case cp.Len == 0:
		return nil
	case cp.Len > uint64(len(c.hashes)):
		return fmt.Errorf("%w: %d statements, %d seen before", ErrRollback, len(c.hashes), cp.Len)
	case c.hashes[cp.Len-1] != cp.Head:
		return fmt.Errorf("%w: statement %d differs from the one seen before", ErrFork, cp.Len-1)
	}
	return nil
}

func checkLen(n int) error {
	if n == 0 {
		return ErrEmptyChain
	}
	if n > maxChain {
		return fmt.Errorf("%w: %d statements", ErrMalformed, n)
	}
	return nil
}

func sha256Sum(s string) [32]byte { return sha256.Sum256([]byte(s)) }
