package app

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// Event names (API.md, "Events").
const (
	EventThread          = "thread:event"
	EventSessionsChanged = "sessions:changed"
	EventAgentStatus     = "agent:status"
	EventAgentStart      = "agent:start"
	EventAgentInstall    = "agent:install"
)

// Emitter sends an event to the UI. Emit is called from many goroutines
// and must not block for long; it must not call back into the services.
type Emitter interface {
	Emit(name string, data any)
}

// RecordedEvent is one event a Recorder kept, its data as JSON (what the
// page would get).
type RecordedEvent struct {
	Name string
	Data json.RawMessage
}

// Recorder is an Emitter for tests: it keeps every event and lets a test
// wait for one.
type Recorder struct {
	mu      sync.Mutex
	events  []RecordedEvent
	changed chan struct{}
}

// Emit implements Emitter.
func (r *Recorder) Emit(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"unencodable": err.Error()})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, RecordedEvent{Name: name, Data: b})
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// Events returns a copy of the events so far.
func (r *Recorder) Events() []RecordedEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RecordedEvent(nil), r.events...)
}

// Len returns how many events were emitted.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// Wait returns the first event at index from or later that match accepts,
// and its index, waiting for it until ctx is done.
func (r *Recorder) Wait(ctx context.Context, from int, match func(RecordedEvent) bool) (int, RecordedEvent, error) {
	for {
		r.mu.Lock()
		for i := max(from, 0); i < len(r.events); i++ {
			if match(r.events[i]) {
				ev := r.events[i]
				r.mu.Unlock()
				return i, ev, nil
			}
		}
		from = len(r.events)
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		ch := r.changed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return -1, RecordedEvent{}, fmt.Errorf("no matching event: %w", context.Cause(ctx))
		}
	}
}
