package controlplane

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// hub is the doorbell of shared sessions: it tells a server's live
// streams "session X changed; read it again from where you are". It
// carries no data: the streams read the entries by sequence number and
// the lease, members and presence from the store, so a lost or doubled
// ring loses and doubles nothing. Rings are coalesced: a stream that is
// rung while busy reads once more, not once per ring.
//
// On SQLite (one server) the hub is in-process. On PostgreSQL several
// servers share the database, and the hub also rings the others with
// NOTIFY on one channel, the payload a list of session ids. Every
// NOTIFYing commit takes a database-wide lock, so the rings of a short
// window (pgBell.window) go out as one NOTIFY, never one per entry; each
// server LISTENs on a connection of its own and, whenever that
// connection is (re)made, rings all of its streams, which re-read by
// sequence what they may have missed.
type hub struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
	pg   *pgBell // nil: in-process only
}

func newHub() *hub { return &hub{subs: map[string]map[chan struct{}]struct{}{}} }

// subscribe returns a channel that receives (at most one pending) ring
// for sessionID, and the function that ends the subscription.
func (h *hub) subscribe(sessionID string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	set := h.subs[sessionID]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		h.subs[sessionID] = set
	}
	set[ch] = struct{}{}
	h.mu.Unlock()
	if h.pg != nil {
		h.pg.listen()
	}
	return ch, func() {
		h.mu.Lock()
		// ch is in the session's current set until taken out here.
		cur := h.subs[sessionID]
		delete(cur, ch)
		if len(cur) == 0 {
			delete(h.subs, sessionID)
		}
		h.mu.Unlock()
	}
}

// ring tells every server's streams of sessionID to read again.
func (h *hub) ring(sessionID string) {
	h.local(sessionID)
	if h.pg != nil {
		h.pg.send(sessionID)
	}
}

// local rings this server's streams of sessionID.
func (h *hub) local(sessionID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs[sessionID] {
		select {
		case ch <- struct{}{}:
		default: // a ring is pending already
		}
	}
}

// all rings every stream of this server.
func (h *hub) all() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.subs {
		for ch := range set {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

func (h *hub) close() {
	if h.pg != nil {
		h.pg.close()
	}
}

// pgChannel is the NOTIFY channel of the doorbell.
const pgChannel = "mnote_shared"

// pgBell is the PostgreSQL part of a hub: NOTIFY out, LISTEN in.
type pgBell struct {
	hub    *hub
	dsn    string
	db     *sql.DB // the store's pool, for NOTIFY
	window time.Duration

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	pending   map[string]struct{}
	wake      chan struct{}
	sending   bool
	listening bool
}

func newPGBell(h *hub, dsn string, db *sql.DB) *pgBell {
	ctx, cancel := context.WithCancel(context.Background())
	return &pgBell{hub: h, dsn: dsn, db: db, window: 5 * time.Millisecond, ctx: ctx, cancel: cancel,
		pending: map[string]struct{}{}, wake: make(chan struct{}, 1)}
}

func (b *pgBell) close() {
	b.cancel()
	b.wg.Wait()
}

// send queues a ring of sessionID for the next NOTIFY.
func (b *pgBell) send(sessionID string) {
	b.mu.Lock()
	b.pending[sessionID] = struct{}{}
	if !b.sending && b.ctx.Err() == nil {
		b.sending = true
		b.wg.Add(1)
		go b.sender()
	}
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// maxPayload keeps a NOTIFY payload under PostgreSQL's 8000 bytes.
const maxPayload = 7000

func (b *pgBell) sender() {
	defer b.wg.Done()
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-b.wake:
		}
		// Let the rings of a short window gather into one NOTIFY.
		select {
		case <-b.ctx.Done():
			return
		case <-time.After(b.window):
		}
		b.mu.Lock()
		ids := make([]string, 0, len(b.pending))
		for id := range b.pending {
			ids = append(ids, id)
		}
		clear(b.pending)
		b.mu.Unlock()
		for len(ids) > 0 {
			var payload strings.Builder
			for len(ids) > 0 && payload.Len()+len(ids[0])+1 < maxPayload {
				if payload.Len() > 0 {
					payload.WriteByte(',')
				}
				payload.WriteString(ids[0])
				ids = ids[1:]
			}
			if _, err := b.db.ExecContext(b.ctx, "SELECT pg_notify($1, $2)", pgChannel, payload.String()); err != nil && b.ctx.Err() == nil {
				// The other servers' streams still re-read on their
				// keepalive; say so and carry on.
				slog.Warn("controlplane: NOTIFY of shared sessions failed; other servers see the change at their next keepalive", "err", err)
			}
		}
	}
}

// listen starts the LISTEN loop once.
func (b *pgBell) listen() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.listening || b.ctx.Err() != nil {
		return
	}
	b.listening = true
	b.wg.Add(1)
	go b.listener()
}

func (b *pgBell) listener() {
	defer b.wg.Done()
	backoff := 100 * time.Millisecond
	for b.ctx.Err() == nil {
		err := b.listenOnce()
		if b.ctx.Err() != nil {
			return
		}
		slog.Warn("controlplane: LISTEN connection lost; reconnecting", "err", err, "in", backoff)
		select {
		case <-b.ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// listenOnce connects, LISTENs, rings every stream (they re-read what
// they may have missed while no connection listened) and relays
// notifications until the connection fails.
func (b *pgBell) listenOnce() error {
	conn, err := pgx.Connect(b.ctx, b.dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(b.ctx))
	if _, err := conn.Exec(b.ctx, "LISTEN "+pgChannel); err != nil {
		return err
	}
	b.hub.all()
	for {
		n, err := conn.WaitForNotification(b.ctx)
		if err != nil {
			return err
		}
		for _, id := range strings.Split(n.Payload, ",") {
			b.hub.local(id)
		}
	}
}
