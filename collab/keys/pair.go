package keys

import (
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
)

// Pairing a new machine (the joiner, B) with a machine already in the
// account (the initiator, A), through a mailbox the server relays, as
// Matrix's SAS verification does it:
//
//	B → A  commit:  SHA-256(label ‖ pubB ‖ nonceB)
//	A → B  hello:   pubA ‖ nonceA
//	B → A  reveal:  pubB ‖ nonceB           (A checks the commitment)
//	both:  SAS from HKDF over the X25519 secret, both keys, both nonces;
//	       the person compares the 12 digits on both screens
//	A ⇄ B  confirm: own DevicePublic ‖ HMAC under a key from the exchange
//
// Because B commits to its key before it sees A's, a server in the middle
// cannot choose its keys so that both sides show the same digits: it has
// one guess in 2^39 per attempt. pubA, pubB are ephemeral X25519 keys; the
// device keys travel only in the confirm messages, bound by the MAC to the
// exchange the person checked.

// Pairing message types.
const (
	pairCommit  = 1
	pairHello   = 2
	pairReveal  = 3
	pairConfirm = 4
)

type pairState int

const (
	pairStart pairState = iota
	pairWaitHello
	pairWaitReveal
	pairShown     // SAS computed, waiting for the person
	pairConfirmed // own confirm sent, waiting for the peer's
	pairDone
	pairFailed
)

// pairCore is what both sides share.
type pairCore struct {
	self      *Device
	initiator bool
	state     pairState
	eph       *ecdh.PrivateKey
	nonce     []byte
	sas       string
	macOut    []byte // key of the MAC this side sends
	macIn     []byte // key of the MAC the peer sends
	peer      DevicePublic
}

func newPairCore(self *Device, initiator bool) (*pairCore, error) {
	eph, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("pairing: %w", err)
	}
	nonce := make([]byte, 32)
	rand.Read(nonce)
	return &pairCore{self: self, initiator: initiator, eph: eph, nonce: nonce}, nil
}

func (c *pairCore) fail(err error) error {
	c.state = pairFailed
	return fmt.Errorf("pairing: %w", err)
}

func commitment(pub, nonce []byte) []byte {
	h := sha256.New()
	h.Write([]byte("mnote pair commit v1\x00"))
	h.Write(pub)
	h.Write(nonce)
	return h.Sum(nil)
}

// parse reads a pairing message of type typ with fixed parts of n bytes.
func parsePair(msg []byte, typ byte, n int) ([]byte, error) {
	if len(msg) != 1+n || msg[0] != typ {
		return nil, fmt.Errorf("%w: want a message of type %d", ErrEncoding, typ)
	}
	return msg[1:], nil
}

// derive computes the SAS and the MAC keys once both keys and nonces are known.
func (c *pairCore) derive(pubA, nonceA, pubB, nonceB []byte) error {
	peerPub := pubA
	if c.initiator {
		peerPub = pubB
	}
	pk, err := ecdh.X25519().NewPublicKey(peerPub)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrEncoding, err)
	}
	shared, err := c.eph.ECDH(pk)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrEncoding, err)
	}
	transcript := string(pubA) + string(nonceA) + string(pubB) + string(nonceB)
	sas, err := hkdf.Key(sha256.New, shared, nil, "mnote pair sas v1"+transcript, 5)
	if err != nil {
		return err
	}
	// Matrix's decimal SAS: three 13-bit numbers, each plus 1000.
	n0 := int(sas[0])<<5 | int(sas[1])>>3
	n1 := (int(sas[1])&0x7)<<10 | int(sas[2])<<2 | int(sas[3])>>6
	n2 := (int(sas[3])&0x3f)<<7 | int(sas[4])>>1
	c.sas = fmt.Sprintf("%04d %04d %04d", n0+1000, n1+1000, n2+1000)
	macA, err := hkdf.Key(sha256.New, shared, nil, "mnote pair mac v1 initiator"+transcript, 32)
	if err != nil {
		return err
	}
	macB, err := hkdf.Key(sha256.New, shared, nil, "mnote pair mac v1 joiner"+transcript, 32)
	if err != nil {
		return err
	}
	c.macOut, c.macIn = macB, macA
	if c.initiator {
		c.macOut, c.macIn = macA, macB
	}
	c.state = pairShown
	return nil
}

// confirm is the confirm message, to send once the person said the
// strings match.
func (c *pairCore) confirm() ([]byte, error) {
	if c.state != pairShown {
		return nil, c.fail(ErrPairState)
	}
	pub, err := c.self.pub.Marshal()
	if err != nil {
		return nil, c.fail(err)
	}
	m := hmac.New(sha256.New, c.macOut)
	m.Write(pub)
	c.state = pairConfirmed
	return append(append([]byte{pairConfirm}, pub...), m.Sum(nil)...), nil
}

