package acp

import (
	"context"
	"errors"

	acpsdk "github.com/coder/acp-go-sdk"
)

// The stable methods that let an agent free what mnote no longer needs:
// session/close when mnote lets go of a session, session/delete when the
// user deletes the agent's own copy of one, and logout. Each is sent only
// to an agent that advertises it.

// CanClose reports the session/close capability.
func (c AgentCapabilities) CanClose() bool { return present(c.SessionCapabilities.Close) }

// CanDelete reports the session/delete capability.
func (c AgentCapabilities) CanDelete() bool { return present(c.SessionCapabilities.Delete) }

// CanLogout reports the auth.logout capability.
func (c AgentCapabilities) CanLogout() bool { return present(c.Auth.Logout) }

// ErrNotOffered is returned for a method the agent does not advertise.
var ErrNotOffered = errors.New("the agent does not offer this")

// release sends session/close for the session when the agent advertises
// it and still runs; its answer is awaited up to Options.StopGrace (a
// step of a graceful stop: quitting mnote closes every session this way).
// Errors are logged: the session is let go of all the same.
func (s *Session) release() {
	a := s.a
	if !a.Init.AgentCapabilities.CanClose() {
		return
	}
	select {
	case <-a.conn.Done():
		return
	case <-a.proc.Done():
		return
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), a.opts.StopGrace)
	defer cancel()
	if _, err := a.conn.call(ctx, acpsdk.AgentMethodSessionClose, acpsdk.CloseSessionRequest{SessionId: acpsdk.SessionId(s.id)}, s.h); err != nil {
		a.log.Warn("session/close", "sessionId", s.id, "err", err)
	}
}

// DeleteSession runs session/delete: the agent deletes its own copy of
// session id (one it lists). ErrNotOffered when it does not advertise
// sessionCapabilities.delete.
func (a *Agent) DeleteSession(ctx context.Context, id string) error {
	if !a.Init.AgentCapabilities.CanDelete() {
		return ErrNotOffered
	}
	if id == "" {
		return errors.New("session/delete: no session id")
	}
	if s := a.session(id); s != nil {
		s.Close()
	}
	if _, err := a.callTimeout(ctx, acpsdk.AgentMethodSessionDelete, acpsdk.UnstableDeleteSessionRequest{SessionId: acpsdk.SessionId(id)}, nil, a.opts.NewSessionTimeout); err != nil {
		return a.describe(err)
	}
	return nil
}

// Logout runs logout: the agent forgets its login, so that its next
// session asks for authentication again. ErrNotOffered when it does not
// advertise auth.logout.
func (a *Agent) Logout(ctx context.Context) error {
	if !a.Init.AgentCapabilities.CanLogout() {
		return ErrNotOffered
	}
	if _, err := a.callTimeout(ctx, acpsdk.AgentMethodLogout, acpsdk.LogoutRequest{}, nil, a.opts.NewSessionTimeout); err != nil {
		return a.describe(err)
	}
	return nil
}
