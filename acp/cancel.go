package acp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"mnote/internal/jsonscan"
)

// MethodCancelRequest is ACP's protocol-level request cancellation: either
// side may withdraw a request it sent ({"requestId": id}); the other
// answers it at once (with a cancellation marker or -32800).
const MethodCancelRequest = "$/cancel_request"

// CodeRequestCancelled is JSON-RPC's "request cancelled".
const CodeRequestCancelled = -32800

// errRequestWithdrawn is the cause of a request the agent withdrew.
var errRequestWithdrawn = errors.New("the agent withdrew the request ($/cancel_request)")

// cancellable reports the agent→client requests that wait for the user and
// so honour $/cancel_request; the others are answered without waiting.
func cancellable(method string) bool {
	return method == "session/request_permission" || method == "elicitation/create"
}

// inflight tracks the agent→client requests that wait for the user, by
// id, from their arrival (on the reader goroutine, so a $/cancel_request
// that follows them in the stream always finds them) to their answer.
type inflight struct {
	mu sync.Mutex
	m  map[string]*inflightReq
}

type inflightReq struct {
	s      *Session
	ctx    context.Context // ended by the agent's $/cancel_request
	cancel context.CancelCauseFunc
}

// add registers req; it is forgotten by done.
func (f *inflight) add(s *Session, req *Request) {
	ctx, cancel := context.WithCancelCause(context.Background())
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]*inflightReq{}
	}
	f.m[idKey(req.ID)] = &inflightReq{s: s, ctx: ctx, cancel: cancel}
	f.mu.Unlock()
	req.withdrawn = ctx
}

func (f *inflight) done(req *Request) {
	f.mu.Lock()
	r := f.m[idKey(req.ID)]
	delete(f.m, idKey(req.ID))
	f.mu.Unlock()
	if r != nil {
		r.cancel(nil)
	}
}

// withdraw ends the wait of the request with id; it reports the session
// that holds it (nil when none waits: answered already, or unknown).
func (f *inflight) withdraw(id json.RawMessage) *Session {
	f.mu.Lock()
	r := f.m[idKey(id)]
	f.mu.Unlock()
	if r == nil {
		return nil
	}
	r.cancel(errRequestWithdrawn)
	return r.s
}

// requestContext is the context a request waits under: it ends with the
// session's permission context (turn cancelled, session closed, agent
// gone) or when the agent withdraws the request. stop releases it.
func (s *Session) requestContext(req *Request) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(s.permCtxNow())
	if req.withdrawn == nil {
		return ctx, func() { cancel(nil) }
	}
	unhook := context.AfterFunc(req.withdrawn, func() { cancel(context.Cause(req.withdrawn)) })
	return ctx, func() { unhook(); cancel(nil) }
}

// cancelRequest handles the agent's $/cancel_request: the request it names
// is answered at once as its method says a cancelled one is (permission:
// outcome cancelled; elicitation: action cancel). The line goes to the
// transcript of the session that held the request.
func (a *Agent) cancelRequest(params json.RawMessage, line []byte) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := jsonscan.Decode(params, &p); err != nil || len(p.RequestID) == 0 {
		a.bad(errors.New("$/cancel_request without a requestId"), line)
		return
	}
	s := a.reqs.withdraw(p.RequestID)
	if s == nil {
		// Answered already (the answer and the cancel crossed), or a
		// request that does not wait: nothing to do.
		a.log.Debug("$/cancel_request for no waiting request", "requestId", string(p.RequestID))
		return
	}
	s.h.Notification(MethodCancelRequest, params, line)
}

// sendCancelRequest withdraws one of mnote's own requests that is no
// longer wanted (its caller gave up); a late answer is still recorded.
func (c *conn) sendCancelRequest(pc *pendingCall) {
	if err := c.notify(MethodCancelRequest, cancelRequestParams{RequestID: json.RawMessage(pc.key)}, pc.tap); err != nil {
		c.log.Debug("$/cancel_request not sent", "method", pc.method, "err", err)
	}
}

type cancelRequestParams struct {
	RequestID json.RawMessage `json:"requestId"`
}

// initializeParams adds to the SDK's initialize request the client
// capabilities the SDK (v0.13.5) has no field for:
// clientCapabilities.session.configOptions.boolean (mnote sends boolean
// config values, session/set_config_option with type "boolean").
func initializeParams(req acpsdk.InitializeRequest) (json.RawMessage, error) {
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	var caps map[string]json.RawMessage
	if err := json.Unmarshal(top["clientCapabilities"], &caps); err != nil || caps == nil {
		caps = map[string]json.RawMessage{}
	}
	caps["session"] = json.RawMessage(`{"configOptions":{"boolean":{}}}`)
	if top["clientCapabilities"], err = json.Marshal(caps); err != nil {
		return nil, err
	}
	return json.Marshal(top)
}
