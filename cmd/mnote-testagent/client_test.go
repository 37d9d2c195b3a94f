package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// readTimeout bounds every wait for a line from the agent.
const readTimeout = 10 * time.Second

// wireMsg is one line received from the agent. Raw is the line itself
// (without the newline); Bad is set when it is not JSON.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
	Raw    []byte          `json:"-"`
	Bad    bool            `json:"-"`
}

// update returns the session id and the raw update object of a
// session/update notification.
func (m *wireMsg) update(t *testing.T) (string, string) {
	t.Helper()
	if m.Method != "session/update" {
		t.Fatalf("expected session/update, got %s", m.Raw)
	}
	var p struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatalf("bad session/update params: %v", err)
	}
	return p.SessionID, string(p.Update)
}

// syncBuffer is a goroutine-safe bytes.Buffer for stderr.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is a running mnote-testagent driven over pipes.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	msgs   chan *wireMsg
	stderr *syncBuffer
	nextID int
}

// startAgent starts the binary with args and extra environment.
func startAgent(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), agentBin, args...)
	cmd.Env = append(cmd.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, stdin: stdin, msgs: make(chan *wireMsg, 1<<16),
		stderr: &syncBuffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.msgs)
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				line = bytes.TrimSuffix(line, []byte("\n"))
				m := &wireMsg{Raw: line}
				if json.Unmarshal(line, m) != nil {
					m.Bad = true
				}
				p.msgs <- m
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = p.stdin.Close()
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	return p
}

// next returns the next line from the agent, failing the test on timeout
// or EOF.
func (p *proc) next() *wireMsg {
	p.t.Helper()
	select {
	case m, ok := <-p.msgs:
		if !ok {
			p.t.Fatalf("agent stdout closed; stderr:\n%s", p.stderr.String())
		}
		return m
	case <-time.After(readTimeout):
		p.t.Fatalf("timed out waiting for the agent; stderr:\n%s", p.stderr.String())
	}
	return nil
}

// send writes v as one JSON line.
func (p *proc) send(v any) {
	p.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	p.sendRaw(string(b))
}

func (p *proc) sendRaw(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("write to agent: %v", err)
	}
}

// notify sends a notification.
func (p *proc) notify(method string, params any) {
	p.t.Helper()
	p.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// handler answers an agent→client request: it returns a result value, or
// an *rpcError.
type handler func(m *wireMsg) any

// call sends a request and collects everything until its response. Agent
// requests are answered by h (the test fails when h is nil); all other
// lines are returned in order.
func (p *proc) call(method string, params any, h handler) (*wireMsg, []*wireMsg) {
	p.t.Helper()
	p.nextID++
	id := strconv.Itoa(p.nextID)
	p.send(map[string]any{"jsonrpc": "2.0", "id": p.nextID, "method": method, "params": params})
	return p.await(id, h)
}

// await collects lines until the response with id arrives.
func (p *proc) await(id string, h handler) (*wireMsg, []*wireMsg) {
	p.t.Helper()
	var seen []*wireMsg
	for {
		m := p.next()
		switch {
		case m.Bad || (m.Method != "" && m.ID == nil):
			seen = append(seen, m)
		case m.Method != "":
			if h == nil {
				p.t.Fatalf("unexpected agent request %s", m.Raw)
			}
			seen = append(seen, m)
			res := h(m)
			var e *rpcError
			if errors.As(asError(res), &e) {
				p.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": e})
			} else {
				p.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
			}
		case string(m.ID) == id:
			return m, seen
		default:
			p.t.Fatalf("unexpected line %s", m.Raw)
		}
	}
}

// asError lets handlers return *rpcError as a plain value.
func asError(v any) error {
	if e, ok := v.(*rpcError); ok {
		return e
	}
	return nil
}

func (e *rpcError) Error() string { return strconv.Itoa(e.Code) + " " + e.Message }

// mustResult fails unless resp is a success and returns its result.
func (p *proc) mustResult(resp *wireMsg) string {
	p.t.Helper()
	if resp.Error != nil {
		p.t.Fatalf("unexpected error response %s", resp.Raw)
	}
	return string(resp.Result)
}

// initialize performs the handshake and returns the raw result.
func (p *proc) initialize() string {
	p.t.Helper()
	resp, _ := p.call("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": true, "writeTextFile": true}}}, nil)
	return p.mustResult(resp)
}

// newSession creates a session and returns its id.
func (p *proc) newSession(cwd string) string {
	p.t.Helper()
	resp, _ := p.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, nil)
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal([]byte(p.mustResult(resp)), &r); err != nil || r.SessionID == "" {
		p.t.Fatalf("bad session/new result %s", resp.Raw)
	}
	return r.SessionID
}

// prompt sends session/prompt with one text block.
func (p *proc) prompt(sessionID, text string, h handler) (*wireMsg, []*wireMsg) {
	p.t.Helper()
	return p.call("session/prompt", map[string]any{"sessionId": sessionID,
		"prompt": []any{map[string]string{"type": "text", "text": text}}}, h)
}

// steps encodes inline steps as prompt text.
func steps(t *testing.T, s ...any) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stopReason returns the stopReason of a session/prompt response.
func (p *proc) stopReason(resp *wireMsg) string {
	p.t.Helper()
	var r struct {
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal([]byte(p.mustResult(resp)), &r); err != nil {
		p.t.Fatal(err)
	}
	return r.StopReason
}

// updates returns the raw update objects of the session/update lines in
// msgs, checking they belong to sessionID.
func updates(t *testing.T, sessionID string, msgs []*wireMsg) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		if m.Method != "session/update" {
			continue
		}
		sid, u := m.update(t)
		if sid != sessionID {
			t.Fatalf("update for session %q, want %q", sid, sessionID)
		}
		out = append(out, u)
	}
	return out
}

// wait closes stdin and waits for the process to exit, returning its
// exit code.
func (p *proc) wait() int {
	p.t.Helper()
	_ = p.stdin.Close()
	return p.exitCode()
}

// exitCode waits for the process to exit on its own (stdin stays open) and
// returns its exit code.
func (p *proc) exitCode() int {
	p.t.Helper()
	deadline := time.After(readTimeout)
	for drained := false; !drained; { // drain stdout before Wait
		select {
		case _, ok := <-p.msgs:
			drained = !ok
		case <-deadline:
			p.t.Fatalf("agent did not close stdout")
		}
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			p.t.Fatalf("wait: %v", err)
		}
		return 0
	case <-time.After(readTimeout):
		p.t.Fatalf("agent did not exit")
	}
	return -1
}

// textUpdate is the expected encoding of a text content chunk.
func textUpdate(kind, text string) string {
	return string(textChunk(kind, text))
}

// waitStderr waits until the agent's stderr contains substr (stderr is
// copied by a goroutine of os/exec, so it may lag behind stdout).
func (p *proc) waitStderr(substr string) {
	p.t.Helper()
	deadline := time.Now().Add(readTimeout)
	for !strings.Contains(p.stderr.String(), substr) {
		if time.Now().After(deadline) {
			p.t.Fatalf("stderr lacks %q: %q", substr, p.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
