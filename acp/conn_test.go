package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mnote/acp"
	"mnote/acp/acptest"
	"mnote/internal/testenv"
	"mnote/thread"
)

// 1. A flood of 200,000 updates in one turn, and 200,000 replayed by
// session/load, all arrive, and the connection survives.
func TestFloodAndLoadReplay(t *testing.T) {
	state := t.TempDir()
	const n = 200000
	a := startAgent(t, "", acp.Options{}, "--state", state)
	h := newRecorder()
	s, dir := newSession(t, a, h, nil)
	res := prompt(t, s, acptest.Steps(fmt.Sprintf(`{"flood":%d,"mix":"bench"}`, n), `{"message":"done"}`))
	if res.StopReason != acp.StopEndTurn {
		t.Fatalf("stop reason %q", res.StopReason)
	}
	if got := h.count(); got != n+1 {
		t.Fatalf("got %d updates, want %d", got, n+1)
	}
	if h.kinds["agent_message_chunk"] < n*9/10 || h.kinds["tool_call"] == 0 || h.kinds["tool_call_update"] == 0 || h.kinds["agent_thought_chunk"] == 0 {
		t.Fatalf("kinds: %v", h.kinds)
	}
	a.Stop()

	// A new process loads the session: the saved history is replayed.
	b := startAgent(t, "", acp.Options{}, "--state", state)
	h2 := newRecorder()
	s2, err := b.LoadSession(t.Context(), s.ID(), acp.SessionConfig{Cwd: dir, Handler: h2})
	if err != nil {
		t.Fatalf("session/load: %v", err)
	}
	// The prompt's user_message_chunk, the flood and the last message.
	if got := h2.count(); got != n+2 {
		t.Fatalf("replay delivered %d updates, want %d", got, n+2)
	}
	if res := prompt(t, s2, acptest.Steps(`{"message":"after load"}`)); res.StopReason != acp.StopEndTurn {
		t.Fatalf("stop after load: %q", res.StopReason)
	}
}

// 2. A 64 MiB line is delivered; a 65 MiB line is skipped with a clear
// error and the session carries on.
func TestHugeLines(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	s, _ := newSession(t, a, h, nil)
	const big = 64<<20 - 200 // the text; the whole line stays under 64 MiB
	res := prompt(t, s, acptest.Steps(fmt.Sprintf(`{"hugeMessage":%d}`, big), `{"hugeMessage":68157440}`, `{"message":"still here"}`))
	if res.StopReason != acp.StopEndTurn {
		t.Fatalf("stop %q", res.StopReason)
	}
	text := h.Text()
	if len(text) != big+len("still here") || !strings.HasSuffix(text, "still here") {
		t.Fatalf("delivered %d bytes of text, want %d", len(text), big+len("still here"))
	}
	if len(h.badErrs) != 1 || !errors.Is(h.badErrs[0], acp.ErrLineTooLong) {
		t.Fatalf("bad lines: %v", h.badErrs)
	}
	if !strings.Contains(h.badErrs[0].Error(), "68157") || !strings.Contains(h.badErrs[0].Error(), "limit") {
		t.Fatalf("error does not say what happened: %v", h.badErrs[0])
	}
}

// 3. A permission request is handled only after every update sent before it.
func TestRequestsFollowUpdatesInWireOrder(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	h.delay = 50 * time.Microsecond // a consumer slower than the agent
	var seen atomic.Int64
	b := brokerFunc(func(ctx context.Context, req *acp.PermissionRequest) (acp.PermissionDecision, error) {
		seen.Store(int64(h.count()))
		return acp.PermissionDecision{OptionID: "allow"}, nil
	})
	s, _ := newSession(t, a, h, b)
	prompt(t, s, acptest.Steps(`{"flood":2000}`, `{"permission":{}}`))
	if got := seen.Load(); got != 2000 {
		t.Fatalf("permission handled after %d of 2000 updates", got)
	}
	if !strings.Contains(h.Text(), "permission: selected allow") {
		t.Fatalf("agent did not get the decision: %q", h.Text()[len(h.Text())-60:])
	}
}

