// Package winlink is the wire between mnote's window and its services.
//
// The window (mnote-app) links GTK, WebKit and Wails and nothing else of
// mnote. It runs the services — the same ones `mnote serve` runs — in a
// child `mnote` process and talks to it over a socket pair: one JSON
// object per line, each a call, a reply or an event. Calls go both ways:
// the page's API calls from the window to the services, the native
// dialogs from the services to the window. Events go from the services to
// the window, in order, and a call's reply comes after the events the call
// emitted.
//
// The package uses the standard library only, so the window stays small.
package winlink

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// EnvCLI names the command line binary (mnote) the window runs its
// services with; `mnote` sets it when it execs the window.
const EnvCLI = "MNOTE_CLI"

// FD is the child's file descriptor for its end of the socket pair (the
// first of exec.Cmd.ExtraFiles).
const FD = 3

// Frame is one line on the wire.
type Frame struct {
	// ID numbers a call (each side counts its own calls) and its reply.
	ID     uint64 `json:"id,omitempty"`
	Method string `json:"method,omitempty"` // a call: the method
	Args   string `json:"args,omitempty"`   // its arguments, JSON text
	Reply  bool   `json:"reply,omitempty"`  // the reply to the call ID
	Result string `json:"result,omitempty"` // its result, JSON text
	Error  string `json:"error,omitempty"`  // or its error ("" = none)
	// An event and its data.
	Event string          `json:"event,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
}

// Handler answers the other side's calls and takes its events.
type Handler interface {
	// Call runs in its own goroutine; ctx ends when the link closes.
	Call(ctx context.Context, method, args string) (string, error)
	// Event runs on the reading goroutine, in order; it must not block.
	Event(name string, data json.RawMessage)
}

// ErrClosed is the error of a call the link could not finish because it
// closed (the other process exited or closed its end).
var ErrClosed = errors.New("the link to the other mnote process closed")

// RemoteError is an error the other side's handler returned; its text is
// passed on unchanged (the services' errors are JSON the page parses).
type RemoteError struct{ Text string }

func (e *RemoteError) Error() string { return e.Text }

// Conn is one end of the link.
type Conn struct {
	rw  io.ReadWriteCloser
	h   Handler
	log *slog.Logger

	wmu sync.Mutex
	w   *bufio.Writer

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan Frame
	err     error // set once closed

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// New makes a link over rw; Serve must run for calls to get replies.
func New(rw io.ReadWriteCloser, h Handler, log *slog.Logger) *Conn {
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Conn{rw: rw, h: h, log: log, w: bufio.NewWriterSize(rw, 64<<10), pending: map[uint64]chan Frame{},
		ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// Serve reads frames until the other side closes its end (nil) or the
// link fails (the error). Then every pending call fails with ErrClosed.
func (c *Conn) Serve() error {
	defer close(c.done)
	r := bufio.NewReaderSize(c.rw, 64<<10)
	var err error
	for {
		var line []byte
		line, err = r.ReadBytes('\n')
		if len(line) > 1 {
			c.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	c.mu.Lock()
	local := c.err != nil // this side closed first
	c.mu.Unlock()
	if errors.Is(err, io.EOF) || local {
		err = nil
	}
	c.shut(err)
	return err
}

func (c *Conn) dispatch(line []byte) {
	var f Frame
	if err := json.Unmarshal(line, &f); err != nil {
		// Only mnote writes here; a bad line is a bug, not a reason to stop.
		c.log.Error("winlink: a line that is not a frame was skipped", "err", err, "bytes", len(line))
		return
	}
	switch {
	case f.Reply:
		c.mu.Lock()
		ch := c.pending[f.ID]
		delete(c.pending, f.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- f
		}
	case f.Method != "":
		go c.answer(f)
	case f.Event != "":
		c.h.Event(f.Event, f.Data)
	default:
		c.log.Error("winlink: a frame that is neither a call, a reply nor an event was skipped", "id", f.ID)
	}
}

func (c *Conn) answer(f Frame) {
	res, err := c.h.Call(c.ctx, f.Method, f.Args)
	r := Frame{ID: f.ID, Reply: true, Result: res}
	if err != nil {
		r.Error = err.Error()
		if r.Error == "" {
			r.Error = "error"
		}
	}
	if werr := c.write(r); werr != nil && !errors.Is(werr, ErrClosed) {
		c.log.Warn("winlink: a reply was not sent", "method", f.Method, "err", werr)
	}
}

// Call calls method on the other side and waits for its reply, ctx's end
// or the link's.
func (c *Conn) Call(ctx context.Context, method, args string) (string, error) {
	ch := make(chan Frame, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return "", c.err
	}
	c.next++
	id := c.next
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.write(Frame{ID: id, Method: method, Args: args}); err != nil {
		c.forget(id)
		return "", err
	}
	select {
	case f, ok := <-ch:
		if !ok {
			return "", c.closedErr()
		}
		if f.Error != "" {
			return f.Result, &RemoteError{Text: f.Error}
		}
		return f.Result, nil
	case <-ctx.Done():
		c.forget(id)
		return "", fmt.Errorf("%s: %w", method, context.Cause(ctx))
	}
}

func (c *Conn) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *Conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return ErrClosed
}

// Emit sends an event; data is encoded as JSON.
func (c *Conn) Emit(name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("winlink: event %s: %w", name, err)
	}
	return c.write(Frame{Event: name, Data: b})
}

func (c *Conn) write(f Frame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("winlink: encode: %w", err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.closedErrIfShut(); err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := c.w.Write(b); err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return nil
}

func (c *Conn) closedErrIfShut() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// shut marks the link closed and fails the pending calls.
func (c *Conn) shut(cause error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = ErrClosed
		if cause != nil {
			c.err = fmt.Errorf("%w: %w", ErrClosed, cause)
		}
	}
	pending := c.pending
	c.pending = map[uint64]chan Frame{}
	c.mu.Unlock()
	for _, ch := range pending {
		close(ch)
	}
	c.cancel()
}

// Close closes this end: the other side's Serve returns, and so does this
// side's once the other side closed too.
func (c *Conn) Close() error {
	c.shut(nil)
	return c.rw.Close()
}

// Done is closed when Serve has returned.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Self is this program's path, symlinks resolved.
func Self() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("this program's path: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return exe, nil
}

// Beside finds the other binary of the pair: the first of rels (paths
// relative to this program's folder) that is an executable file. It
// returns the cleaned candidates too, for a message when none is.
func Beside(rels ...string) (string, []string, error) {
	exe, err := Self()
	if err != nil {
		return "", nil, err
	}
	var tried []string
	for _, rel := range rels {
		c := filepath.Join(filepath.Dir(exe), rel)
		if IsExecutable(c) {
			return c, nil, nil
		}
		tried = append(tried, c)
	}
	return "", tried, nil
}

// IsExecutable reports whether p is a regular file someone may run.
func IsExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// Pair makes the socket pair: the parent's end as a connection, and the
// child's as a file to pass as the first of exec.Cmd.ExtraFiles (the
// parent closes its copy after Start).
func Pair() (*net.UnixConn, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("winlink: socket pair: %w", err)
	}
	pf := os.NewFile(uintptr(fds[0]), "winlink")
	defer pf.Close() // FileConn dups it
	conn, err := net.FileConn(pf)
	if err != nil {
		syscall.Close(fds[1])
		return nil, nil, fmt.Errorf("winlink: socket pair: %w", err)
	}
	return conn.(*net.UnixConn), os.NewFile(uintptr(fds[1]), "winlink-child"), nil
}

// Inherited is the child's end, passed by the parent as fd FD.
func Inherited() (net.Conn, error) {
	f := os.NewFile(FD, "winlink")
	if f == nil {
		return nil, errors.New("winlink: no file descriptor 3: this command is started by mnote's window (mnote-app), not by hand")
	}
	defer f.Close()
	conn, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("winlink: file descriptor 3 is not the window's socket (this command is started by mnote's window, not by hand): %w", err)
	}
	return conn, nil
}
