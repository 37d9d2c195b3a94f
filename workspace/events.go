package workspace

import (
	"sync"
	"time"
)

// Op is what happened to a path.
type Op string

// Ops of a Change.
const (
	Created Op = "created"
	Changed Op = "changed"
	Removed Op = "removed"
	Renamed Op = "renamed"
)

// Origin says who made a change.
type Origin string

// Origins of a Change. External changes have the empty origin.
const (
	OriginApp   Origin = "app"   // the user through mnote: save, tree operation, revert
	OriginAgent Origin = "agent" // an agent's fs/write_text_file
)

// Change is one path that changed on disk, relative to the workspace and
// slash-separated. A removed or renamed folder is one Change (its contents
// went with it); a created folder is followed by Changes for what it
// already holds.
type Change struct {
	Path string `json:"path"`
	Op   Op     `json:"op"`
	// From is the old path of a rename.
	From string `json:"from,omitempty"`
	Dir  bool   `json:"dir,omitempty"`
	// Origin is who wrote it when mnote did; empty for other programs
	// (including agents writing to disk themselves).
	Origin Origin `json:"origin,omitempty"`
	// Turn is the agent turn running when the change was seen (see
	// Checkpoints.BeginTurn), for changes not made by the user through mnote.
	Turn string `json:"turn,omitempty"`
}

// BufferEventKind is what happened to an open buffer.
type BufferEventKind string

// Buffer event kinds.
const (
	// BufferReloaded: a clean buffer took the new content from disk.
	BufferReloaded BufferEventKind = "reloaded"
	// BufferConflict: the file changed on disk while the buffer had
	// unsaved edits; the user picks KeepMine or TakeTheirs.
	BufferConflict BufferEventKind = "conflict"
	// BufferDeleted: the file was deleted or moved away; the buffer is kept.
	BufferDeleted BufferEventKind = "deleted"
	// BufferRestored: a deleted buffer's file is back on disk.
	BufferRestored BufferEventKind = "restored"
	// BufferWritten: an agent wrote the file; the buffer holds its content.
	BufferWritten BufferEventKind = "written"
	// BufferMoved: mnote renamed or moved the file; Buffer.Path is the new
	// path and From the old one.
	BufferMoved BufferEventKind = "moved"
)

// BufferEvent is a change to an open buffer; Buffer is its state after it.
type BufferEvent struct {
	Kind   BufferEventKind `json:"kind"`
	Buffer BufferState     `json:"buffer"`
	From   string          `json:"from,omitempty"`
	// Dropped (an agent's write, kind written or merged) are lines the
	// person had typed and not saved that the write removed; Previous is
	// the editor's text before it and PreviousDisk the disk's, so the page
	// can say so and put them back.
	Dropped      []string `json:"dropped,omitempty"`
	Previous     string   `json:"previous,omitempty"`
	PreviousDisk string   `json:"previousDisk,omitempty"`
}

// Event is what subscribers receive: a batch of changes on disk and the
// buffer events they caused, or a buffer event on its own. Rescan means
// the watcher lost events (queue overflow): reload the whole tree.
type Event struct {
	Changes []Change      `json:"changes,omitempty"`
	Buffers []BufferEvent `json:"buffers,omitempty"`
	Rescan  bool          `json:"rescan,omitempty"`
	// Warning is a problem the watcher met while following the batch (a
	// new folder it could not watch).
	Warning string `json:"warning,omitempty"`
}

func (e Event) empty() bool {
	return len(e.Changes) == 0 && len(e.Buffers) == 0 && !e.Rescan && e.Warning == ""
}

// emitter delivers events to subscribers in order on one goroutine. Its
// queue is unbounded so emitting never blocks (a subscriber may call back
// into the workspace); nothing is dropped.
type emitter struct {
	mu     sync.Mutex
	subs   map[int]func(Event)
	next   int
	queue  []Event
	wake   chan struct{} // capacity 1: "the queue changed"
	done   chan struct{}
	closed bool
}

func newEmitter() *emitter {
	e := &emitter{subs: map[int]func(Event){}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go e.run()
	return e
}

func (e *emitter) run() {
	defer close(e.done)
	for {
		e.mu.Lock()
		if len(e.queue) == 0 {
			closed := e.closed
			e.mu.Unlock()
			if closed {
				return
			}
			<-e.wake
			continue
		}
		ev := e.queue[0]
		e.queue[0] = Event{}
		e.queue = e.queue[1:]
		subs := make([]func(Event), 0, len(e.subs))
		for i := 0; i < e.next; i++ {
			if f, ok := e.subs[i]; ok {
				subs = append(subs, f)
			}
		}
		e.mu.Unlock()
		for _, f := range subs {
			f(ev)
		}
	}
}

func (e *emitter) subscribe(fn func(Event)) func() {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := e.next
	e.next++
	e.subs[id] = fn
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		delete(e.subs, id)
	}
}

// emit queues ev for delivery; after close it does nothing.
func (e *emitter) emit(ev Event) {
	if ev.empty() {
		return
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.queue = append(e.queue, ev)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// close delivers what is queued and stops.
func (e *emitter) close() {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.closed = true
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	<-e.done
}

// originLog remembers the paths mnote itself wrote recently, so the
// watcher can say who made a change it sees.
type originLog struct {
	mu sync.Mutex
	m  map[string]originMark
}

type originMark struct {
	o  Origin
	at time.Time
}

// originTTL is how long a mark waits for the watcher to see the change.
const originTTL = 5 * time.Second

func newOriginLog() *originLog { return &originLog{m: map[string]originMark{}} }

func (l *originLog) note(o Origin, rels ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	for _, r := range rels {
		l.m[r] = originMark{o: o, at: now}
	}
	if len(l.m) > 1024 {
		for k, v := range l.m {
			if now.Sub(v.at) > originTTL {
				delete(l.m, k)
			}
		}
	}
}

// take returns and forgets the recent origin of rel, if any.
func (l *originLog) take(rel string) Origin {
	l.mu.Lock()
	defer l.mu.Unlock()
	m, ok := l.m[rel]
	if !ok {
		return ""
	}
	delete(l.m, rel)
	if time.Since(m.at) > originTTL {
		return ""
	}
	return m.o
}
