package fakemodel

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Options configure a Server.
type Options struct {
	// Addr is the address to listen on; it must be a loopback address.
	// Default 127.0.0.1:0 (a free port).
	Addr string
	// LogFile, when set, gets every Request as one JSON line (appended).
	LogFile string
	// Logger gets diagnostics; default slog.Default().
	Logger *slog.Logger
	// KeepBodies keeps each request's whole body in Request.Body (for
	// finding out what a new agent version sends).
	KeepBodies bool
	// CacheFile, when set, keeps the simulated prompt cache in this file
	// (read at Start, written after each request), so that it outlives
	// the server as DeepSeek's outlives an agent process: servers started
	// one after another with the same file share one cache. Servers
	// running at the same time must not share it.
	CacheFile string
}

// Request is one request the server got, as logged.
type Request struct {
	N        int      `json:"n"`
	TsMs     int64    `json:"tsMs"`
	Method   string   `json:"method"`
	Path     string   `json:"path"`
	Model    string   `json:"model,omitempty"`
	Stream   bool     `json:"stream,omitempty"`
	KeySent  bool     `json:"keySent"` // an API key came with it (its value is never logged)
	Tools    []string `json:"tools,omitempty"`
	Messages int      `json:"messages,omitempty"`
	Prompt   string   `json:"prompt,omitempty"` // the user's prompt of the turn, cut to 200 bytes
	Step     string   `json:"step,omitempty"`   // Step* constant
	ToolCall string   `json:"toolCall,omitempty"`
	Args     string   `json:"args,omitempty"` // the tool call's arguments
	// ToolResult is the result of the model's previous tool call as the
	// request carried it back (notes turns), cut to 2000 bytes.
	ToolResult string `json:"toolResult,omitempty"`
	Status     int    `json:"status"`
	Usage      *Usage `json:"usage,omitempty"`
	// CacheDiverged, when the prompt changed the text of the earlier
	// prompt it shares the longest prefix with (rather than extending
	// it), shows where: what costs cache hits.
	CacheDiverged string `json:"cacheDiverged,omitempty"`
	Error         string `json:"error,omitempty"`
	// Body is the request body, with Options.KeepBodies.
	Body json.RawMessage `json:"body,omitempty"`
}

// Usage is the usage object of a response: OpenAI's fields plus DeepSeek's
// prompt cache figures.
type Usage struct {
	PromptTokens            int64 `json:"prompt_tokens"`
	CompletionTokens        int64 `json:"completion_tokens"`
	TotalTokens             int64 `json:"total_tokens"`
	PromptCacheHitTokens    int64 `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens   int64 `json:"prompt_cache_miss_tokens"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// Server is a running fake model.
type Server struct {
	script Script
	ln     net.Listener
	srv    *http.Server
	log    *slog.Logger
	done   chan struct{}

	keepBodies bool
	idPrefix   string // makes tool call ids unique to this server

	mu           sync.Mutex
	reqs         []Request
	cache        prefixCache // the simulated prompt cache
	calls        int
	unauthorized bool
	logFile      *os.File
	closed       bool
}

// Start starts a server for script.
func Start(script Script, opts Options) (*Server, error) {
	script.defaults()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if err := checkLoopback(opts.Addr); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	s := &Server{script: script, log: opts.Logger, done: make(chan struct{}), keepBodies: opts.KeepBodies,
		idPrefix: "call_fm" + hex.EncodeToString(rnd[:])}
	if opts.LogFile != "" {
		f, err := os.OpenFile(opts.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("fakemodel: request log: %w", err)
		}
		s.logFile = f
	}
	if opts.CacheFile != "" {
		if err := s.cache.load(opts.CacheFile); err != nil {
			if s.logFile != nil {
				s.logFile.Close()
			}
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		if s.logFile != nil {
			s.logFile.Close()
		}
		return nil, fmt.Errorf("fakemodel: listen on %s: %w", opts.Addr, err)
	}
	s.ln = ln
	mux := http.NewServeMux()
	for _, p := range []string{"/v1/chat/completions", "/chat/completions"} {
		mux.HandleFunc("POST "+p, s.completions)
	}
	for _, p := range []string{"/v1/models", "/models"} {
		mux.HandleFunc("GET "+p, s.models)
	}
	mux.HandleFunc("/", s.notFound)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("fakemodel: serve", "err", err)
		}
	}()
	return s, nil
}

func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("fakemodel: address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("fakemodel: address %q is not a loopback address; use 127.0.0.1:PORT", addr)
}

// URL is the server's base URL, http://127.0.0.1:PORT (append /v1 for
// clients that want it).
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// SetUnauthorized makes every later request get 401 (or not).
func (s *Server) SetUnauthorized(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unauthorized = on
}

// Requests returns the requests so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Close stops the server; stalled requests end.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	err := s.srv.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logFile != nil {
		err = errors.Join(err, s.logFile.Close())
		s.logFile = nil
	}
	return err
}

// record logs a request.
func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.N = len(s.reqs) + 1
	r.TsMs = time.Now().UnixMilli()
	s.reqs = append(s.reqs, r)
	if s.logFile != nil {
		b, _ := json.Marshal(r)
		if _, err := s.logFile.Write(append(b, '\n')); err != nil {
			s.log.Warn("fakemodel: request log not written", "err", err)
		}
	}
}

