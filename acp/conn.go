package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"mnote/internal/jsonscan"
	"mnote/thread"
)

// Dir is the direction of a line on the wire.
type Dir string

// Directions, as written to transcripts.
const (
	DirIn  Dir = "in"  // agent → client
	DirOut Dir = "out" // client → agent
)

// Kinds of lines that are not a method name.
const (
	KindResponse  = "response"
	KindMalformed = "malformed"
)

// LineTap observes raw lines of one session in both directions, in the order
// they crossed the wire. The slice is valid only during the call.
type LineTap interface {
	Line(dir Dir, kind string, line []byte)
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// authMessage matches the messages agents send with a generic error code
// when their model provider refused the key (Reasonix: -32603
// "authentication failed for provider … (HTTP 401)").
var authMessage = regexp.MustCompile(`(?i)authentication failed|authentication required|\bunauthorized\b|\bHTTP 401\b|invalid api key`)

// IsAuth reports whether the error asks the user to log in: ACP's
// auth_required (-32000), or an internal error whose message says the
// provider refused the credentials.
func (e *RPCError) IsAuth() bool {
	return e.Code == CodeAuthRequired || (e.Code == CodeInternal && authMessage.MatchString(e.Message))
}

func (e *RPCError) Error() string {
	if len(e.Data) > 0 && string(e.Data) != "null" {
		return fmt.Sprintf("agent error %d: %s (%s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("agent error %d: %s", e.Code, e.Message)
}

// JSON-RPC and ACP error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	CodeAuthRequired   = -32000
	CodeNotFound       = -32002
)

// envelope is any JSON-RPC message.
type envelope struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
}

// updateEnvelope decodes a session/update notification in one pass.
type updateEnvelope struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		SessionID string        `json:"sessionId"`
		Update    thread.Update `json:"update"`
	} `json:"params"`
}

// Request is an agent→client request.
type Request struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage

	withdrawn context.Context // ended by the agent's $/cancel_request (cancel.go)
}

// connHandler receives what the reader decodes.
type connHandler interface {
	// update is called on the reader goroutine, in wire order.
	update(sessionID string, u *thread.Update, line []byte)
	// request is called on the reader goroutine, in wire order; it must
	// not block (it hands the request on) and answers with conn.reply.
	request(req *Request, line []byte)
	// notification is any other agent→client notification.
	notification(method string, params json.RawMessage, line []byte)
	// bad reports a line that could not be used (malformed JSON, too long,
	// an unexpected response), with the raw line when there is one.
	bad(err error, line []byte)
}

type pendingCall struct {
	key    string
	ch     chan callResult
	tap    LineTap
	method string
}

type callResult struct {
	result json.RawMessage
	err    error
}

// conn is a JSON-RPC 2.0 connection over an agent's stdio.
type conn struct {
	w            *os.File
	writeTimeout time.Duration
	onWriteStall func(error) // called when a write misses its deadline
	h            connHandler
	log          *slog.Logger

	wmu  sync.Mutex
	wbuf []byte

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[string]*pendingCall
	closed  bool
	err     error
	done    chan struct{}

	updates atomic.Int64
}

func newConn(w *os.File, h connHandler, writeTimeout time.Duration, log *slog.Logger) *conn {
	return &conn{
		w:            w,
		writeTimeout: writeTimeout,
		h:            h,
		log:          log,
		pending:      make(map[string]*pendingCall),
		done:         make(chan struct{}),
	}
}

// Updates counts the session/update notifications received.
func (c *conn) Updates() int64 { return c.updates.Load() }