// 4. A consumer that stops stops the agent: it never gets far ahead, and
// nothing is dropped. The consumer blocks (on a channel) after a few
// updates; the agent must then be stuck writing: its stdout pipe full (the
// client stopped reading) and its progress standing still, while the
// consumer has seen nothing more. Without backpressure it would be done.
func TestBackpressure(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	progress := filepath.Join(t.TempDir(), "progress")
	const n, pause = 30000, 1000
	gate := make(chan struct{})
	h.onN = func(got int) {
		if got == pause {
			<-gate
		}
	}
	s, _ := newSession(t, a, h, nil)
	done := make(chan error, 1)
	go func() {
		_, err := s.Prompt(t.Context(), textPrompt(acptest.Steps(fmt.Sprintf(`{"flood":%d,"progressFile":%q}`, n, progress))))
		done <- err
	}()
	defer func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	}()
	written := func() int {
		b, _ := os.ReadFile(progress)
		w, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return w
	}
	// stuck: the pipe is full and the agent's progress has not moved
	// for several polls (a reader that only lags drains it meanwhile).
	stuckFor, last := 0, -1
	for stuckFor < 20 && written() < n {
		queued, capacity, err := pipeFill(a.Pid(), 1)
		if err != nil {
			testenv.SkipOrFail(t, "cannot see the agent's stdout pipe: "+err.Error())
		}
		if w := written(); queued >= capacity-4096 && w == last {
			stuckFor++
		} else {
			stuckFor, last = 0, w
		}
		select {
		case err := <-done:
			t.Fatalf("the turn ended while the consumer was blocked: %v", err)
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-time.After(5 * time.Millisecond): // poll
		}
	}
	// The agent writes the progress file after each batch it wrote.
	lead := written() - pause
	if got := h.count(); got != pause {
		t.Fatalf("the consumer was handed %d updates while it was blocked at %d", got, pause)
	}
	// The pipe (64 KiB) plus the reader's buffer hold a few thousand of
	// these lines; without backpressure the agent would be done (29,000
	// ahead) while the consumer waits.
	if lead > 12000 {
		t.Fatalf("the agent ran %d updates ahead of a blocked consumer", lead)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if got := h.count(); got != n {
		t.Fatalf("got %d of %d updates", got, n)
	}
	t.Logf("the agent stopped %d updates ahead of the blocked consumer", lead)
}

// 5. Malformed lines, unknown update kinds and unknown methods are kept raw,
// skipped, and never misread.
func TestMalformedAndUnknown(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	s, _ := newSession(t, a, h, nil)
	res := prompt(t, s, acptest.Steps(
		`{"raw":"this is not json"}`,
		`{"raw":"{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":1}}"}`,
		`{"update":{"sessionUpdate":"future_kind","content":{"type":"text","text":"not a user message"}}}`,
		`{"request":{"method":"craft/drainMidTurnQueue","params":{}}}`,
		`{"notify":{"method":"_vendor/status","params":{}}}`,
		`{"message":"ok"}`,
	))
	if res.StopReason != acp.StopEndTurn {
		t.Fatalf("stop %q", res.StopReason)
	}
	if len(h.bad) != 2 || h.bad[0] != "this is not json" {
		t.Fatalf("bad lines kept: %q", h.bad)
	}
	if h.kinds["future_kind"] != 1 || h.kinds["user_message_chunk"] != 0 {
		t.Fatalf("unknown kind misread: %v", h.kinds)
	}
	if !strings.Contains(h.Text(), "request craft/drainMidTurnQueue: error -32601") || !strings.HasSuffix(h.Text(), "ok") {
		t.Fatalf("text: %q", h.Text())
	}
}

