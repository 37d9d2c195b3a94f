package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"mnote/acp"
	"mnote/acp/runtimes"
	"mnote/app/chat"
	"mnote/collab/projection"
	"mnote/store"
	"mnote/thread"
)

// This file is sessions.fork: a prompt edited and resent. The
// conversation forks: a new session holds the original's turns before the
// edited one (its transcript's records copied), its agent session starts
// with session/fork when the agent offers it and the fork point is the end
// of the conversation (the schema's session/fork copies the whole agent
// session and cannot fork at an earlier turn), else as a new agent session
// whose first prompt carries the earlier turns as context; then the new
// text is that first prompt. The original is left as it was; the fork's
// session record names it, and the index lists the original's forks.

// Values of ForkOrigin.How and ForkResult.How.
const (
	ForkHowFork    = "fork"    // the agent forked its own session (session/fork)
	ForkHowContext = "context" // a new agent session, the earlier turns sent as context
)

// ForkOrigin is SessionSummary.forkedFrom: the session and turn a fork
// was made from. How is filled where one session is shown
// (sessions.open, sessions:changed), not in sessions.list; Title in both.
type ForkOrigin struct {
	SessionID string `json:"sessionId"`
	Turn      int    `json:"turn"`
	Title     string `json:"title,omitempty"`
	How       string `json:"how,omitempty"`
}

// ForkLink is one of SessionSummary.forks.
type ForkLink struct {
	SessionID string `json:"sessionId"`
	Title     string `json:"title"`
	Turn      int    `json:"turn"`
}

// ForkResult is the result of sessions.fork.
type ForkResult struct {
	Session SessionSummary `json:"session"`
	Turn    int            `json:"turn"`
	How     string         `json:"how"`
}

type forkArgs struct {
	SessionID string `json:"sessionId"`
	Turn      int    `json:"turn"`
	Text      string `json:"text"`
	// Locale words the fork's title: "en" (default) or "zh-CN".
	Locale string `json:"locale"`
}

// forkTitle is a fork's own title: the original's with the fork's number
// among the original's forks, in the person's language ("" stays "": an
// untitled original's fork is titled from its first prompt).
func forkTitle(title string, n int, locale string) string {
	if strings.TrimSpace(title) == "" {
		return ""
	}
	if locale == "zh-CN" {
		return fmt.Sprintf("%s (分叉 %d)", title, n)
	}
	return fmt.Sprintf("%s (fork %d)", title, n)
}

func (s *Services) sessionsFork(ctx context.Context, a forkArgs) (any, *Error) {
	if e := validID(a.SessionID); e != nil {
		return nil, e
	}
	if strings.TrimSpace(a.Text) == "" {
		return nil, badRequest("the prompt is empty").why(ReasonPromptEmpty)
	}
	orig, e := s.summary(ctx, a.SessionID)
	if e != nil {
		return nil, e
	}
	done, runtime, asid, e := s.forkSource(ctx, orig)
	if e != nil {
		return nil, e
	}
	if a.Turn < 1 || a.Turn > done+1 {
		return nil, badRequest("turn %d cannot be edited: the session has %d finished turns", a.Turn, done)
	}
	if runtime == "" {
		return nil, &Error{Code: CodeAgentMissing, Reason: ReasonNoAgent, Message: "this session has no agent; pick one with sessions.switchAgent"}
	}

	n, err := s.ix.ForkCount(ctx, a.SessionID)
	if err != nil {
		return nil, errorFrom("count the forks of "+a.SessionID, err)
	}
	id := strings.ToLower(ulid.Make().String())
	path := s.paths.TranscriptPath(id)
	first := store.SessionRecord{ID: id, Title: forkTitle(orig.Title, n+1, a.Locale), Workspace: orig.Workspace, CreatedMs: time.Now().UnixMilli(),
		ForkedFrom: &store.ForkRef{SessionID: a.SessionID, Turn: a.Turn}}
	if _, err := store.ForkTranscript(s.paths.TranscriptPath(a.SessionID), path, first, a.Turn); err != nil {
		return nil, newError(CodeWriteFailed, "the fork could not be saved: %w", err).why(ReasonTranscriptWriteFailed)
	}
	l, e := s.openLive(ctx, id)
	if e != nil {
		s.removeFork(id)
		return nil, e
	}
	// Nothing else runs in it while its agent starts.
	l.mu.Lock()
	l.busy = "switch"
	l.mu.Unlock()
	forkFrom := ""
	if a.Turn == done+1 {
		forkFrom = asid // the whole agent session is the fork point
	}
	b, e := l.bindFork(ctx, runtime, forkFrom)
	l.mu.Lock()
	l.busy = ""
	l.mu.Unlock()
	if e != nil {
		s.closeLive(l)
		s.removeFork(id)
		return nil, e
	}
	how := ForkHowContext
	var parts *promptParts
	if b.How == ForkHowFork {
		how = ForkHowFork
	} else {
		var ctxText string
		l.sess.Thread(func(th *thread.Thread) { ctxText = earlierTurns(th.Snapshot().Entries) })
		if ctxText != "" {
			parts = &promptParts{earlier: ctxText, earlierFrom: a.SessionID}
		}
	}
	turn, e := l.startTurn(a.Text, parts)
	if e != nil {
		return nil, e
	}
	s.emitChanged(id, a.SessionID)
	sum, e := s.summary(ctx, id)
	if e != nil {
		return nil, e
	}
	return ForkResult{Session: sum, Turn: turn, How: how}, nil
}