// finish checks the peer's confirm message and returns its device.
func (c *pairCore) finish(msg []byte) (DevicePublic, error) {
	if c.state != pairConfirmed {
		return DevicePublic{}, c.fail(ErrPairState)
	}
	if len(msg) < 1+sha256.Size || msg[0] != pairConfirm {
		return DevicePublic{}, c.fail(fmt.Errorf("%w: want a confirm message", ErrEncoding))
	}
	pub, tag := msg[1:len(msg)-sha256.Size], msg[len(msg)-sha256.Size:]
	m := hmac.New(sha256.New, c.macIn)
	m.Write(pub)
	if !hmac.Equal(m.Sum(nil), tag) {
		return DevicePublic{}, c.fail(ErrPairMAC)
	}
	p, err := ParseDevicePublic(pub)
	if err != nil {
		return DevicePublic{}, c.fail(err)
	}
	c.peer, c.state = p, pairDone
	return p, nil
}

// PairInitiator is the machine already in the account.
type PairInitiator struct {
	c          *pairCore
	commitment []byte
}

// NewPairInitiator starts a pairing on the machine self.
func NewPairInitiator(self *Device) (*PairInitiator, error) {
	c, err := newPairCore(self, true)
	if err != nil {
		return nil, err
	}
	return &PairInitiator{c: c}, nil
}

// HandleCommit takes the joiner's commit and returns the hello to send.
func (p *PairInitiator) HandleCommit(msg []byte) ([]byte, error) {
	if p.c.state != pairStart {
		return nil, p.c.fail(ErrPairState)
	}
	com, err := parsePair(msg, pairCommit, sha256.Size)
	if err != nil {
		return nil, p.c.fail(err)
	}
	p.commitment = com
	p.c.state = pairWaitReveal
	return append(append([]byte{pairHello}, p.c.eph.PublicKey().Bytes()...), p.c.nonce...), nil
}

// HandleReveal takes the joiner's reveal, checks it against the commitment
// and returns the short authentication string to show.
func (p *PairInitiator) HandleReveal(msg []byte) (string, error) {
	if p.c.state != pairWaitReveal {
		return "", p.c.fail(ErrPairState)
	}
	rev, err := parsePair(msg, pairReveal, 64)
	if err != nil {
		return "", p.c.fail(err)
	}
	pubB, nonceB := rev[:32], rev[32:]
	if subtle.ConstantTimeCompare(commitment(pubB, nonceB), p.commitment) != 1 {
		return "", p.c.fail(ErrPairCommitment)
	}
	if err := p.c.derive(p.c.eph.PublicKey().Bytes(), p.c.nonce, pubB, nonceB); err != nil {
		return "", p.c.fail(err)
	}
	return p.c.sas, nil
}

// Confirm is called once the person saw the same string on both machines;
// it returns the confirm message to send.
func (p *PairInitiator) Confirm() ([]byte, error) { return p.c.confirm() }

// Finish checks the joiner's confirm message and returns the joining
// device, now authenticated by the comparison. The caller adds it to the
// account's device list (package roster) and sends it a key bundle.
func (p *PairInitiator) Finish(msg []byte) (DevicePublic, error) { return p.c.finish(msg) }

// PairJoiner is the new machine.
type PairJoiner struct{ c *pairCore }

// NewPairJoiner starts a pairing on the new machine self.
func NewPairJoiner(self *Device) (*PairJoiner, error) {
	c, err := newPairCore(self, false)
	if err != nil {
		return nil, err
	}
	return &PairJoiner{c: c}, nil
}

// Start returns the commit message, the first of the exchange.
func (j *PairJoiner) Start() ([]byte, error) {
	if j.c.state != pairStart {
		return nil, j.c.fail(ErrPairState)
	}
	j.c.state = pairWaitHello
	return append([]byte{pairCommit}, commitment(j.c.eph.PublicKey().Bytes(), j.c.nonce)...), nil
}

// HandleHello takes the initiator's hello and returns the reveal to send
// and the short authentication string to show.
func (j *PairJoiner) HandleHello(msg []byte) (reveal []byte, sas string, err error) {
	if j.c.state != pairWaitHello {
		return nil, "", j.c.fail(ErrPairState)
	}
	h, err := parsePair(msg, pairHello, 64)
	if err != nil {
		return nil, "", j.c.fail(err)
	}
	pub := j.c.eph.PublicKey().Bytes()
	if err := j.c.derive(h[:32], h[32:], pub, j.c.nonce); err != nil {
		return nil, "", j.c.fail(err)
	}
	return append(append([]byte{pairReveal}, pub...), j.c.nonce...), j.c.sas, nil
}

// Confirm is called once the person saw the same string on both machines;
// it returns the confirm message to send.
func (j *PairJoiner) Confirm() ([]byte, error) { return j.c.confirm() }

// Finish checks the initiator's confirm message and returns its device.
func (j *PairJoiner) Finish(msg []byte) (DevicePublic, error) { return j.c.finish(msg) }
