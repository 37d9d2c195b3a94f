package app

import (
	"context"
	"errors"
	"slices"

	"mnote/acp"
	"mnote/acp/runtimes"
)

// A session's agent starts in two steps: the process and its initialize
// (the pool's, when no process of that agent has room), then session/new
// or session/load. Either may hang. startSpan makes the two one start the
// page sees ("Starting Qwen Code… (12 s)", agent:start) and may cancel
// (agents.cancelStart); the process's own start inside it tells nothing.

// startSpanKey marks a context inside a session's start.
type startSpanKey struct{}

func inStartSpan(ctx context.Context) bool { return ctx.Value(startSpanKey{}) != nil }

// startSpan begins a session's start; end says how it went and returns
// the error to give the caller (a cancelled start's says so).
func (s *Services) startSpan(ctx context.Context, rt runtimes.Runtime) (context.Context, func(error) *Error) {
	if inStartSpan(ctx) {
		return ctx, func(err error) *Error { return errorFrom("", err) }
	}
	ctx, end := s.beginStart(ctx, rt, s.initTimeout(rt))
	return context.WithValue(ctx, startSpanKey{}, true), func(err error) *Error {
		e := errorFrom("", err)
		if e != nil && e.Code != CodeAgentFailed && !errors.Is(context.Cause(ctx), errStartCancelled) {
			// The agent did start; what failed is not its start (it wants
			// a sign-in, refused an import, no room for it): the caller's
			// error says so, once.
			end(nil, nil)
			return e
		}
		return errorFrom("", end(nil, err))
	}
}

// releaseBound gives back the agent of a binding that failed. When its
// session/new or session/load was cancelled or timed out, a process no
// other session uses is stopped at once: it may be stuck, and the next
// start should not get it back from the pool.
func (s *Services) releaseBound(ctx context.Context, a *acp.Agent, err error) {
	if ctx.Err() == nil && !errors.Is(err, acp.ErrTimeout) {
		s.pool.release(a)
		return
	}
	p := s.pool
	p.mu.Lock()
	i := slices.IndexFunc(p.procs, func(pa *pooledAgent) bool { return pa.a == a })
	if i < 0 || p.closed || p.procs[i].users != 1 {
		p.mu.Unlock()
		p.release(a)
		return
	}
	pa := p.procs[i]
	pa.users = 0
	pa.stopTimer()
	p.procs = slices.Delete(p.procs, i, i+1)
	s.log.Debug("stopping an agent whose session did not start", "pid", a.Pid(), "err", err)
	p.stopLocked(a)
	p.mu.Unlock()
}

// asError is e as an error: nil stays nil (not a typed nil).
func asError(e *Error) error {
	if e == nil {
		return nil
	}
	return e
}
