package app

import (
	"strings"
	"sync"
	"testing"
	"time"

	"mnote/thread"
)

// gatedEmitter blocks every Emit until the gate opens, like a page that
// stopped reading.
type gatedEmitter struct {
	gate    chan struct{}
	entered chan struct{} // gets one value when Emit is first called
	mu      sync.Mutex
	evs     []ThreadEvent
}

func (g *gatedEmitter) Emit(name string, data any) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.gate
	if te, ok := data.(ThreadEvent); ok {
		g.mu.Lock()
		g.evs = append(g.evs, te)
		g.mu.Unlock()
	}
}

// While the emitter is stuck, text deltas beyond the limit are dropped
// and the seq skips one, so the page refetches; structural events are
// all sent, in order, and the producer never blocks.
func TestPumpDropsDeltasNotStructure(t *testing.T) {
	t.Parallel()
	em := &gatedEmitter{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	p := newPump("s1", em, thread.New(), 0, nil)
	p.event(EvTurn, TurnPayload{State: "running", Turn: 1})
	<-em.entered // the goroutine is stuck sending it
	chunk := strings.Repeat("x", 1024)
	start := time.Now()
	const n = 6 << 10 // 6 MiB of deltas
	for i := range n {
		p.pushDelta(EvAppend, "e1", chunk)
		if i == n/2 {
			p.event(EvEntry, map[string]string{"id": "e2"})
		}
	}
	p.event(EvTurn, TurnPayload{State: "ended", Turn: 1})
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("queueing took %s: the producer blocked", d)
	}
	close(em.gate)
	p.stop()

	var seq uint64
	var skipped, appended int
	var types []string
	for _, ev := range em.evs {
		if ev.Seq <= seq {
			t.Fatalf("seq %d after %d", ev.Seq, seq)
		}
		skipped += int(ev.Seq - seq - 1)
		seq = ev.Seq
		if ev.Type == EvAppend {
			appended += len(ev.Payload.(AppendPayload).Delta)
			continue
		}
		types = append(types, ev.Type)
	}
	if got := strings.Join(types, " "); got != "turn entry turn" {
		t.Fatalf("structural events: %s", got)
	}
	if skipped == 0 || appended >= n*len(chunk) || appended == 0 {
		t.Fatalf("skipped %d seqs, appended %d of %d bytes", skipped, appended, n*len(chunk))
	}
	if p.Seq() != seq {
		t.Fatalf("Seq() %d, last sent %d", p.Seq(), seq)
	}
	// A stopped pump answers a snapshot marker at once.
	select {
	case pos := <-p.marker():
		if pos.seq != seq {
			t.Fatalf("marker seq %d", pos.seq)
		}
	case <-time.After(time.Second):
		t.Fatal("marker not answered")
	}
}

// Deltas of one entry are sent together, at most every deltaFlushEvery.
func TestPumpCoalescesDeltas(t *testing.T) {
	t.Parallel()
	em := &gatedEmitter{gate: make(chan struct{})}
	close(em.gate)
	p := newPump("s1", em, thread.New(), 41, nil)
	var want strings.Builder
	for i := range 200 {
		d := strings.Repeat(string(rune('a'+i%26)), i%7+1)
		want.WriteString(d)
		p.pushDelta(EvAppend, "e1", d)
		if i%50 == 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	p.pushDelta(EvAppend, "e2", "other")
	p.stop()
	var got strings.Builder
	var n int
	for i, ev := range em.evs {
		if ev.Seq != uint64(42+i) {
			t.Fatalf("seq %d at %d", ev.Seq, i)
		}
		a := ev.Payload.(AppendPayload)
		if a.EntryID == "e1" {
			got.WriteString(a.Delta)
			n++
		}
	}
	if got.String() != want.String() || n > 10 || em.evs[len(em.evs)-1].Payload.(AppendPayload).Delta != "other" {
		t.Fatalf("%d appends; text equal: %v", n, got.String() == want.String())
	}
}
