package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mnote/mcp"
)

func listenLimits(t *testing.T, lim mcp.Limits, log *slog.Logger) *mcp.Host {
	t.Helper()
	h, err := mcp.ListenLimits(filepath.Join(t.TempDir(), "s"), log, lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// rawConn is a connection that has said nothing.
func rawConn(t *testing.T, h *mcp.Host) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", h.Socket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWith reads c until the host closes it (within wait) and returns
// what it said.
func closedWith(t *testing.T, c net.Conn, wait time.Duration) string {
	t.Helper()
	if err := c.SetReadDeadline(time.Now().Add(wait)); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	_, err := b.ReadFrom(c)
	if err != nil {
		t.Fatalf("not closed within %v (said %q): %v", wait, b.String(), err)
	}
	return b.String()
}

// Connections past the caps are refused at once, saying why: past the
// total, past the connections waiting for their hello, past one token's
// share. Idle connections that never present a token are dropped when
// their time is up, and their places are free again.
func TestHostConnectionCaps(t *testing.T) {
	h := listenLimits(t, mcp.Limits{Conns: 12, Pending: 4, PerToken: 5, HelloTimeout: 300 * time.Millisecond}, nil)
	ctx := t.Context()

	// Idle connections: four wait, the others are refused at once.
	var idle []net.Conn
	for range 4 {
		idle = append(idle, rawConn(t, h))
	}
	for range 50 {
		if said := closedWith(t, rawConn(t, h), 5*time.Second); !strings.Contains(said, "connections are waiting to present their token") {
			t.Fatalf("a connection past the waiting ones: %q", said)
		}
	}
	start := time.Now()
	for _, c := range idle {
		if said := closedWith(t, c, 10*time.Second); said != "" {
			t.Errorf("an idle connection was told %q", said)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("idle connections dropped after %v, want about 300ms", d)
	}

	// One token's share, then the total.
	toks := []string{register(t, h, echo{"A"}), register(t, h, echo{"B"}), register(t, h, echo{"C"})}
	var open []*mcp.Client
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	refused := map[string]int{}
	for _, tok := range toks {
		for range 7 {
			c, err := mcp.Dial(ctx, h.Socket(), tok)
			if err != nil {
				if !errors.Is(err, mcp.ErrRefused) {
					t.Fatal(err)
				}
				_, why, _ := strings.Cut(err.Error(), "refused: ")
				refused[why]++
				continue
			}
			open = append(open, c)
		}
	}
	if len(open) != 12 || refused["this token has 5 connections open, the most it may; close one first"] != 4 ||
		refused["12 connections are open, the most mnote takes; try again when one closes"] != 5 {
		t.Fatalf("%d open, refused %v", len(open), refused)
	}
	for _, c := range open {
		if res, err := c.Call(ctx, mcp.ToolListNotes, nil); err != nil || !strings.Contains(res.Text, "list_notes") {
			t.Fatalf("an admitted connection: %q %v", res.Text, err)
		}
	}
	// A closed connection frees its place.
	open[0].Close()
	open = open[1:]
	if err := eventually(func() error {
		c, err := mcp.Dial(ctx, h.Socket(), toks[2])
		if err == nil {
			open = append(open, c)
		}
		return err
	}); err != nil {
		t.Fatalf("after a connection closed: %v", err)
	}
}

// eventually retries fn until it succeeds, for a state the host reaches
// on its own goroutine (a closed connection uncounted).
func eventually(fn func() error) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := fn()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// counter is a handler that counts the calls running at once and keeps
// the highest count; gate, when set, holds each call until it is closed.
type counter struct {
	running, peak atomic.Int64
	started       chan struct{}
	gate          chan struct{}
	answer        string
}

func (c *counter) CallTool(ctx context.Context, _ string, _ json.RawMessage) (mcp.Result, error) {
	n := c.running.Add(1)
	defer c.running.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if c.started != nil {
		c.started <- struct{}{}
	}
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return mcp.Result{}, ctx.Err()
		}
	}
	return mcp.Result{Text: c.answer}, nil
}

// One connection runs at most Limits.Calls calls at once: the host reads
// no more of its requests until one ends, while other connections go on.
func TestHostCallsPerConnection(t *testing.T) {
	h := listenLimits(t, mcp.Limits{Calls: 4}, nil)
	busy := &counter{started: make(chan struct{}, 10), gate: make(chan struct{})}
	c, err := mcp.Dial(t.Context(), h.Socket(), register(t, h, busy))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { _, _ = c.Call(t.Context(), mcp.ToolSearchNotes, nil) })
	}
	for range 4 {
		<-busy.started
	}
	// Another connection is served meanwhile, and then no fifth call of
	// the first has started.
	other, err := mcp.Dial(t.Context(), h.Socket(), register(t, h, echo{"B"}))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Call(t.Context(), mcp.ToolListNotes, nil); err != nil {
		t.Fatal(err)
	}
	if n := busy.running.Load(); n != 4 || len(busy.started) != 0 {
		t.Fatalf("%d calls running, %d more started; want 4", n, len(busy.started))
	}
	close(busy.gate)
	wg.Wait()
	if p := busy.peak.Load(); p != 4 {
		t.Errorf("at most %d calls ran at once, want 4", p)
	}
}

