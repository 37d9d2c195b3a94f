package chat

import (
	"context"

	"mnote/acp"
)

// RequestElicitation implements acp.ElicitationBroker around the owner's
// broker, when it answers elicitations (else the request is declined: no
// one can be asked). The question and the answer's action are recorded;
// the values only in the ACP lines, like every line.
func (s *Session) RequestElicitation(ctx context.Context, req *acp.ElicitationRequest) (acp.ElicitationAnswer, error) {
	eb, _ := s.broker.(acp.ElicitationBroker)
	s.mu.Lock()
	turn := s.turn
	s.recordApp("elicitation_asked", map[string]any{"turn": turn, "message": req.Message, "toolCallId": req.ToolCallID})
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
	s.recordApp("elicitation_answered", map[string]any{"turn": turn, "action": ans.Action, "by": by})
	s.sync()
	return ans, nil
}