// readLoop reads lines until r ends, then closes the connection with the
// error returned by exitErr (or io.EOF).
func (c *conn) readLoop(r io.Reader, maxLine int, exitErr func() error) {
	lr := newLineReader(r, maxLine)
	var ue updateEnvelope
	for {
		line, err := lr.next()
		if err != nil {
			var tl *LineTooLongError
			if errors.As(err, &tl) {
				c.h.bad(err, nil)
				continue
			}
			cerr := exitErr()
			if cerr == nil {
				cerr = fmt.Errorf("agent closed its output: %w", err)
			}
			c.close(cerr)
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		// Fast path: session/update notifications are nearly all of the
		// traffic; decode them in one pass.
		if bytes.Contains(line, []byte(`"session/update"`)) {
			// The content's buffer is kept for the next update (the
			// handlers copy what they keep): one allocation less per update.
			keep := ue.Params.Update.Content[:0]
			ue = updateEnvelope{}
			ue.Params.Update.Content = keep
			sid, ok := thread.ParseUpdateLine(line, &ue.Params.Update)
			if ok {
				ue.Method, ue.Params.SessionID = "session/update", string(sid)
			} else {
				ue = updateEnvelope{}
				ue.Params.Update.Content = keep
				ok = jsonscan.Decode(line, &ue) == nil && ue.Method == "session/update" && ue.ID == nil
			}
			if ok {
				c.updates.Add(1)
				c.h.update(ue.Params.SessionID, &ue.Params.Update, line)
				if cap(ue.Params.Update.Content) > 64<<10 {
					// Not kept while the next line is awaited.
					ue.Params.Update.Content = nil
				}
				continue
			}
		}
		c.dispatch(line)
	}
}

func (c *conn) dispatch(line []byte) {
	var env envelope
	if err := jsonscan.Decode(line, &env); err != nil {
		c.h.bad(fmt.Errorf("malformed line from agent: %w", err), line)
		return
	}
	hasID := len(env.ID) > 0 && string(env.ID) != "null"
	switch {
	case env.Method != "" && hasID:
		req := &Request{ID: env.ID, Method: env.Method, Params: env.Params}
		cp := append([]byte(nil), line...)
		c.h.request(req, cp)
	case env.Method != "":
		if env.Method == "session/update" {
			// A session/update the fast path could not take (its
			// update did not decode): keep it raw, never misread.
			c.updates.Add(1)
			c.h.bad(errors.New("session/update with an invalid update object"), line)
			return
		}
		c.h.notification(env.Method, env.Params, line)
	case hasID:
		key := idKey(env.ID)
		c.mu.Lock()
		pc := c.pending[key]
		delete(c.pending, key)
		c.mu.Unlock()
		if pc == nil {
			c.h.bad(fmt.Errorf("response for unknown request id %s", env.ID), line)
			return
		}
		if pc.tap != nil {
			pc.tap.Line(DirIn, KindResponse, line)
		}
		if env.Error != nil {
			pc.ch <- callResult{err: env.Error}
		} else {
			pc.ch <- callResult{result: append(json.RawMessage(nil), env.Result...)}
		}
	default:
		c.h.bad(errors.New("line is neither a request, a notification nor a response"), line)
	}
}

func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// call sends a request and waits for its response, the context, or the
// connection's end.
func (c *conn) call(ctx context.Context, method string, params any, tap LineTap) (json.RawMessage, error) {
	pc, err := c.start(method, params, tap)
	if err != nil {
		return nil, err
	}
	return c.wait(ctx, pc)
}

// start sends a request; wait waits for its response.
func (c *conn) start(method string, params any, tap LineTap) (*pendingCall, error) {
	id := c.nextID.Add(1)
	key := strconv.FormatInt(id, 10)
	pc := &pendingCall{ch: make(chan callResult, 1), tap: tap, method: method, key: key}
	c.mu.Lock()
	if c.closed {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.pending[key] = pc
	c.mu.Unlock()

	if err := c.send(method, tap, func(b []byte) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, key...)
		b = append(b, `,"method":`...)
		b = strconv.AppendQuote(b, method)
		return appendParams(b, params)
	}); err != nil {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
		return nil, err
	}
	return pc, nil
}

func (c *conn) wait(ctx context.Context, pc *pendingCall) (json.RawMessage, error) {
	select {
	case r := <-pc.ch:
		return r.result, r.err
	case <-ctx.Done():
		// The caller gave up: withdraw the request. It stays pending so
		// that a late answer is recorded, not reported as unexpected.
		c.mu.Lock()
		_, still := c.pending[pc.key]
		c.mu.Unlock()
		if still {
			c.sendCancelRequest(pc)
		}
		return nil, fmt.Errorf("%s: %w", pc.method, context.Cause(ctx))
	}
}

// notify sends a notification.
func (c *conn) notify(method string, params any, tap LineTap) error {
	return c.send(method, tap, func(b []byte) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0","method":`...)
		b = strconv.AppendQuote(b, method)
		return appendParams(b, params)
	})
}

// reply answers an agent→client request with a result or an error.
func (c *conn) reply(id json.RawMessage, result any, rerr *RPCError, tap LineTap) error {
	return c.send(KindResponse, tap, func(b []byte) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, id...)
		if rerr != nil {
			e, err := json.Marshal(rerr)
			if err != nil {
				return nil, err
			}
			b = append(b, `,"error":`...)
			b = append(b, e...)
		} else {
			r, err := json.Marshal(result)
			if err != nil {
				return nil, err
			}
			b = append(b, `,"result":`...)
			b = append(b, r...)
		}
		return append(b, '}', '\n'), nil
	})
}

func appendParams(b []byte, params any) ([]byte, error) {
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("encode params: %w", err)
		}
		b = append(b, `,"params":`...)
		b = append(b, p...)
	}
	return append(b, '}', '\n'), nil
}

// send encodes a message under the write lock and writes it with a
// deadline. Missing the deadline means the agent stopped reading: the
// connection is closed and onWriteStall kills the agent.
func (c *conn) send(kind string, tap LineTap, encode func([]byte) ([]byte, error)) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return c.closeErr()
	default:
	}
	b, err := encode(c.wbuf[:0])
	if err != nil {
		return err
	}
	if cap(b) <= 1<<20 {
		c.wbuf = b
	} else {
		c.wbuf = nil
	}
	if tap != nil {
		tap.Line(DirOut, kind, b[:len(b)-1])
	}
	if c.writeTimeout > 0 {
		_ = c.w.SetWriteDeadline(time.Now().Add(c.writeTimeout))
	}
	if _, err := c.w.Write(b); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = fmt.Errorf("agent stopped reading its input: a write did not complete within %s: %w", c.writeTimeout, err)
			if c.onWriteStall != nil {
				go c.onWriteStall(err)
			}
		} else {
			err = fmt.Errorf("write to agent: %w", err)
		}
		c.close(err)
		return err
	}
	return nil
}

// close ends the connection: every pending call fails with err.
func (c *conn) close(err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.err = err
	pending := c.pending
	c.pending = make(map[string]*pendingCall)
	close(c.done)
	c.mu.Unlock()
	for _, pc := range pending {
		pc.ch <- callResult{err: err}
	}
}

func (c *conn) closeErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Done is closed when the connection ended.
func (c *conn) Done() <-chan struct{} { return c.done }
