package app

import (
	"context"
	"fmt"
	"slices"
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
)

// agentPool shares agent processes between sessions: one process of a
// runtime (same command, env and folder) holds up to perAgent ACP
// sessions, a process no session uses is stopped after idle, and at most
// max processes run (idle ones are stopped first to make room).
//
// A process that one session's cancel grace kills (the agent ignored
// session/cancel) ends the turns of the sessions sharing it; they show the
// crash banner and restart on the next prompt, like after any crash.
type agentPool struct {
	s        *Services
	max      int
	perAgent int
	idle     time.Duration

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
	var victims []*acp.Agent
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
			return nil, &Error{Code: CodeBusy, Message: fmt.Sprintf(
				"%d agent processes are running, the most mnote starts at once: close or stop a session, then try again", n)}
		}
		victims = append(victims, p.procs[i].a)
		p.procs[i].stopTimer()
		p.procs = slices.Delete(p.procs, i, i+1)
	}
	p.pending++
	p.mu.Unlock()
	for _, a := range victims {
		p.s.log.Debug("stopping an idle agent to make room", "pid", a.Pid())
		go a.Stop()
	}

	a, err := p.s.startAgent(ctx, rt, res, dir, p.s.initTimeout(rt))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending--
	if err != nil {
		return nil, err
	}
	if p.closed {
		go a.Stop()
		return nil, errShutdown
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
		go a.Stop()
		return
	}
	pa := p.procs[i]
	pa.users--
	if pa.users > 0 {
		return
	}
	if p.closed || exited(a) {
		p.procs = slices.Delete(p.procs, i, i+1)
		go a.Stop()
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
	p.mu.Unlock()
	p.s.log.Debug("stopping an idle agent", "pid", pa.a.Pid(), "idle", p.idle)
	pa.a.Stop()
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

// close stops every pooled process and refuses new ones.
func (p *agentPool) close() {
	p.mu.Lock()
	p.closed = true
	procs := p.procs
	p.procs = nil
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, pa := range procs {
		pa.stopTimer()
		wg.Go(pa.a.Stop)
	}
	wg.Wait()
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
