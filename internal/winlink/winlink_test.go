package winlink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// side is a Handler: calls answer "<name>:<method>:<args>", or run fn.
type side struct {
	name string
	fn   func(ctx context.Context, method, args string) (string, error)

	mu     sync.Mutex
	events []string
}

func (s *side) Call(ctx context.Context, method, args string) (string, error) {
	if s.fn != nil {
		return s.fn(ctx, method, args)
	}
	return s.name + ":" + method + ":" + args, nil
}

func (s *side) Event(name string, data json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, name+"="+string(data))
}

func (s *side) eventCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.events)
}

// pair links two Conns over a real socket pair, the child's end through a
// file as a child process gets it.
func pair(t *testing.T, parent, child Handler) (*Conn, *Conn) {
	t.Helper()
	pc, cc := sockets(t)
	p, c := New(pc, parent, nil), New(cc, child, nil)
	go p.Serve()
	go c.Serve()
	t.Cleanup(func() { p.Close(); c.Close() })
	return p, c
}

// sockets is a real socket pair, the child's end through a file.
func sockets(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	pc, cf, err := Pair()
	if err != nil {
		t.Fatal(err)
	}
	cc, err := net.FileConn(cf)
	cf.Close()
	if err != nil {
		t.Fatal(err)
	}
	return pc, cc
}

func TestCallsGoBothWays(t *testing.T) {
	p, c := pair(t, &side{name: "window"}, &side{name: "services"})
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 100 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			got, err := p.Call(t.Context(), "m", fmt.Sprint(i))
			if want := fmt.Sprintf("services:m:%d", i); err != nil || got != want {
				errs <- fmt.Errorf("window→services: %q, %v; want %q", got, err, want)
			}
		}()
		go func() {
			defer wg.Done()
			got, err := c.Call(t.Context(), "native", fmt.Sprint(i))
			if want := fmt.Sprintf("window:native:%d", i); err != nil || got != want {
				errs <- fmt.Errorf("services→window: %q, %v; want %q", got, err, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestEventsArriveInOrderBeforeTheReply(t *testing.T) {
	win := &side{name: "window"}
	var svc *Conn
	services := &side{fn: func(_ context.Context, _, _ string) (string, error) {
		for i := range 1000 {
			if err := svc.Emit("thread:event", map[string]int{"n": i}); err != nil {
				return "", err
			}
		}
		return `"done"`, nil
	}}
	p, c := pair(t, win, services)
	svc = c
	if got, err := p.Call(t.Context(), "prompt", "{}"); err != nil || got != `"done"` {
		t.Fatalf("call: %q, %v", got, err)
	}
	if n := win.eventCount(); n != 1000 {
		t.Fatalf("%d events had arrived when the reply did, want all 1000", n)
	}
	for i, e := range win.events {
		if want := fmt.Sprintf(`thread:event={"n":%d}`, i); e != want {
			t.Fatalf("event %d is %s, want %s", i, e, want)
		}
	}
}

func TestAnErrorIsPassedOnUnchanged(t *testing.T) {
	text := `{"code":"not_found","reason":"session_not_found","message":"no such session"}`
	p, _ := pair(t, &side{}, &side{fn: func(context.Context, string, string) (string, error) { return "", errors.New(text) }})
	_, err := p.Call(t.Context(), "sessions.get", `{"id":"x"}`)
	var re *RemoteError
	if !errors.As(err, &re) || err.Error() != text {
		t.Fatalf("error %#v, want a RemoteError with the text unchanged", err)
	}
}

func TestAClosedLinkFailsThePendingCallsAndCancelsTheHandlers(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan struct{})
	p, c := pair(t, &side{}, &side{fn: func(ctx context.Context, _, _ string) (string, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return "", ctx.Err()
	}})
	res := make(chan error, 1)
	go func() { _, err := p.Call(t.Context(), "slow", "{}"); res <- err }()
	<-started
	c.Close() // the services' process went away
	select {
	case err := <-res:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("pending call failed with %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pending call did not fail when the link closed")
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was not cancelled")
	}
	<-p.Done()
	if _, err := p.Call(t.Context(), "after", "{}"); !errors.Is(err, ErrClosed) {
		t.Fatalf("a call after the close: %v, want ErrClosed", err)
	}
}

func TestACallGivesUpWithItsContext(t *testing.T) {
	p, _ := pair(t, &side{}, &side{fn: func(ctx context.Context, method, _ string) (string, error) {
		if method == "slow" {
			<-ctx.Done()
		}
		return `"ok"`, nil
	}})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.Call(ctx, "slow", "{}"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the deadline", err)
	}
	// The link still works.
	if got, err := p.Call(t.Context(), "again", "{}"); err != nil || got != `"ok"` {
		t.Fatalf("the call after a given-up one: %q, %v", got, err)
	}
}

func TestHugeFramesAndBadLines(t *testing.T) {
	pc, cc := sockets(t)
	// A bad line on the wire first: it is skipped, the link goes on.
	if _, err := cc.Write([]byte("not json\n{\"id\":7}\n")); err != nil {
		t.Fatal(err)
	}
	p, c := New(pc, &side{name: "window"}, nil), New(cc, &side{fn: func(_ context.Context, _, args string) (string, error) {
		return fmt.Sprint(len(args)), nil
	}}, nil)
	go p.Serve()
	go c.Serve()
	defer p.Close()
	defer c.Close()
	big := strings.Repeat("汉字", 5<<20) // 30 MB of UTF-8
	got, err := p.Call(t.Context(), "big", big)
	if err != nil || got != fmt.Sprint(len(big)) {
		t.Fatalf("a 30 MB call: %q, %v", got, err)
	}
}
