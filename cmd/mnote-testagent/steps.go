package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// turn is a running step sequence (a prompt turn or the load steps).
type turn struct {
	a      *agent
	s      *session
	record bool // append sent updates to the state file

	cancelCh   chan struct{}
	cancelOnce sync.Once
	reqID      string      // the request the steps answer (session/load), for $/cancel_request
	withdrawn  atomic.Bool // the client withdrew that request
}

// turnResult is how a step sequence ended: a stop reason or an error.
type turnResult struct {
	stopReason string
	err        *rpcError
}

// beginTurn registers a new turn as the session's running turn.
func (a *agent) beginTurn(s *session, record bool) *turn {
	t := &turn{a: a, s: s, record: record, cancelCh: make(chan struct{})}
	s.mu.Lock()
	s.turn = t
	s.mu.Unlock()
	return t
}

// endTurn unregisters t; later session/cancel notifications are ignored.
func (a *agent) endTurn(t *turn) {
	t.s.mu.Lock()
	if t.s.turn == t {
		t.s.turn = nil
	}
	t.s.mu.Unlock()
}

func (t *turn) cancel() { t.cancelOnce.Do(func() { close(t.cancelCh) }) }

func (t *turn) cancelled() bool {
	select {
	case <-t.cancelCh:
		return true
	default:
		return false
	}
}

// finish is the result after the last step: end_turn, or cancelled when a
// cancel arrived meanwhile.
func (t *turn) finish() turnResult {
	if t.cancelled() {
		return turnResult{stopReason: "cancelled"}
	}
	return turnResult{stopReason: "end_turn"}
}

// run executes steps in order, checking for cancellation between steps.
func (t *turn) run(steps []step) turnResult {
	for i := range steps {
		if t.cancelled() {
			return turnResult{stopReason: "cancelled"}
		}
		if res, done := t.step(&steps[i]); done {
			return res
		}
	}
	return t.finish()
}

// send sends one session/update.
func (t *turn) send(update []byte) { t.a.sendUpdate(t.s, update, t.record) }

// say sends an agent_message_chunk with text.
func (t *turn) say(text string) { t.send(textChunk("agent_message_chunk", text)) }

// step executes one step; done reports that the turn ends with res.
func (t *turn) step(st *step) (res turnResult, done bool) {
	a, s := t.a, t.s
	switch {
	case st.Message != nil:
		t.chunks("agent_message_chunk", *st.Message, st.Chunk)
	case st.Thought != nil:
		t.chunks("agent_thought_chunk", *st.Thought, st.Chunk)
	case st.UserMessage != nil:
		t.chunks("user_message_chunk", *st.UserMessage, st.Chunk)
	case st.ToolCall != nil:
		t.send(withKind("tool_call", st.ToolCall))
	case st.ToolCallUpdate != nil:
		t.send(withKind("tool_call_update", st.ToolCallUpdate))
	case st.Plan != nil:
		t.send(append(append([]byte(`{"sessionUpdate":"plan","entries":`), st.Plan...), '}'))
	case st.Usage != nil:
		t.send(withKind("usage_update", st.Usage))
	case st.Update != nil:
		t.send(st.Update)
	case st.Title != nil:
		s.mu.Lock()
		s.title = *st.Title
		s.mu.Unlock()
		a.saveMeta(s)
		t.send(marshal(struct {
			SessionUpdate string `json:"sessionUpdate"`
			Title         string `json:"title"`
		}{"session_info_update", *st.Title}))
	case st.Notify != nil:
		// "$sessionId" as a value stands for this session's id (a script
		// written before the session exists can address it).
		id, _ := json.Marshal(t.s.id)
		params := bytes.ReplaceAll(st.Notify.Params, []byte(`"$sessionId"`), id)
		a.out.write(messageLine("", st.Notify.Method, params), true)
	case st.Raw != nil:
		a.out.write([]byte(*st.Raw+"\n"), true)
	case st.HugeMessage != nil:
		t.huge(*st.HugeMessage)
	case st.Flood != nil:
		t.flood(*st.Flood, st.Mix, st.ProgressFile)
	case st.Permission != nil:
		return t.permission(st.Permission)
	case st.Elicit != nil:
		t.elicit(st.Elicit)
	case st.ReadFile != nil:
		result, rerr := a.call("fs/read_text_file", struct {
			SessionID string `json:"sessionId"`
			readFileStep
		}{s.id, *st.ReadFile})
		if rerr != nil {
			t.say(fmt.Sprintf("read error: %d %s", rerr.Code, rerr.Message))
			break
		}
		var r struct {
			Content string `json:"content"`
		}
		if err := json.Unmarshal(result, &r); err != nil {
			t.say("read error: bad result " + string(result))
			break
		}
		t.say("read: " + r.Content)
	case st.WriteFile != nil:
		_, rerr := a.call("fs/write_text_file", struct {
			SessionID string `json:"sessionId"`
			writeFileStep
		}{s.id, *st.WriteFile})
		if rerr != nil {
			t.say(fmt.Sprintf("write error: %d %s", rerr.Code, rerr.Message))
			break
		}
		t.say("write: ok")
	case st.Request != nil:
		result, rerr := a.call(st.Request.Method, st.Request.Params)
		if rerr != nil {
			t.say(fmt.Sprintf("request %s: error %d %s", st.Request.Method, rerr.Code, rerr.Message))
			break
		}
		t.say(fmt.Sprintf("request %s: ok %s", st.Request.Method, result))
	case st.SleepMs != nil:
		timer := time.NewTimer(time.Duration(*st.SleepMs) * time.Millisecond)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-t.cancelCh:
		}
	case st.Stderr != nil:
		a.logStderr(*st.Stderr)
	case st.MCPCall != nil:
		t.mcpCall(st.MCPCall)
	case st.EnvSha256 != nil:
		// The hash, never the value: tests check that a secret reached
		// the agent without it ever being written anywhere.
		v, ok := os.LookupEnv(*st.EnvSha256)
		if !ok {
			t.say("env " + *st.EnvSha256 + ": unset")
			break
		}
		sum := sha256.Sum256([]byte(v))
		t.say("env " + *st.EnvSha256 + " sha256: " + hex.EncodeToString(sum[:]))
	case st.Crash != nil:
		a.out.flushWithin(2 * time.Second)
		a.logStderr("crashing with " + strconv.Itoa(*st.Crash))
		os.Exit(*st.Crash)
	case st.WaitForCancel != nil:
		if *st.WaitForCancel {
			<-t.cancelCh // never closed when ignoreCancel: blocks forever
		}
	case st.Terminal != nil, st.TerminalOutput != nil, st.TerminalWait != nil, st.TerminalKill != nil, st.TerminalRelease != nil:
		t.terminalStep(st)
	case st.Stop != nil:
		if t.cancelled() {
			return turnResult{stopReason: "cancelled"}, true
		}
		return turnResult{stopReason: *st.Stop}, true
	case st.Error != nil:
		e := *st.Error
		return turnResult{err: &e}, true
	}
	return turnResult{}, false
}

