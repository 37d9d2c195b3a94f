// Package cloudsynctest runs a real control plane (package controlplane on
// a SQLite file, or on any store with NewOn) for tests of the sync client, behind a TCP proxy on
// loopback that records every byte clients send and counts connections,
// with faults that can be injected per request (an error status, a
// Retry-After, a request that hangs until the client gives up).
package cloudsynctest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"mnote/controlplane"
)

// Server is a control plane for tests. URL goes through the recording
// proxy; Direct does not.
type Server struct {
	URL    string
	Direct string
	Store  controlplane.Store
	// DB is the store's URL ("sqlite:PATH" for New).
	DB string

	t       testing.TB
	backend *httptest.Server
	ln      net.Listener
	wg      sync.WaitGroup

	logs lockedBuffer

	mu       sync.Mutex
	open     map[net.Conn]bool // the proxy's client connections
	sent     bytes.Buffer
	conns    int
	requests []Request
	faults   []Fault
	hung     chan Request
}

// Request is one request the control plane saw.
type Request struct {
	Method, Path string
	Status       int // 0: the client gave up (a hung request)
	Body         []byte
}

// Fault makes the next Count requests matching Method (any when "") and
// the path prefix answer Status (with Retry-After seconds when set), or
// hang until the client cancels them (Hang).
type Fault struct {
	Method     string
	PathPrefix string
	Status     int
	RetryAfter int
	Hang       bool
	Count      int
}

// New starts a control plane on a fresh SQLite file, and its proxy.
func New(t testing.TB) *Server {
	t.Helper()
	return NewOn(t, "sqlite:"+filepath.Join(t.TempDir(), "cp.db"))
}

// NewOn starts a control plane on the store at db (controlplane.Open's
// URL: a PostgreSQL database from pgtest, say), and its proxy.
func NewOn(t testing.TB, db string) *Server {
	t.Helper()
	st, err := controlplane.Open(context.Background(), db)
	if err != nil {
		t.Fatalf("open the control plane store: %v", err)
	}
	s := &Server{t: t, Store: st, DB: db, hung: make(chan Request, 16)}
	cp := controlplane.NewServer(controlplane.Config{Store: st, Logger: slog.New(slog.NewTextHandler(&s.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	s.backend = httptest.NewServer(s.wrap(cp))
	s.Direct = s.backend.URL
	s.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy listener: %v", err)
	}
	s.URL = "http://" + s.ln.Addr().String()
	s.wg.Add(1)
	go s.proxy()
	t.Cleanup(s.Close)
	return s
}

// Close stops the proxy, the server and the store.
func (s *Server) Close() {
	if s.ln == nil {
		return
	}
	s.ln.Close()
	s.backend.CloseClientConnections()
	s.backend.Close()
	s.wg.Wait()
	s.Store.Close()
	s.ln = nil
}

// AddUser creates a user and returns its bearer token.
func (s *Server) AddUser(name string) string {
	s.t.Helper()
	tok, hash, err := controlplane.NewToken()
	if err != nil {
		s.t.Fatal(err)
	}
	if _, _, err := s.Store.AddUser(context.Background(), name, hash, time.Now()); err != nil {
		s.t.Fatal(err)
	}
	return tok
}

// DropConns breaks every connection open through the proxy, as a
// network that fails mid-stream does.
func (s *Server) DropConns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.open {
		c.Close()
	}
}

// Logs returns what the control plane logged (debug level and up).
func (s *Server) Logs() []byte { return s.logs.bytes() }

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

// Inject queues a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Count == 0 {
		f.Count = 1
	}
	s.faults = append(s.faults, f)
}

// ClearFaults drops the faults not used up yet.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Hung delivers each request that hangs, when it starts hanging.
func (s *Server) Hung() <-chan Request { return s.hung }

// Requests returns the requests seen so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count counts the requests with that method (any when "") whose path
// starts with prefix.
func (s *Server) Count(method, prefix string) int {
	n := 0
	for _, r := range s.Requests() {
		if (method == "" || r.Method == method) && strings.HasPrefix(r.Path, prefix) {
			n++
		}
	}
	return n
}

// Sent returns every byte clients sent through the proxy.
func (s *Server) Sent() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.sent.Bytes())
}

// Conns counts the connections the proxy accepted.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

func (s *Server) fault(r *http.Request) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if (f.Method == "" || f.Method == r.Method) && strings.HasPrefix(r.URL.Path, f.PathPrefix) {
			s.faults[i].Count--
			if s.faults[i].Count <= 0 {
				s.faults = append(s.faults[:i], s.faults[i+1:]...)
			}
			return f, true
		}
	}
	return Fault{}, false
}

func (s *Server) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		req := Request{Method: r.Method, Path: r.URL.Path, Body: body}
		if f, ok := s.fault(r); ok {
			switch {
			case f.Hang:
				s.hung <- req
				<-r.Context().Done()
			default:
				if f.RetryAfter > 0 {
					w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(f.Status)
				fmt.Fprintf(w, `{"error":{"code":%q,"message":"injected %d"}}`, codeFor(f.Status), f.Status)
				req.Status = f.Status
			}
		} else {
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(sw, r)
			req.Status = sw.status
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.mu.Unlock()
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// proxy accepts connections and copies them to the server, keeping a copy
// of what the client sends.
func (s *Server) proxy() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns++
		if s.open == nil {
			s.open = map[net.Conn]bool{}
		}
		s.open[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.open, c)
				s.mu.Unlock()
				c.Close()
			}()
			b, err := net.Dial("tcp", s.backend.Listener.Addr().String())
			if err != nil {
				return
			}
			defer b.Close()
			done := make(chan struct{})
			go func() {
				io.Copy(c, b)
				c.Close()
				close(done)
			}()
			io.Copy(b, io.TeeReader(c, lockedWriter{s}))
			b.Close()
			<-done
		}()
	}
}

type lockedWriter struct{ s *Server }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.sent.Write(p)
}

// codeFor is the contract's error code for a status.
func codeFor(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "rate_limited"
	case http.StatusUnauthorized:
		return "unauthorized"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusBadRequest:
		return "bad_request"
	case http.StatusRequestEntityTooLarge:
		return "too_large"
	}
	return "internal"
}
