package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mnote/acp"
	"mnote/store"
	"mnote/workspace"
)

// PermissionOption is one of the agent's choices.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// PermissionRequest is a request waiting for the user (API.md).
type PermissionRequest struct {
	RequestID  string             `json:"requestId"`
	ToolCallID string             `json:"toolCallId"`
	Title      string             `json:"title"`
	Kind       string             `json:"kind"`
	Options    []PermissionOption `json:"options"`
	ToolCall   json.RawMessage    `json:"toolCall"`
	// Effects are what the request's diffs would do to the notes as the
	// person has them now (with unsaved edits), where that is not what the
	// agent's own diff shows (API.md).
	Effects []WriteEffect `json:"effects,omitempty"`
}

// WriteEffect is one file's workspace.AgentWritePreview; AgentPath is the
// path as the agent's diff gives it.
type WriteEffect struct {
	AgentPath string `json:"agentPath"`
	workspace.AgentWritePreview
}

// permissions holds the requests waiting for a decision, across sessions.
type permissions struct {
	s *Services

	mu      sync.Mutex
	next    uint64
	pending map[string]*parked // by requestId
}

// parked is one waiting request.
type parked struct {
	dto       PermissionRequest
	l         *liveSession
	agent     string // runtime name
	workspace string
	answer    chan string // one option id; "" cancels
}

// ask is the live session's acp.PermissionBroker: a remembered rule
// answers at once; otherwise the request waits for permissions.decide,
// the turn's cancellation or the session's close (ctx).
func (p *permissions) ask(ctx context.Context, l *liveSession, req *acp.PermissionRequest) (acp.PermissionDecision, error) {
	agent, workspace := l.ruleKey()
	effects := l.writeEffects(req.ToolCall)
	// A write that would drop text the person typed, or conflict with it,
	// is always shown: no remembered rule answers it.
	if req.Kind != "" && agent != "" && !losesWords(effects) {
		rule, ok, err := p.s.ix.LookupRule(ctx, agent, workspace, req.Kind)
		if err != nil {
			p.s.log.Warn("permission rules not read", "err", err)
		} else if ok {
			if id := optionFor(req.Options, rule.OptionKind); id != "" {
				return acp.PermissionDecision{OptionID: id, By: "rule"}, nil
			}
		}
	}
	p.mu.Lock()
	p.next++
	id := "p" + strconv.FormatUint(p.next, 10)
	pk := &parked{
		dto: PermissionRequest{RequestID: id, ToolCallID: req.ToolCallID, Title: req.Title, Kind: req.Kind,
			Options: make([]PermissionOption, len(req.Options)), ToolCall: slices.Clone(req.ToolCall), Effects: effects},
		l: l, agent: agent, workspace: workspace, answer: make(chan string, 1),
	}
	for i, o := range req.Options {
		pk.dto.Options[i] = PermissionOption(o)
	}
	if len(pk.dto.ToolCall) == 0 {
		pk.dto.ToolCall = json.RawMessage("null")
	}
	p.pending[id] = pk
	p.mu.Unlock()
	l.pump.event(EvPermission, pk.dto)

	var optionID string
	select {
	case optionID = <-pk.answer:
	case <-ctx.Done():
		p.mu.Lock()
		if _, still := p.pending[id]; still {
			delete(p.pending, id)
		} else {
			// Decided just as it was cancelled: the decision stands
			// only if ctx allows it, and it does not.
			select {
			case <-pk.answer:
			default:
			}
		}
		p.mu.Unlock()
		optionID = ""
	}
	l.pump.event(EvPermissionResolved, ResolvedPayload{RequestID: id, OptionID: optionID})
	return acp.PermissionDecision{OptionID: optionID}, nil
}

// optionFor picks the request's option for a remembered option kind: the
// same kind, else the one-time option of the same decision.
func optionFor(opts []acp.PermissionOption, kind string) string {
	want := []string{kind}
	switch {
	case strings.HasPrefix(kind, "allow"):
		want = append(want, "allow_always", "allow_once")
	case strings.HasPrefix(kind, "reject"):
		want = append(want, "reject_always", "reject_once")
	}
	for _, k := range want {
		for _, o := range opts {
			if o.Kind == k {
				return o.OptionID
			}
		}
	}
	return ""
}