// permission sends session/request_permission and reports the outcome.
func (t *turn) permission(p *permissionStep) (turnResult, bool) {
	s := t.s
	toolCall := p.ToolCall
	if toolCall == nil {
		s.mu.Lock()
		s.permSeq++
		n := s.permSeq
		s.mu.Unlock()
		toolCall = marshal(struct {
			ToolCallID string `json:"toolCallId"`
			Title      string `json:"title"`
			Kind       string `json:"kind"`
		}{"perm-" + strconv.Itoa(n), "Edit file", "edit"})
	}
	options := p.Options
	if options == nil {
		options = json.RawMessage(`[{"optionId":"allow","name":"Allow","kind":"allow_once"},` +
			`{"optionId":"allow-always","name":"Always allow","kind":"allow_always"},` +
			`{"optionId":"reject","name":"Reject","kind":"reject_once"},` +
			`{"optionId":"reject-always","name":"Always reject","kind":"reject_always"}]`)
	}
	result, rerr := t.a.callWithdraw("session/request_permission", struct {
		SessionID string          `json:"sessionId"`
		ToolCall  json.RawMessage `json:"toolCall"`
		Options   json.RawMessage `json:"options"`
	}{s.id, toolCall, options}, p.Withdraw)
	if rerr != nil {
		t.say(fmt.Sprintf("permission error: %d %s", rerr.Code, rerr.Message))
		return turnResult{}, false
	}
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	_ = json.Unmarshal(result, &r)
	switch r.Outcome.Outcome {
	case "selected":
		t.say("permission: selected " + r.Outcome.OptionID)
	case "cancelled":
		t.say("permission: cancelled")
		return turnResult{stopReason: "cancelled"}, true
	default:
		t.say("permission: unexpected outcome " + string(result))
	}
	return turnResult{}, false
}

// chunks sends text as one update, or as pieces of at most size bytes that
// never split a UTF-8 sequence (a rune longer than size is sent whole).
func (t *turn) chunks(kind, text string, size int) {
	if size <= 0 || len(text) <= size {
		t.send(textChunk(kind, text))
		return
	}
	for len(text) > 0 {
		n := min(size, len(text))
		for n < len(text) && n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		if n == 0 { // one rune is larger than size
			_, n = utf8.DecodeRuneInString(text)
		}
		t.send(textChunk(kind, text[:n]))
		text = text[n:]
	}
}

// textChunk encodes a content chunk update with a text block.
func textChunk(kind, text string) []byte {
	b := make([]byte, 0, len(text)+80)
	b = append(b, `{"sessionUpdate":"`...)
	b = append(b, kind...)
	b = append(b, `","content":{"type":"text","text":`...)
	b = appendString(b, text)
	return append(b, "}}"...)
}

// withKind prefixes the (compact) object obj with "sessionUpdate":kind,
// keeping the order of obj's own fields.
func withKind(kind string, obj json.RawMessage) []byte {
	b := make([]byte, 0, len(obj)+40)
	b = append(b, `{"sessionUpdate":"`...)
	b = append(b, kind...)
	b = append(b, '"')
	if body := obj[1 : len(obj)-1]; len(body) > 0 {
		b = append(b, ',')
		b = append(b, body...)
	}
	return append(b, '}')
}
