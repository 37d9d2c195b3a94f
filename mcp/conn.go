package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// This file serves the host's connections within its Limits: how many are
// open and waiting for their hello, how many calls each runs, and the
// bytes all calls hold between their request and their answer.

func (h *Host) accept() {
	defer h.wg.Done()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := h.ln.AcceptUnix()
		if err != nil {
			return // closed
		}
		if !h.admit(c) {
			continue
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			h.serveConn(c)
		}()
	}
}

// admit counts c as open and waiting for its hello, or refuses it (too
// many connections open, or waiting) and closes it.
func (h *Host) admit(c *net.UnixConn) bool {
	h.mu.Lock()
	why := ""
	switch {
	case h.closed:
		why = "mnote is closing"
	case len(h.conns) >= h.lim.Conns:
		why = fmt.Sprintf("%d connections are open, the most mnote takes; try again when one closes", h.lim.Conns)
	case h.pending >= h.lim.Pending:
		why = fmt.Sprintf("%d connections are waiting to present their token; try again in a few seconds", h.lim.Pending)
	default:
		h.conns[c] = struct{}{}
		h.pending++
	}
	h.mu.Unlock()
	if why == "" {
		return true
	}
	h.refuse(c, why)
	c.Close()
	return false
}

// hello reads c's hello within the time allowed and returns the
// registration it names, counted as one of its connections, or refuses
// c. Either way c no longer counts as waiting.
func (h *Host) hello(c *net.UnixConn, r *bufio.Reader) *registration {
	reg, why := h.readHello(c, r)
	h.mu.Lock()
	h.pending--
	if reg != nil {
		if reg.conns < h.lim.PerToken {
			reg.conns++
		} else {
			reg, why = nil, fmt.Sprintf("this token has %d connections open, the most it may; close one first", h.lim.PerToken)
		}
	}
	if reg == nil {
		// Refused: its place is free before it hears why.
		delete(h.conns, c)
	}
	h.mu.Unlock()
	if why == "" && reg == nil {
		return nil // nothing to answer: gone, silent or another user
	}
	if reg == nil {
		h.refuse(c, why)
		return nil
	}
	_ = c.SetWriteDeadline(time.Now().Add(h.lim.IOTimeout))
	if json.NewEncoder(c).Encode(helloReply{OK: true}) != nil || c.SetDeadline(time.Time{}) != nil {
		h.leave(reg)
		return nil
	}
	return reg
}

// readHello reads c's hello and finds its token's registration: nil and
// why not, or nil and "" when c is not to be answered.
func (h *Host) readHello(c *net.UnixConn, r *bufio.Reader) (*registration, string) {
	if !peerIsMe(c) {
		h.refusals.warn("mcp: a connection from another user was refused")
		return nil, ""
	}
	if err := c.SetReadDeadline(time.Now().Add(h.lim.HelloTimeout)); err != nil {
		return nil, ""
	}
	line, err := readLine(r, maxHello, nil)
	if err != nil {
		return nil, "" // no hello in time, or a line too long for one
	}
	var hi hello
	if json.Unmarshal(line, &hi) == nil && hi.Token != "" {
		if reg := h.lookup(hi.Token); reg != nil {
			return reg, ""
		}
	}
	return nil, "unknown or revoked token"
}

// refuse logs (rate-limited) and tells c why it is refused; the caller
// closes it.
func (h *Host) refuse(c *net.UnixConn, why string) {
	h.refusals.warn("mcp: a connection was refused", "reason", why)
	// A short line on a socket nothing was written to: it does not block
	// for long.
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_ = json.NewEncoder(c).Encode(helloReply{Error: "refused: " + why})
}

// leave uncounts one connection of reg.
func (h *Host) leave(reg *registration) {
	h.mu.Lock()
	reg.conns--
	h.mu.Unlock()
}

