package app

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"mnote/acp"
	"mnote/acp/runtimes"
)

// Pool defaults (Config.MaxAgents, SessionsPerAgent, AgentIdle).
const (
	defaultMaxAgents        = 6
	defaultSessionsPerAgent = 8
	defaultAgentIdle        = 5 * time.Minute
	// shutdownWait bounds how long close waits for the processes being
	// stopped. A graceful stop takes at most two grace periods (2 s
	// each) and a SIGKILL; this only guards against a process stuck in
	// the kernel.
	shutdownWait = 10 * time.Second
)

// agentPool shares agent processes between sessions: one process of a
// runtime (same command, env and folder) holds up to perAgent ACP
// sessions, a process no session uses is stopped after idle, and at most
// max processes run (idle ones are stopped first to make room).
//
// A process that one session's cancel grace kills (the agent ignored
// session/cancel) ends the turns of the sessions sharing it; they show the
// crash banner and restart on the next prompt, like after any crash.
//
// Every process the pool started is tracked until it has exited: those
// being started, pooled, and being stopped (idle, evicted, dropped);
// close returns only when all of them are gone, so no agent outlives
// mnote.
type agentPool struct {
	s        *Services
	max      int
	perAgent int
	idle     time.Duration

	// ctx ends with close; starts in progress are cancelled with it.
	ctx    context.Context
	cancel context.CancelFunc
	// tracked counts starts in progress and stops not finished. Add only
	// with mu held and closed false (or from close itself, before Wait),
	// so no Add races close's Wait.
	tracked sync.WaitGroup

	mu      sync.Mutex
	procs   []*pooledAgent
	pending int // processes being started (they count against max)
	closed  bool
}

type pooledAgent struct {
	key       string
	a         *acp.Agent
	users     int
	idleSince time.Time
	reap      *time.Timer
}

func newAgentPool(s *Services, cfg Config) *agentPool {
	p := &agentPool{s: s, max: cfg.MaxAgents, perAgent: cfg.SessionsPerAgent, idle: cfg.AgentIdle}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if p.max <= 0 {
		p.max = defaultMaxAgents
	}
	if p.perAgent <= 0 {
		p.perAgent = defaultSessionsPerAgent
	}
	if p.idle <= 0 {
		p.idle = defaultAgentIdle
	}
	return p
}

// poolKey says which sessions may share a process: the same runtime,
// command line, environment and folder (agents may read files relative
// to their own working folder).
func poolKey(rt runtimes.Runtime, res runtimes.Resolved, dir string) string {
	env := slices.Clone(res.Env)
	slices.Sort(env)
	return rt.Name + "\x00" + runtimes.CommandLine(res.Path, res.Args) + "\x00" + strings.Join(env, "\x01") + "\x00" + dir
}

// acquire returns a running, initialized agent for a new binding: a
// shared one with room, or a new process. Every acquire is paired with
// one release.
func (p *agentPool) acquire(ctx context.Context, rt runtimes.Runtime, res runtimes.Resolved, dir string) (*acp.Agent, error) {
	key := poolKey(rt, res, dir)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errShutdown
	}
	p.prune()
	for _, pa := range p.procs {
		if pa.key == key && pa.users < p.perAgent {
			pa.use()
			p.mu.Unlock()
			return pa.a, nil
		}
	}
	// Make room: stop idle processes, least recently used first.
	for len(p.procs)+p.pending >= p.max {
		i := p.oldestIdle()
		if i < 0 {
			n := len(p.procs) + p.pending
			p.mu.Unlock()
			return nil, (&Error{Code: CodeBusy, Message: fmt.Sprintf(
				"%d agent processes are running, the most mnote starts at once: close or stop a session, then try again", n)}).why(ReasonTooManyAgents, "count", strconv.Itoa(n))
		}
		victim := p.procs[i].a
		p.procs[i].stopTimer()
		p.procs = slices.Delete(p.procs, i, i+1)
		p.s.log.Debug("stopping an idle agent to make room", "pid", victim.Pid())
		p.stopLocked(victim)
	}
	p.pending++
	p.tracked.Add(1)
	p.mu.Unlock()
	defer p.tracked.Done()

	// close cancels a start in progress: acp.Start then kills the
	// process before it returns.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(p.ctx, cancel)()
	a, err := p.s.startAgent(ctx, rt, res, dir, p.s.initTimeout(rt))
	p.mu.Lock()
	p.pending--
	if err == nil && p.closed {
		p.mu.Unlock()
		a.Stop() // still tracked: close waits for this start
		return nil, errShutdown
	}
	defer p.mu.Unlock()
	if err != nil {
		if p.closed {
			return nil, errShutdown
		}
		return nil, err
	}
	pa := &pooledAgent{key: key, a: a}
	pa.use()
	p.procs = append(p.procs, pa)
	return a, nil
}

