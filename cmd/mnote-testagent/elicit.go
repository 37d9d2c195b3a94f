package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// elicitStep sends elicitation/create (form mode unless mode says
// otherwise) for the session. With withdraw, a $/cancel_request for it
// follows at once.
type elicitStep struct {
	Message         string          `json:"message"`
	Mode            string          `json:"mode"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	Withdraw        bool            `json:"withdraw"`
}

// elicit runs an elicit step and says how it was answered:
// "elicit: accept <content>", "elicit: decline", "elicit: cancel" or
// "elicit error: <code> <message>".
func (t *turn) elicit(e *elicitStep) {
	mode := e.Mode
	if mode == "" {
		mode = "form"
	}
	schema := e.RequestedSchema
	if schema == nil {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	result, rerr := t.a.callWithdraw("elicitation/create", struct {
		SessionID       string          `json:"sessionId"`
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}{t.s.id, mode, e.Message, schema}, e.Withdraw)
	if rerr != nil {
		t.say(fmt.Sprintf("elicit error: %d %s", rerr.Code, rerr.Message))
		return
	}
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(result, &r)
	if r.Action == "accept" {
		t.say("elicit: accept " + string(compactOr(r.Content, "null")))
		return
	}
	t.say("elicit: " + r.Action)
}

// callWithdraw is call; with withdraw, a $/cancel_request for the request
// is sent right after it, and the answer is still awaited.
func (a *agent) callWithdraw(method string, params any, withdraw bool) (json.RawMessage, *rpcError) {
	if !withdraw {
		return a.call(method, params)
	}
	id, ch := a.calls.start()
	a.out.write(messageLine(id, method, marshal(params)), true)
	a.out.write(messageLine("", "$/cancel_request", []byte(`{"requestId":`+id+`}`)), true)
	m := <-ch
	if m.Error != nil {
		return nil, m.Error
	}
	if len(m.Result) == 0 {
		return json.RawMessage("null"), nil
	}
	return compact(m.Result), nil
}

// cancelRequest handles the client's $/cancel_request: a session/load
// whose load steps are running is stopped and answered -32800. Every one
// is noted on stderr ("cancel_request <id>").
func (a *agent) cancelRequest(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(params, &p)
	id := string(compact(p.RequestID))
	a.logStderr("cancel_request " + id)
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.sessions {
		s.mu.Lock()
		t := s.turn
		s.mu.Unlock()
		if t != nil && t.reqID != "" && t.reqID == id {
			t.withdrawn.Store(true)
			t.cancel()
			return
		}
	}
	slog.Debug("$/cancel_request for no running request", "id", id)
}

// codeRequestCancelled answers a request the client withdrew.
const codeRequestCancelled = -32800
