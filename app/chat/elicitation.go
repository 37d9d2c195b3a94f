package chat

import (
	"context"
	"encoding/json"

	"mnote/acp"
	"mnote/store"
)

// RequestElicitation implements acp.ElicitationBroker around the owner's
// broker, when it answers elicitations (else the request is declined: no
// one can be asked). The question (its message and form) and the answer
// (its action and accepted values) are recorded and shown in the thread
// as a question entry, where it was asked.
func (s *Session) RequestElicitation(ctx context.Context, req *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
	eb, _ := s.broker.(acp.ElicitationBroker)
	s.mu.Lock()
	turn := s.turn
	ch := s.th.AskQuestion(req.Message, req.RequestedSchema)
	s.recordApp(store.KindElicitationAsked, store.QuestionRecord{Turn: turn, Entry: ch.EntryID, Message: req.Message,
		ToolCallID: req.ToolCallID, Schema: req.RequestedSchema})
	s.sync()
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvUpdate, Change: ch})
	}
	s.mu.Unlock()

	ans := acp.ElicitationAnswer{Action: acp.ElicitDecline}
	by := "nobody"
	if eb != nil {
		by = "user"
		a, err := eb.RequestElicitation(ctx, req)
		switch {
		case err != nil || ctx.Err() != nil:
			ans = acp.ElicitationAnswer{Action: acp.ElicitCancel}
			by = "cancel"
		default:
			ans = a
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var content json.RawMessage
	if ans.Action == acp.ElicitAccept {
		content = ans.Content
	}
	s.recordApp(store.KindElicitationAnswered, store.QuestionRecord{Turn: turn, Entry: ch.EntryID, Action: ans.Action, By: by, Content: content})
	if ach, ok := s.th.AnswerQuestion(ch.EntryID, ans.Action, content); ok && s.obs != nil {
		s.obs.Event(&Event{Type: EvUpdate, Change: ach})
	}
	s.sync()
	return ans, nil
}