// 5b. Lines nested deeper than encoding/json allows (an agent stalling
// the client with one line: the decoders behind the fast paths have no
// nesting limit of their own) are malformed lines, refused at once.
func TestDeeplyNestedLines(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	s, _ := newSession(t, a, h, nil)
	deep := strings.Repeat("[", 300_000) + strings.Repeat("]", 300_000)
	raw := func(line string) string {
		b, _ := json.Marshal(map[string]string{"raw": line})
		return string(b)
	}
	start := time.Now()
	res := prompt(t, s, acptest.Steps(
		raw(`{"jsonrpc":"2.0","id":77,"method":"session/elicitation","params":{"sessionId":"x","requestedSchema":`+deep+`}}`),
		raw(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":{"sessionUpdate":"agent_message_chunk","content":`+deep+`}}}`),
		raw(`{"jsonrpc":"2.0","method":"_vendor/status","params":`+deep+`}`),
		`{"message":"still here"}`,
	))
	if res.StopReason != acp.StopEndTurn || !strings.HasSuffix(h.Text(), "still here") {
		t.Fatalf("stop %q, text %q", res.StopReason, h.Text())
	}
	if len(h.bad) != 3 {
		t.Fatalf("%d bad lines, want the 3 nested ones", len(h.bad))
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the nested lines took %s", took)
	}
}

// 6a. initialize and session/new time out; the agent is killed.
func TestStartTimeouts(t *testing.T) {
	bin := acptest.TestAgent(t)
	start := time.Now()
	_, err := acp.Start(t.Context(), acp.ProcSpec{Path: bin, Args: acptest.Scenario(`{"initializeDelayMs":60000,"stderrAtStart":"warming up the model"}`)}, acp.Options{InitTimeout: 300 * time.Millisecond})
	if !errors.Is(err, acp.ErrTimeout) || !strings.Contains(err.Error(), "warming up the model") {
		t.Fatalf("initialize: %v", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatalf("initialize timeout took %s", time.Since(start))
	}

	a := startAgent(t, `{"sessionNewDelayMs":60000}`, acp.Options{NewSessionTimeout: 300 * time.Millisecond})
	_, err = a.NewSession(t.Context(), acp.SessionConfig{Cwd: t.TempDir(), Handler: newRecorder()})
	if !errors.Is(err, acp.ErrTimeout) {
		t.Fatalf("session/new: %v", err)
	}
}

// 6b. A write to an agent that stopped reading gives up at its deadline and
// the agent is killed.
func TestWriteDeadline(t *testing.T) {
	a := startAgent(t, `{"stopReadingAfter":"session/new"}`, acp.Options{WriteTimeout: 500 * time.Millisecond})
	s, _ := newSession(t, a, newRecorder(), nil)
	bigText := strings.Repeat("x", 8<<20)
	_, err := s.Prompt(t.Context(), []thread.ContentBlock{{Type: "text", Text: bigText}})
	if err == nil || !strings.Contains(err.Error(), "stopped reading") {
		t.Fatalf("prompt to a stalled agent: %v", err)
	}
	select {
	case <-a.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("stalled agent was not killed")
	}
}

// 7. An agent exiting mid-turn ends the turn with its exit code and stderr.
func TestCrashMidTurn(t *testing.T) {
	a := startAgent(t, "", acp.Options{})
	h := newRecorder()
	s, _ := newSession(t, a, h, nil)
	start := time.Now()
	_, err := s.Prompt(t.Context(), []thread.ContentBlock{{Type: "text", Text: acptest.Steps(`{"message":"before"}`, `{"stderr":"model backend unreachable"}`, `{"crash":7}`)}})
	elapsed := time.Since(start)
	var ee *acp.ExitError
	if !errors.As(err, &ee) || ee.Code != 7 || !strings.Contains(ee.StderrTail, "model backend unreachable") {
		t.Fatalf("crash: %v", err)
	}
	if h.Text() != "before" {
		t.Fatalf("update before the crash lost: %q", h.Text())
	}
	t.Logf("turn ended %s after the prompt", elapsed)
	if elapsed > 5*time.Second {
		t.Fatalf("turn took %s to end after the crash", elapsed)
	}
}
