package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// JSON-RPC 2.0 error codes used by the agent.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeAuthRequired   = -32000
	codeNotFound       = -32002
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// inMsg is any incoming line: request, notification or response.
type inMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// output is stdout: a large buffered writer guarded by a mutex. Every line
// is flushed unless the caller asks otherwise (floods).
type output struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func newOutput(w io.Writer) *output {
	return &output{w: bufio.NewWriterSize(w, 1<<20)}
}

// write writes p (one or more complete lines) and flushes when flush is set.
func (o *output) write(p []byte, flush bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.writeLocked(p, flush)
}

func (o *output) writeLocked(p []byte, flush bool) {
	if _, err := o.w.Write(p); err != nil {
		slog.Debug("stdout write failed", "err", err)
		return
	}
	if flush {
		if err := o.w.Flush(); err != nil {
			slog.Debug("stdout flush failed", "err", err)
		}
	}
}

// flushWithin flushes pending output unless the writer stays busy (e.g.
// blocked on a full pipe) for longer than d.
func (o *output) flushWithin(d time.Duration) {
	done := make(chan struct{})
	go func() {
		o.mu.Lock()
		_ = o.w.Flush()
		o.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// marshal encodes v on one line without HTML escaping.
func marshal(v any) []byte {
	if raw, ok := v.(json.RawMessage); ok {
		if raw == nil {
			return []byte("null")
		}
		return raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		slog.Error("marshal failed", "err", err)
		return []byte("null")
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// appendString appends s as a JSON string.
func appendString(dst []byte, s string) []byte {
	return append(dst, marshal(s)...)
}

// responseLine encodes a successful response.
func responseLine(id json.RawMessage, result []byte) []byte {
	b := make([]byte, 0, len(result)+len(id)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, "}\n"...)
}

// errorLine encodes an error response.
func errorLine(id json.RawMessage, e *rpcError) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, marshal(e)...)
	return append(b, "}\n"...)
}

// messageLine encodes a request (id != "") or notification.
func messageLine(id, method string, params []byte) []byte {
	b := []byte(`{"jsonrpc":"2.0",`)
	if id != "" {
		b = append(b, `"id":`...)
		b = append(b, id...)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = appendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, "}\n"...)
}

// updatePrefix is the start of a session/update line for sessionID; the
// update object and updateSuffix complete it.
func updatePrefix(sessionID string) []byte {
	b := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`)
	b = appendString(b, sessionID)
	return append(b, `,"update":`...)
}

const updateSuffix = "}}\n"

// calls tracks the agent's outgoing requests awaiting the client's answer.
type calls struct {
	mu      sync.Mutex
	next    int64
	pending map[string]chan *inMsg
}

// start allocates an id and a channel receiving the response.
func (c *calls) start() (string, chan *inMsg) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	id := strconv.FormatInt(c.next, 10)
	ch := make(chan *inMsg, 1)
	if c.pending == nil {
		c.pending = map[string]chan *inMsg{}
	}
	c.pending[id] = ch
	return id, ch
}

// deliver routes a response to its waiting request.
func (c *calls) deliver(m *inMsg) {
	key := string(compact(m.ID))
	c.mu.Lock()
	ch, ok := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if !ok {
		slog.Warn("response for unknown request id", "id", key)
		return
	}
	ch <- m
}

// call sends a request and blocks until the client answers it.
func (a *agent) call(method string, params any) (json.RawMessage, *rpcError) {
	id, ch := a.calls.start()
	a.out.write(messageLine(id, method, marshal(params)), true)
	m := <-ch
	if m.Error != nil {
		return nil, m.Error
	}
	if len(m.Result) == 0 {
		return json.RawMessage("null"), nil
	}
	return compact(m.Result), nil
}

// request is an incoming request being handled.
type request struct {
	a      *agent
	id     json.RawMessage
	method string
	params json.RawMessage
}

// reply answers the request with result (a value or json.RawMessage).
func (r *request) reply(result any) {
	r.a.out.write(responseLine(r.id, marshal(result)), true)
	r.answered()
}

// fail answers the request with an error.
func (r *request) fail(code int, msg string) {
	r.failWith(&rpcError{Code: code, Message: msg})
}

func (r *request) failWith(e *rpcError) {
	r.a.out.write(errorLine(r.id, e), true)
	r.answered()
}

// answered implements stopReadingAfter.
func (r *request) answered() {
	if r.a.sc.StopReadingAfter != "" && r.method == r.a.sc.StopReadingAfter {
		r.a.stopped.Store(true)
	}
}