// forkSource is what a fork needs of the original: its finished turns,
// its agent and its last agent session.
func (s *Services) forkSource(ctx context.Context, orig SessionSummary) (done int, runtime, asid string, e *Error) {
	done, runtime = orig.Turns, orig.Agent
	if l := s.liveOf(orig.ID); l != nil {
		l.mu.Lock()
		runtime, asid = l.runtime, l.agentSessionID
		running := l.busy == "turn"
		l.mu.Unlock()
		done = l.sess.Turns()
		if running {
			done-- // the running turn is not finished: it cannot be forked yet
		}
		return done, runtime, asid, nil
	}
	bs, err := s.ix.Bindings(ctx, orig.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return 0, "", "", errorFrom("read session "+orig.ID, err)
	}
	if n := len(bs); n > 0 {
		runtime, asid = bs[n-1].Runtime, bs[n-1].AgentSessionID
	}
	return done, runtime, asid, nil
}

// removeFork removes a fork that could not start.
func (s *Services) removeFork(id string) {
	if err := os.Remove(s.paths.TranscriptPath(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.log.Warn("removing a fork that did not start", "session", id, "err", err)
	}
	if err := s.ix.Remove(context.Background(), id); err != nil {
		s.log.Warn("removing a fork that did not start from the index", "session", id, "err", err)
	}
	store.RemoveThreadCache(s.paths, id)
}

// bindFork starts the fork's agent: session/fork of forkFrom when it is
// given and the agent offers it, else a new agent session.
func (l *liveSession) bindFork(ctx context.Context, runtime, forkFrom string) (*chat.Binding, *Error) {
	l.opMu.Lock()
	defer l.opMu.Unlock()
	s := l.s
	rt, e := s.runtime(runtime)
	if e != nil {
		return nil, e
	}
	res, e := s.resolve(rt)
	if e != nil {
		s.noteAgent(rt.Name, e)
		return nil, e
	}
	a, err := s.pool.acquire(ctx, rt, res, l.workspace)
	if err != nil {
		s.noteAgent(rt.Name, err)
		return nil, s.bindError(rt, nil, err)
	}
	fsys, err := l.agentFS()
	if err != nil {
		s.pool.release(a)
		return nil, workspaceError("start the agent", err)
	}
	b, err := l.sess.Bind(ctx, a, chat.BindOptions{
		Runtime: rt.Name, Command: runtimes.CommandLine(res.Path, res.Args), ForkFrom: forkFrom, Cwd: l.workspace,
		FS: fsys, McpServers: l.mcpServers(rt, a), AdditionalDirectories: s.extraDirs(rt),
	})
	if err != nil {
		e := s.bindError(rt, a, err)
		s.pool.release(a)
		s.noteAgent(rt.Name, err)
		return nil, e
	}
	l.bound(a, rt.Name, b)
	s.noteAgent(rt.Name, nil)
	return b, nil
}

// earlierTurns is the compact transcript of a fork's earlier turns: the
// user's and the assistant's messages (projection.Transcript bounds and
// cuts them). Tool calls, thoughts and plans are left out. "" when there
// are none.
func earlierTurns(entries []thread.Entry) string {
	var msgs []projection.Msg
	for _, e := range entries {
		switch e.Kind {
		case thread.EntryUserMessage:
			msgs = append(msgs, projection.Msg{Who: "User", Turn: e.Turn, Text: e.Text})
		case thread.EntryAssistantMessage:
			msgs = append(msgs, projection.Msg{Who: "Assistant", Turn: e.Turn, Text: e.Text})
		}
	}
	return projection.Transcript("Earlier in this conversation (it continues in a new session; these are its earlier turns):", msgs)
}

// earlierBlock is the content block carrying a fork's earlier turns: an
// embedded resource for an agent that takes them (shown in the thread as
// an attachment, not in the message), else text.
func (p *promptParts) earlierBlock(a *acp.Agent) thread.ContentBlock {
	if a != nil && a.Init.AgentCapabilities.PromptCapabilities.EmbeddedContext {
		res, _ := json.Marshal(map[string]string{"uri": "mnote://session/" + p.earlierFrom + "/earlier-turns.md",
			"mimeType": "text/markdown", "text": p.earlier})
		return thread.ContentBlock{Type: "resource", Resource: res}
	}
	return thread.ContentBlock{Type: "text", Text: "\n\n" + p.earlier}
}

// forkDetails fills the fork links of one session's summary: the
// original's title and how the fork's agent got the earlier turns, and
// the sessions forked from it.
func (s *Services) forkDetails(ctx context.Context, sum *SessionSummary) {
	if f := sum.ForkedFrom; f != nil {
		if row, err := s.ix.GetSession(ctx, f.SessionID); err == nil {
			f.Title = row.Title
		}
		if bs, err := s.ix.Bindings(ctx, sum.ID); err == nil && len(bs) > 0 {
			f.How = ForkHowContext
			if bs[0].How == ForkHowFork {
				f.How = ForkHowFork
			}
		}
	}
	forks, err := s.ix.Forks(ctx, sum.ID)
	if err != nil {
		s.log.Debug("forks not read", "session", sum.ID, "err", err)
		return
	}
	for _, f := range forks {
		sum.Forks = append(sum.Forks, ForkLink{SessionID: f.ID, Title: f.Title, Turn: f.Turn})
	}
}