// ReadLog reads a request log written through Options.LogFile. A missing
// file is an empty log.
func ReadLog(path string) ([]Request, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fakemodel: read request log: %w", err)
	}
	var out []Request
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r Request
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return out, fmt.Errorf("fakemodel: request log %s: %w", path, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

func (s *Server) keyOK(r *http.Request) (sent, ok bool) {
	key := strings.TrimSpace(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	if key == "" {
		key = r.Header.Get("api-key")
	}
	sent = key != ""
	s.mu.Lock()
	unauthorized := s.unauthorized
	s.mu.Unlock()
	if unauthorized {
		return sent, false
	}
	return sent, s.script.APIKey == "" || key == s.script.APIKey
}

func (s *Server) deny(w http.ResponseWriter, rec Request) {
	rec.Step, rec.Status = StepDenied, http.StatusUnauthorized
	s.record(rec)
	writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{
		"message": "Authentication Fails, Your api key is invalid", "type": "authentication_error", "code": "invalid_api_key"}})
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	rec := Request{Method: r.Method, Path: r.URL.Path}
	var ok bool
	if rec.KeySent, ok = s.keyOK(r); !ok {
		s.deny(w, rec)
		return
	}
	data := make([]map[string]any, len(s.script.Models))
	for i, m := range s.script.Models {
		data[i] = map[string]any{"id": m, "object": "model", "created": 1700000000, "owned_by": "mnote-fakemodel"}
	}
	rec.Status = http.StatusOK
	s.record(rec)
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.record(Request{Method: r.Method, Path: r.URL.Path, Status: http.StatusNotFound})
	writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"message": "no such endpoint: " + r.Method + " " + r.URL.Path}})
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	rec := Request{Method: r.Method, Path: r.URL.Path}
	var ok bool
	if rec.KeySent, ok = s.keyOK(r); !ok {
		s.deny(w, rec)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req chatRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		rec.Status, rec.Step, rec.Error = http.StatusBadRequest, StepError, err.Error()
		s.record(rec)
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "bad request: " + err.Error()}})
		return
	}
	rec.Model, rec.Stream, rec.Messages = req.Model, req.Stream, len(req.Messages)
	if s.keepBodies && json.Valid(body) {
		rec.Body = body
	}
	rec.Tools = toolNames(req.Tools)
	prompt, _ := s.script.turnState(req.Messages)
	rec.Prompt = cut(prompt, 200)

	s.mu.Lock()
	s.calls++
	n := s.calls
	s.mu.Unlock()
	rep, _ := s.script.decide(&req, fmt.Sprintf("%sn%d", s.idPrefix, n))
	rec.Step = rep.step
	rec.ToolResult = cut(rep.seen, 2000)
	if rep.call != nil {
		rec.ToolCall, rec.Args = rep.call.Function.Name, rep.call.Function.Arguments
	}
	if rep.step == StepError {
		rec.Error = rep.text
		s.log.Warn("fakemodel: cannot follow the script", "err", rep.text)
	}
	u, diverged := s.usage(&req, rep)
	rec.Usage, rec.CacheDiverged = &u, diverged
	rec.Status = http.StatusOK
	s.record(rec)

	id := fmt.Sprintf("chatcmpl-fm%d", n)
	model := req.Model
	if model == "" {
		model = s.script.Models[0]
	}
	if req.Stream {
		s.stream(w, r, id, model, rep, u)
		return
	}
	msg := map[string]any{"role": "assistant", "content": rep.text}
	if rep.reasoning != "" {
		msg["reasoning_content"] = rep.reasoning
	}
	finish := "stop"
	if rep.call != nil {
		msg["tool_calls"] = []any{rep.call}
		finish = "tool_calls"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   u,
	})
}

// stream writes the reply as server-sent events.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, id, model string, rep reply, u Usage) {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	created := time.Now().Unix()
	send := func(delta map[string]any, finish any, usage *Usage) bool {
		chunk := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
		if usage != nil {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	if !send(map[string]any{"role": "assistant", "content": ""}, nil, nil) {
		return
	}
	for _, piece := range pieces(rep.reasoning, s.script.ChunkBytes) {
		if !send(map[string]any{"reasoning_content": piece}, nil, nil) {
			return
		}
	}
	if rep.step == StepStall {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	for _, piece := range pieces(rep.text, s.script.ChunkBytes) {
		if !send(map[string]any{"content": piece}, nil, nil) {
			return
		}
	}
	finish := "stop"
	if c := rep.call; c != nil {
		finish = "tool_calls"
		first := map[string]any{"index": 0, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Function.Name, "arguments": ""}}
		if !send(map[string]any{"tool_calls": []any{first}}, nil, nil) {
			return
		}
		for _, piece := range pieces(c.Function.Arguments, 64) {
			if !send(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": piece}}}}, nil, nil) {
				return
			}
		}
	}
	if !send(map[string]any{}, finish, &u) {
		return
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

// pieces splits s into parts of at most n bytes, never inside a UTF-8
// character.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		if cut == 0 {
			cut = n
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