// The bytes in flight are shared by all connections: calls that read a
// whole note hold NoteBytes each, so no more of them run at once than the
// budget holds, however many connections send them; other tools' calls
// go on beside them. An answer too big for the channel is an error that
// says what to ask instead, and the connection goes on.
func TestHostBytesInFlight(t *testing.T) {
	h := listenLimits(t, mcp.Limits{Bytes: 100 << 20, NoteBytes: 40 << 20, Calls: 64}, nil)
	notes := &counter{answer: strings.Repeat("x", 1<<20), started: make(chan struct{}, 60), gate: make(chan struct{})}
	tok := register(t, h, notes)
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for range 3 {
		c, err := mcp.Dial(t.Context(), h.Socket(), tok)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for range 20 {
			wg.Go(func() {
				res, err := c.Call(t.Context(), mcp.ToolReadNote, json.RawMessage(`{"path":"a.md"}`))
				if err == nil && len(res.Text) != 1<<20 {
					err = fmt.Errorf("an answer of %d bytes", len(res.Text))
				}
				errs <- err
			})
		}
	}
	<-notes.started
	<-notes.started
	// A small call of another session runs beside them, and then no
	// third read_note has started.
	other, err := mcp.Dial(t.Context(), h.Socket(), register(t, h, echo{"B"}))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Call(t.Context(), mcp.ToolSearchNotes, nil); err != nil {
		t.Fatal(err)
	}
	if n := notes.running.Load(); n != 2 || len(notes.started) != 0 {
		t.Fatalf("%d read_note calls running, %d more started; the budget holds 2", n, len(notes.started))
	}
	close(notes.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if p := notes.peak.Load(); p != 2 {
		t.Errorf("%d read_note calls ran at once; the budget holds 2", p)
	}

	big := register(t, h, echo{strings.Repeat("\x01", 3<<20)}) // 18 MiB once escaped
	c, err := mcp.Dial(t.Context(), h.Socket(), big)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Call(t.Context(), mcp.ToolListNotes, nil)
	if err == nil || !strings.Contains(err.Error(), "MiB, more than the 16.0 MiB one answer may carry; ask for less: read_note with startLine and endLine") {
		t.Fatalf("an answer over the channel's line: %v", err)
	}
	if _, err := c.Call(t.Context(), mcp.ToolListNotes, nil); err == nil || !strings.Contains(err.Error(), "ask for less") {
		t.Fatalf("the connection after a refused answer: %v", err)
	}
}

// A client that stops reading its answers is closed after IOTimeout, and
// the bytes its calls held serve the other connections again.
func TestHostStalledReaderFreesBudget(t *testing.T) {
	h := listenLimits(t, mcp.Limits{Bytes: 4 << 20, NoteBytes: 2 << 20, IOTimeout: 300 * time.Millisecond}, nil)
	tok := register(t, h, echo{strings.Repeat("y", 3<<20)})
	c := rawConn(t, h)
	fmt.Fprintf(c, "{\"token\":%q}\n", tok)
	for i := range 8 {
		fmt.Fprintf(c, "{\"id\":%d,\"tool\":\"read_note\",\"args\":{}}\n", i+1)
	}
	// c reads nothing: its answers fill the socket, and it is closed.
	ok, err := mcp.Dial(t.Context(), h.Socket(), register(t, h, echo{"B"}))
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if res, err := ok.Call(ctx, mcp.ToolReadNote, nil); err != nil || !strings.HasPrefix(res.Text, "B read_note") {
		t.Fatalf("another connection while one stalls: %q %v", res.Text, err)
	}
	if !waitPeerClosed(t, c, 10*time.Second) {
		t.Fatal("the stalled connection stayed open")
	}
}

// syncBuffer is a log destination safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimSpace(s.b.String()), "\n")
}

// A thousand connections with a bad token make one log line, and the
// next line (here: when the host closes) says how many were not logged.
func TestHostRefusalLogIsRateLimited(t *testing.T) {
	var out syncBuffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	h, err := mcp.ListenLimits(filepath.Join(t.TempDir(), "s"), log, mcp.Limits{LogEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for i := range 1000 {
		if _, err := mcp.Dial(t.Context(), h.Socket(), fmt.Sprintf("%064x", i)); !errors.Is(err, mcp.ErrRefused) {
			t.Fatalf("bad token %d: %v", i, err)
		}
	}
	if lines := out.lines(); len(lines) != 1 || !strings.Contains(lines[0], "refused") {
		t.Fatalf("log after 1000 refusals: %q", lines)
	}
	h.Close()
	if lines := out.lines(); len(lines) != 2 || !strings.Contains(lines[1], "notLogged=999") {
		t.Fatalf("log after close: %q", lines)
	}
}

// Answers are encoded a piece at a time: characters cut by a piece's end,
// escapes, control characters and bytes that are not UTF-8 come out as
// encoding/json would give them.
func TestHostAnswerEncoding(t *testing.T) {
	h := listen(t)
	var b strings.Builder
	for b.Len() < 200<<10 {
		b.WriteString("é😀中\"\\\n\t\x01</>\u2028 plain text \xff\xe4\xb8") // the last three bytes are not UTF-8
	}
	text := b.String()
	for _, shift := range []int{0, 1, 2, 3} { // move the pieces' ends over the characters
		c, err := mcp.Dial(t.Context(), h.Socket(), register(t, h, echo{strings.Repeat("a", shift) + text}))
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Call(t.Context(), mcp.ToolReadNote, json.RawMessage(`{}`))
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(strings.Repeat("a", shift) + text + " read_note {}")
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if res.Text != want {
			t.Fatalf("shift %d: the answer differs from encoding/json's (%d vs %d bytes)", shift, len(res.Text), len(want))
		}
	}
}