// take removes a waiting request and answers it.
func (p *permissions) take(id string, pk *parked, optionID string) {
	delete(p.pending, id)
	pk.answer <- optionID
}

type decideArgs struct {
	SessionID string `json:"sessionId"`
	RequestID string `json:"requestId"`
	OptionID  string `json:"optionId"`
}

func (s *Services) permissionsDecide(ctx context.Context, a decideArgs) (any, *Error) {
	p := s.perms
	p.mu.Lock()
	pk, ok := p.pending[a.RequestID]
	if !ok || pk.l.id != a.SessionID {
		p.mu.Unlock()
		return nil, &Error{Code: CodeNotFound, Reason: ReasonPermissionNotWaiting, Message: fmt.Sprintf("no permission request %q is waiting in session %q", a.RequestID, a.SessionID)}
	}
	kind := ""
	if a.OptionID != "" {
		i := slices.IndexFunc(pk.dto.Options, func(o PermissionOption) bool { return o.OptionID == a.OptionID })
		if i < 0 {
			p.mu.Unlock()
			return nil, badRequest("the request %s has no option %q", a.RequestID, a.OptionID).why(ReasonPermissionOptionUnknown)
		}
		kind = pk.dto.Options[i].Kind
	}
	p.mu.Unlock()

	// Remember an always-choice first, so that a request arriving while
	// the waiting ones are answered finds the rule.
	always := (kind == "allow_always" || kind == "reject_always") && pk.dto.Kind != "" && pk.agent != ""
	var remembered error
	if always {
		remembered = s.ix.RememberRule(ctx, store.Rule{Agent: pk.agent, Workspace: pk.workspace, ToolKind: pk.dto.Kind, OptionKind: kind})
	}

	p.mu.Lock()
	if p.pending[a.RequestID] != pk {
		p.mu.Unlock()
		return nil, &Error{Code: CodeNotFound, Reason: ReasonPermissionCancelled, Message: fmt.Sprintf("the permission request %q was cancelled meanwhile", a.RequestID)}
	}
	p.take(a.RequestID, pk, a.OptionID)
	if always {
		// Answer the matching requests already waiting, in any session.
		for id, other := range p.pending {
			if other.agent != pk.agent || other.workspace != pk.workspace || other.dto.Kind != pk.dto.Kind {
				continue
			}
			opts := make([]acp.PermissionOption, len(other.dto.Options))
			for i, o := range other.dto.Options {
				opts[i] = acp.PermissionOption(o)
			}
			if oid := optionFor(opts, kind); oid != "" {
				p.take(id, other, oid)
			}
		}
	}
	p.mu.Unlock()
	if remembered != nil {
		return nil, newError(CodeWriteFailed, "the choice was applied but not remembered: %w", remembered).why(ReasonPermissionNotRemembered)
	}
	return nil, nil
}

// PermissionRule is a remembered always-choice (permissions.rules).
type PermissionRule struct {
	Agent      string `json:"agent"`
	Workspace  string `json:"workspace"`
	ToolKind   string `json:"toolKind"`
	OptionKind string `json:"optionKind"`
	Decision   string `json:"decision"`
	CreatedMs  int64  `json:"createdMs"`
}

// permissionsRules lists the remembered always-choices.
func (s *Services) permissionsRules(ctx context.Context, _ struct{}) (any, *Error) {
	rules, err := s.ix.ListRules(ctx)
	if err != nil {
		return nil, newError(CodeInternal, "the remembered permissions could not be read: %w", err).why(ReasonPermissionsUnreadable)
	}
	out := make([]PermissionRule, len(rules))
	for i, r := range rules {
		out[i] = PermissionRule(r)
	}
	return out, nil
}

type revokeArgs struct {
	Agent     string `json:"agent"`
	Workspace string `json:"workspace"`
	ToolKind  string `json:"toolKind"`
}

// permissionsRevoke forgets one remembered choice: the next request of
// that kind asks again.
func (s *Services) permissionsRevoke(ctx context.Context, a revokeArgs) (any, *Error) {
	if a.Agent == "" || a.ToolKind == "" {
		return nil, badRequest("agent and toolKind are required")
	}
	if err := s.ix.ForgetRule(ctx, a.Agent, a.Workspace, a.ToolKind); err != nil {
		return nil, newError(CodeWriteFailed, "the permission was not revoked: %w", err).why(ReasonPermissionNotRevoked)
	}
	return nil, nil
}