// release gives back a binding's agent. A process left with no session
// is stopped after the idle time; one that failed is dropped at once.
func (p *agentPool) release(a *acp.Agent) {
	if a == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.procs, func(pa *pooledAgent) bool { return pa.a == a })
	if i < 0 {
		// Not pooled (already dropped or stopped): make sure it is gone.
		// After close every process is already being stopped.
		if !p.closed {
			p.stopLocked(a)
		}
		return
	}
	pa := p.procs[i]
	pa.users--
	if pa.users > 0 {
		return
	}
	if exited(a) { // (a pooled process means close has not run)
		p.procs = slices.Delete(p.procs, i, i+1)
		p.stopLocked(a)
		return
	}
	pa.idleSince = time.Now()
	pa.stopTimer()
	since := pa.idleSince
	pa.reap = time.AfterFunc(p.idle, func() { p.reapIdle(pa, since) })
}

// reapIdle stops pa if it has been unused since since.
func (p *agentPool) reapIdle(pa *pooledAgent, since time.Time) {
	p.mu.Lock()
	i := slices.Index(p.procs, pa)
	if i < 0 || pa.users > 0 || !pa.idleSince.Equal(since) {
		p.mu.Unlock()
		return
	}
	p.procs = slices.Delete(p.procs, i, i+1)
	p.s.log.Debug("stopping an idle agent", "pid", pa.a.Pid(), "idle", p.idle)
	p.stopLocked(pa.a)
	p.mu.Unlock()
}

// stopLocked stops a in the background, tracked so that close waits for
// it. p.mu is held and the pool not closed.
func (p *agentPool) stopLocked(a *acp.Agent) {
	p.tracked.Go(a.Stop)
}

// prune forgets processes that exited (their sessions see it themselves).
func (p *agentPool) prune() {
	p.procs = slices.DeleteFunc(p.procs, func(pa *pooledAgent) bool {
		if exited(pa.a) {
			pa.stopTimer()
			return true
		}
		return false
	})
}

func (p *agentPool) oldestIdle() int {
	best := -1
	for i, pa := range p.procs {
		if pa.users == 0 && (best < 0 || pa.idleSince.Before(p.procs[best].idleSince)) {
			best = i
		}
	}
	return best
}

// RunningAgent is one agent process mnote runs (agents.running).
type RunningAgent struct {
	Runtime  string `json:"runtime"`
	Pid      int    `json:"pid"`
	Sessions int    `json:"sessions"`
	// IdleMs is how long no session has used it (0 while one does); it
	// stops after Config.AgentIdle.
	IdleMs int64 `json:"idleMs"`
}

// running lists the pooled processes.
func (p *agentPool) running() []RunningAgent {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prune()
	out := make([]RunningAgent, 0, len(p.procs))
	for _, pa := range p.procs {
		r := RunningAgent{Runtime: pa.key[:strings.IndexByte(pa.key, 0)], Pid: pa.a.Pid(), Sessions: pa.users}
		if pa.users == 0 {
			r.IdleMs = time.Since(pa.idleSince).Milliseconds()
		}
		out = append(out, r)
	}
	return out
}

func (s *Services) agentsRunning(_ context.Context, _ struct{}) (any, *Error) {
	return s.pool.running(), nil
}

// close refuses new processes, cancels starts in progress, stops every
// pooled process and returns once every process the pool started has
// exited (or after shutdownWait, with a warning).
func (p *agentPool) close() {
	p.mu.Lock()
	p.closed = true
	procs := p.procs
	p.procs = nil
	for _, pa := range procs {
		pa.stopTimer()
		p.tracked.Go(pa.a.Stop) // before Wait below, on this goroutine
	}
	p.mu.Unlock()
	p.cancel()
	done := make(chan struct{})
	go func() {
		p.tracked.Wait()
		close(done)
	}()
	t := time.NewTimer(shutdownWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		p.s.log.Warn("agent processes still stopping at shutdown", "waited", shutdownWait)
	}
}

func (pa *pooledAgent) use() {
	pa.users++
	pa.stopTimer()
}

func (pa *pooledAgent) stopTimer() {
	if pa.reap != nil {
		pa.reap.Stop()
		pa.reap = nil
	}
}
