package app

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Hub is the Emitter of `mnote serve`: every event goes to every connected
// WebSocket as one text frame {"name": ..., "data": ...}. A client that
// cannot keep up (its queue fills) is disconnected rather than sent a
// stream with holes; on reconnecting, the page refetches its state.
type Hub struct {
	log *slog.Logger

	mu      sync.Mutex
	clients map[*hubClient]struct{}
	closed  bool
}

// hubQueue is how many frames may wait for one slow client.
const hubQueue = 4096

// hubWriteTimeout bounds one frame's write.
const hubWriteTimeout = 10 * time.Second

type hubClient struct {
	ch   chan []byte
	gone chan struct{} // closed when the hub drops the client
	once sync.Once
	why  string
}

func (c *hubClient) drop(why string) {
	c.once.Do(func() {
		c.why = why
		close(c.gone)
	})
}

// NewHub returns an empty hub.
func NewHub(log *slog.Logger) *Hub {
	if log == nil {
		log = slog.Default()
	}
	return &Hub{log: log, clients: make(map[*hubClient]struct{})}
}

// Emit implements Emitter.
func (h *Hub) Emit(name string, data any) {
	msg, err := json.Marshal(struct {
		Name string `json:"name"`
		Data any    `json:"data"`
	}{name, data})
	if err != nil {
		h.log.Error("event not encoded", "event", name, "err", err)
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		select {
		case c.ch <- msg:
		default:
			delete(h.clients, c)
			c.drop("too slow")
		}
	}
}

// Clients returns how many WebSockets are connected.
func (h *Hub) Clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// Close disconnects every client and refuses new ones.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.clients {
		delete(h.clients, c)
		c.drop("server shutting down")
	}
}

// ServeWebSocket upgrades the request and streams events until the client
// goes away or the hub drops it. The caller has authenticated the request
// and checked its Origin; opts adds the library's own origin check.
func (h *Hub) ServeWebSocket(w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions) {
	conn, err := websocket.Accept(w, r, opts)
	if err != nil {
		h.log.Warn("websocket not accepted", "err", err)
		return
	}
	c := &hubClient{ch: make(chan []byte, hubQueue), gone: make(chan struct{})}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		conn.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	h.clients[c] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.clients, c)
		h.mu.Unlock()
	}()

	// The page sends nothing; CloseRead answers pings and notices a close.
	ctx := conn.CloseRead(context.Background())
	for {
		select {
		case msg := <-c.ch:
			wctx, cancel := context.WithTimeout(ctx, hubWriteTimeout)
			err := conn.Write(wctx, websocket.MessageText, msg)
			cancel()
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					h.log.Debug("websocket write failed", "err", err)
				}
				conn.CloseNow()
				return
			}
		case <-c.gone:
			status := websocket.StatusGoingAway
			if c.why == "too slow" {
				status = websocket.StatusPolicyViolation
			}
			conn.Close(status, c.why)
			return
		case <-ctx.Done():
			conn.CloseNow()
			return
		}
	}
}