func (h *Host) serveConn(c *net.UnixConn) {
	defer func() {
		// Uncounted before it is closed: a client that sees its connection
		// end finds its place free.
		h.mu.Lock()
		delete(h.conns, c)
		h.mu.Unlock()
		c.Close()
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	reg := h.hello(c, r)
	if reg == nil {
		return
	}
	defer h.leave(reg)
	ctx, cancel := context.WithCancel(reg.ctx)
	defer cancel()
	// A revoked token, or the host closing, ends the connection.
	defer context.AfterFunc(ctx, func() { c.Close() })()
	out := &answers{c: c, w: bufio.NewWriterSize(c, 64<<10), timeout: h.lim.IOTimeout}
	slots := make(chan struct{}, h.lim.Calls)
	var calls sync.WaitGroup
	defer calls.Wait()
	for {
		line, held, err := h.readRequest(ctx, c, r)
		if err != nil {
			cancel() // the client is gone: running calls stop
			return
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil || req.Tool == "" {
			h.budget.release(held)
			out.fail(req.ID, "bad request")
			continue
		}
		need := h.lim.reserve(req.Tool, len(line))
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			h.budget.release(held)
			return
		}
		// Hold what the call may need (a long line held more, to be sure
		// of its room: give the rest back).
		if held >= need {
			h.budget.release(held - need)
		} else if err := h.budget.acquire(ctx, need-held); err != nil {
			h.budget.release(held)
			<-slots
			return
		}
		calls.Add(1)
		go func() {
			defer calls.Done()
			defer func() { <-slots }()
			h.call(ctx, reg, req, need, out)
		}()
	}
}

// readRequest reads one request line. A line longer than the read buffer
// holds Limits.bigLine of the budget from then on, and must be read whole
// within IOTimeout; held is what the line holds.
func (h *Host) readRequest(ctx context.Context, c *net.UnixConn, r *bufio.Reader) (line []byte, held int64, err error) {
	line, err = readLine(r, maxLine, func() error {
		if err := h.budget.acquire(ctx, h.lim.bigLine()); err != nil {
			return err
		}
		held = h.lim.bigLine()
		return c.SetReadDeadline(time.Now().Add(h.lim.IOTimeout))
	})
	if held > 0 {
		if err == nil {
			err = c.SetReadDeadline(time.Time{})
		}
		if err != nil {
			h.budget.release(held)
			return nil, 0, err
		}
	}
	return line, held, err
}

// call runs req, which holds held of the budget, and answers it; the
// budget is given back once the answer is sent.
func (h *Host) call(ctx context.Context, reg *registration, req request, held int64, out *answers) {
	defer func() { h.budget.release(held) }()
	res, err := reg.h.CallTool(ctx, req.Tool, req.Args)
	if err != nil {
		out.fail(req.ID, err.Error())
		return
	}
	size := int64(len(res.Text))
	if size > maxLine {
		out.fail(req.ID, tooBig(size))
		return
	}
	if size = min(size, h.lim.Bytes); size > held {
		// The answer is more than the call held: hold its size until it
		// is sent, waiting for room (without holding anything meanwhile,
		// so that two such calls never wait for each other).
		if !h.budget.tryAcquire(size - held) {
			h.budget.release(held)
			held = 0
			if h.budget.acquire(ctx, size) != nil {
				return
			}
		}
		held = size
	}
	out.send(req.ID, res)
}

// tooBig is the error of an answer over the channel's line.
func tooBig(n int64) string {
	return fmt.Sprintf("the answer is %s, more than the %s one answer may carry; ask for less: read_note with startLine and endLine or a heading, search_notes or list_notes with a folder or a smaller limit",
		humanBytes(n), humanBytes(maxLine))
}

// answers writes a connection's answers, one line at a time.
type answers struct {
	c       *net.UnixConn
	timeout time.Duration

	mu      sync.Mutex
	w       *bufio.Writer
	scratch []byte
}

// send writes res as the answer to id, or an error when its line would be
// over maxLine.
func (a *answers) send(id uint64, res Result) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.scratch == nil {
		a.scratch = make([]byte, 0, textChunk*6+2)
	}
	if n := textLineLen(id, res.Text, res.IsError, a.scratch); n > maxLine {
		a.writeLocked(func() error { return a.encodeLocked(response{ID: id, Error: tooBig(int64(n))}) })
		return
	}
	a.writeLocked(func() error { return writeText(a.w, id, res.Text, res.IsError, a.scratch) })
}

// fail writes an error answer to id.
func (a *answers) fail(id uint64, msg string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.writeLocked(func() error { return a.encodeLocked(response{ID: id, Error: msg}) })
}

func (a *answers) encodeLocked(r response) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("mcp: encode answer: %w", err)
	}
	if _, err := a.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return a.w.Flush()
}

// writeLocked runs write within the time a client has to take an answer;
// a client that does not take it is closed.
func (a *answers) writeLocked(write func() error) {
	err := a.c.SetWriteDeadline(time.Now().Add(a.timeout))
	if err == nil {
		err = write()
	}
	if err != nil {
		a.c.Close()
	}
}

// readLine reads one line of at most limit bytes, without its newline.
// big, when not nil, is called once when the line turns out longer than
// r's buffer, before more of it is read; its error ends the read.
func readLine(r *bufio.Reader, limit int, big func() error) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > limit {
			return nil, errors.New("mcp: line too long")
		}
		if err == nil {
			return buf[:len(buf)-1], nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
		if big != nil {
			if err := big(); err != nil {
				return nil, err
			}
			big = nil
		}
	}
}
