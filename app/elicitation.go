package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mnote/acp"
)

// Events of elicitations (API.md, "Events").
const (
	EvElicitation         = "elicitation"
	EvElicitationResolved = "elicitation_resolved"
)

// ElicitationRequest is an agent's question waiting for the user
// (API.md): a form built from Schema (the agent's restricted JSON Schema,
// its properties in the agent's order).
type ElicitationRequest struct {
	RequestID  string          `json:"requestId"`
	Message    string          `json:"message"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Schema     json.RawMessage `json:"schema"`
}

// ElicitationResolvedPayload says a question is no longer waiting and how
// it was answered: accept, decline or cancel (the turn was cancelled, the
// session closed or the agent withdrew it).
type ElicitationResolvedPayload struct {
	RequestID string `json:"requestId"`
	Action    string `json:"action"`
}

// elicitations holds the questions waiting for an answer, across
// sessions. The zero value is ready.
type elicitations struct {
	mu      sync.Mutex
	next    uint64
	pending map[string]*parkedQuestion
}

type parkedQuestion struct {
	dto    ElicitationRequest
	schema acp.ElicitationSchema
	l      *liveSession
	answer chan acp.ElicitationAnswer
}

// RequestElicitation implements acp.ElicitationBroker (through chat).
func (l *liveSession) RequestElicitation(ctx context.Context, req *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
	return l.s.elic.ask(ctx, l, req)
}

// ask shows the question and waits for elicitations.answer, or for ctx
// (the turn's cancellation, the session's close, the agent's
// $/cancel_request): then it is answered cancel.
func (q *elicitations) ask(ctx context.Context, l *liveSession, req *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
	q.mu.Lock()
	if q.pending == nil {
		q.pending = map[string]*parkedQuestion{}
	}
	q.next++
	id := "e" + strconv.FormatUint(q.next, 10)
	pq := &parkedQuestion{
		dto:    ElicitationRequest{RequestID: id, Message: req.Message, ToolCallID: req.ToolCallID, Schema: slices.Clone(req.RequestedSchema)},
		schema: req.Schema, l: l, answer: make(chan acp.ElicitationAnswer, 1),
	}
	q.pending[id] = pq
	q.mu.Unlock()
	l.pump.event(EvElicitation, pq.dto)

	var ans acp.ElicitationAnswer
	select {
	case ans = <-pq.answer:
	case <-ctx.Done():
		q.mu.Lock()
		delete(q.pending, id)
		q.mu.Unlock()
		ans = acp.ElicitationAnswer{Action: acp.ElicitCancel}
	}
	l.pump.event(EvElicitationResolved, ElicitationResolvedPayload{RequestID: id, Action: ans.Action})
	return ans, nil
}

type answerArgs struct {
	SessionID string          `json:"sessionId"`
	RequestID string          `json:"requestId"`
	Action    string          `json:"action"`
	Content   json.RawMessage `json:"content"`
}

// elicitationsAnswer answers a waiting question. An accepted answer is
// checked against the form's schema first: one that does not fit is
// refused (bad_request, details "field: reason" per line) and the
// question keeps waiting.
func (s *Services) elicitationsAnswer(_ context.Context, a answerArgs) (any, *Error) {
	switch a.Action {
	case acp.ElicitAccept, acp.ElicitDecline, acp.ElicitCancel:
	default:
		return nil, badRequest("action must be accept, decline or cancel, not %q", a.Action)
	}
	q := &s.elic
	q.mu.Lock()
	defer q.mu.Unlock()
	pq, ok := q.pending[a.RequestID]
	if !ok || pq.l.id != a.SessionID {
		return nil, &Error{Code: CodeNotFound, Reason: ReasonQuestionNotWaiting, Message: fmt.Sprintf("no question %q is waiting in session %q", a.RequestID, a.SessionID)}
	}
	ans := acp.ElicitationAnswer{Action: a.Action}
	if a.Action == acp.ElicitAccept {
		content := a.Content
		if len(content) == 0 || string(content) == "null" {
			content = json.RawMessage("{}")
		}
		if err := pq.schema.ValidateContent(content); err != nil {
			return nil, &Error{Code: CodeBadRequest, Reason: ReasonAnswerInvalid, Message: "the answer does not fit the form", Details: fieldErrors(err)}
		}
		ans.Content = slices.Clone(content)
	}
	delete(q.pending, a.RequestID)
	pq.answer <- ans
	return nil, nil
}

// fieldErrors lists a validation failure as "field: reason" lines.
func fieldErrors(err error) string {
	var lines []string
	var fe *acp.FieldError
	for _, e := range unjoin(err) {
		if errors.As(e, &fe) {
			lines = append(lines, fe.Field+": "+fe.Reason)
		} else {
			lines = append(lines, ": "+e.Error())
		}
	}
	return strings.Join(lines, "\n")
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
