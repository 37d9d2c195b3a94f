package shared

import (
	"context"
	"errors"
	"sync"
	"time"

	"mnote/collab/client"
)

// Devices is the result of shared.devices.
type Devices struct {
	Account string `json:"account"`
	// This is this machine's device id and fingerprint; Paired says it is
	// in the account's device list (else it waits to join).
	This        string              `json:"this"`
	Fingerprint string              `json:"fingerprint"`
	Paired      bool                `json:"paired"`
	Devices     []client.DeviceInfo `json:"devices"`
}

// Devices lists the account's devices.
func (s *Service) Devices(ctx context.Context, _ struct{}) (any, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	d := c.Device()
	out := &Devices{Account: c.Account(), This: d.DeviceID, Fingerprint: d.Fingerprint(), Devices: []client.DeviceInfo{}}
	ds, err := c.Devices(ctx)
	if errors.Is(err, client.ErrNotPaired) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	out.Paired, out.Devices = true, ds
	return out, nil
}

// DeviceArgs name a device.
type DeviceArgs struct {
	ID string `json:"id"`
}

// RemoveDevice takes a device out of the account's list; the sessions it
// owns continue under a new key.
func (s *Service) RemoveDevice(ctx context.Context, a DeviceArgs) (any, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.RemoveDevice(ctx, a.ID); err != nil {
		return nil, err
	}
	return s.Devices(ctx, struct{}{})
}

// AccountArgs name an account.
type AccountArgs struct {
	Account string `json:"account"`
}

// SafetyNumber is the number to compare with another account's person.
func (s *Service) SafetyNumber(ctx context.Context, a AccountArgs) (any, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	n, err := c.SafetyNumber(ctx, a.Account)
	if err != nil {
		return nil, err
	}
	return map[string]string{"account": a.Account, "number": n}, nil
}

// AcceptKeys accepts an account's changed devices.
func (s *Service) AcceptKeys(ctx context.Context, a AccountArgs) (any, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.AcceptKeys(ctx, a.Account); err != nil {
		return nil, err
	}
	st := c.Pins().Status(a.Account)
	return map[string]string{"account": a.Account, "fingerprint": st.Fingerprint}, nil
}

// ---- pairing -------------------------------------------------------------

// PairStep is a step of pairing (Pair, on a listed machine) or joining
// (Join, on the new one), sent as events of type "pair".
type PairStep struct {
	// State: "code" (Code to type on the new machine, until Expires),
	// "confirm" (SAS: the 12 digits to compare; answer with
	// shared.pairConfirm), "done" (Device: the device paired or this one
	// joined), "failed" (Reason, Params: why).
	State   string            `json:"state"`
	Role    string            `json:"role"` // "pair" or "join"
	Code    string            `json:"code,omitempty"`
	Expires *time.Time        `json:"expires,omitempty"`
	SAS     string            `json:"sas,omitempty"`
	Device  string            `json:"device,omitempty"`
	Reason  string            `json:"reason,omitempty"`
	Params  map[string]string `json:"params,omitempty"`
	Message string            `json:"message,omitempty"`
}

// pairing is the one pairing or joining under way.
type pairing struct {
	cancel  context.CancelFunc
	answer  chan bool
	asked   bool
	askedMu sync.Mutex
}

func (s *Service) beginPairing() (*pairing, context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pairing != nil {
		s.pairing.cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	p := &pairing{cancel: cancel, answer: make(chan bool, 1)}
	s.pairing = p
	return p, ctx
}

func (s *Service) endPairing(p *pairing) {
	p.cancel()
	s.mu.Lock()
	if s.pairing == p {
		s.pairing = nil
	}
	s.mu.Unlock()
}

func (s *Service) confirmFn(ctx context.Context, p *pairing, role string) func(string) bool {
	return func(sas string) bool {
		p.askedMu.Lock()
		p.asked = true
		p.askedMu.Unlock()
		s.emit(Event{Type: EvPair, Pair: &PairStep{State: "confirm", Role: role, SAS: sas}})
		select {
		case ok := <-p.answer:
			return ok
		case <-ctx.Done():
			return false
		}
	}
}

func (s *Service) pairFailed(role string, err error) {
	var reason string
	var params map[string]string
	if e, ok := Classify(err); ok {
		reason, params = e.Reason, e.Params
	} else if s.cfg.Reason != nil {
		reason, params = s.cfg.Reason(err)
	}
	s.emit(Event{Type: EvPair, Pair: &PairStep{State: "failed", Role: role, Reason: reason, Params: params, Message: err.Error()}})
}

// Pair lets a new machine of this account join: it answers the code to
// type there; the 12 digits to compare and the outcome come as events.
func (s *Service) Pair(ctx context.Context, _ struct{}) (any, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	p, pctx := s.beginPairing()
	code := make(chan PairStep, 1)
	failed := make(chan error, 1)
	go func() {
		defer s.endPairing(p)
		dev, err := c.Pair(pctx, client.PairUI{
			Code: func(c string, until time.Time) {
				code <- PairStep{State: "code", Role: "pair", Code: c, Expires: &until}
			},
			Confirm: s.confirmFn(pctx, p, "pair"),
		})
		if err != nil {
			failed <- err
			s.pairFailed("pair", err)
			return
		}
		s.emit(Event{Type: EvPair, Pair: &PairStep{State: "done", Role: "pair", Device: dev.Name}})
	}()
	select {
	case st := <-code:
		return st, nil
	case err := <-failed:
		return nil, err
	case <-ctx.Done():
		s.endPairing(p)
		return nil, ctx.Err()
	}
}

// JoinArgs are the code the listed machine shows.
type JoinArgs struct {
	Code string `json:"code"`
}

// Join makes this machine one of its account's devices with the code
// another of them shows (sync set up with the same account); the 12
// digits to compare and the outcome come as events.
func (s *Service) Join(ctx context.Context, a JoinArgs) (any, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	p, pctx := s.beginPairing()
	go func() {
		defer s.endPairing(p)
		if err := c.Join(pctx, a.Code, client.PairUI{Confirm: s.confirmFn(pctx, p, "join")}); err != nil {
			s.pairFailed("join", err)
			return
		}
		s.emit(Event{Type: EvPair, Pair: &PairStep{State: "done", Role: "join", Device: c.Device().Name}})
	}()
	return struct{}{}, nil
}

// ConfirmArgs answer the 12-digit comparison.
type ConfirmArgs struct {
	Same bool `json:"same"`
}

// PairConfirm answers the comparison of the 12 digits (or ends the
// pairing when Same is false).
func (s *Service) PairConfirm(_ context.Context, a ConfirmArgs) (any, error) {
	s.mu.Lock()
	p := s.pairing
	s.mu.Unlock()
	if p == nil {
		return nil, fail(CodeBadRequest, ReasonNoPairing, errors.New("no pairing waits for an answer"))
	}
	p.askedMu.Lock()
	asked := p.asked
	p.askedMu.Unlock()
	if !asked {
		if !a.Same {
			p.cancel()
			return struct{}{}, nil
		}
		return nil, fail(CodeBadRequest, ReasonNoPairing, errors.New("the 12 digits are not shown yet"))
	}
	select {
	case p.answer <- a.Same:
	default:
	}
	return struct{}{}, nil
}
