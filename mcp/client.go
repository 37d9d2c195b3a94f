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

// Client is `mnote mcp`'s end of the channel: one connection, calls
// multiplexed by id.
type Client struct {
	conn net.Conn

	wmu sync.Mutex // one line at a time
	mu  sync.Mutex
	id  uint64
	out map[uint64]chan response
	err error // set once the connection broke
}

// ErrRefused is the host's answer to a token it does not know.
var ErrRefused = errors.New("mcp: mnote refused the token")

// Dial connects to the app's socket and presents token.
func Dial(ctx context.Context, socket, token string) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("mcp: connect to mnote: %w", err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	// A host past its caps answers the connection at once and closes it,
	// possibly before the hello is written: its reason is still read, so a
	// refusal reads as one and not as a broken pipe.
	werr := json.NewEncoder(conn).Encode(hello{Token: token})
	r := bufio.NewReaderSize(conn, 64<<10)
	line, err := readLine(r, maxLine, nil)
	var rep helloReply
	if err != nil || (werr != nil && json.Unmarshal(line, &rep) != nil) {
		conn.Close()
		return nil, fmt.Errorf("mcp: hello: %w", errors.Join(werr, err))
	}
	if err := json.Unmarshal(line, &rep); err != nil || !rep.OK {
		conn.Close()
		return nil, fmt.Errorf("%w: %s", ErrRefused, rep.Error)
	}
	_ = conn.SetDeadline(time.Time{})
	c := &Client{conn: conn, out: map[uint64]chan response{}}
	go c.read(r)
	return c, nil
}

func (c *Client) read(r *bufio.Reader) {
	for {
		line, err := readLine(r, maxLine, nil)
		if err != nil {
			c.fail(fmt.Errorf("mcp: mnote closed the connection: %w", err))
			return
		}
		var res response
		if json.Unmarshal(line, &res) != nil {
			continue
		}
		c.mu.Lock()
		ch := c.out[res.ID]
		delete(c.out, res.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- res
		}
	}
}

func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	for id, ch := range c.out {
		delete(c.out, id)
		ch <- response{ID: id, Error: c.err.Error()}
	}
}

// Call runs one tool in the app and returns its result; an error means the
// channel failed or the app could not run the call.
func (c *Client) Call(ctx context.Context, tool string, args json.RawMessage) (Result, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return Result{}, err
	}
	c.id++
	id := c.id
	c.out[id] = ch
	c.mu.Unlock()
	b, err := json.Marshal(request{ID: id, Tool: tool, Args: args})
	if err != nil {
		c.forget(id)
		return Result{}, fmt.Errorf("mcp: encode call: %w", err)
	}
	c.wmu.Lock()
	_, err = c.conn.Write(append(b, '\n'))
	c.wmu.Unlock()
	if err != nil {
		c.forget(id)
		return Result{}, fmt.Errorf("mcp: send call: %w", err)
	}
	select {
	case res := <-ch:
		if res.Error != "" {
			return Result{}, errors.New(res.Error)
		}
		return Result{Text: res.Text, IsError: res.IsError}, nil
	case <-ctx.Done():
		c.forget(id)
		return Result{}, ctx.Err()
	}
}

func (c *Client) forget(id uint64) {
	c.mu.Lock()
	delete(c.out, id)
	c.mu.Unlock()
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }
