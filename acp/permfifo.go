package acp

import "sync"

// permFIFO runs a session's session/request_permission requests one at a
// time, in the order they arrived: the user is asked the first one first,
// and the next only once it is answered. (Each on its own goroutine, they
// raced, and the second could be shown first.) Other requests are not
// held behind them.
type permFIFO struct {
	mu      sync.Mutex
	queue   []*Request
	running bool
}

// push queues req; it does not block (the reader goroutine calls it).
func (q *permFIFO) push(s *Session, req *Request) {
	q.mu.Lock()
	q.queue = append(q.queue, req)
	start := !q.running
	q.running = true
	q.mu.Unlock()
	if start {
		go q.drain(s)
	}
}

// drain answers the queued requests in order until none is left.
func (q *permFIFO) drain(s *Session) {
	for {
		q.mu.Lock()
		if len(q.queue) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		req := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		q.mu.Unlock()
		s.handleRequest(req)
	}
}
