package shared

import (
	"context"
	"errors"
	"fmt"
	"time"

	"mnote/app/chat"
	"mnote/collab/client"
	"mnote/collab/projection"
	"mnote/collab/roster"
	"mnote/store"
	"mnote/thread"
)

// Check is what a prompt in a shared session needs before anything
// reaches the agent: the control plane (invariant 9), a role that runs
// turns, no member whose changed keys wait to be accepted. The caller
// refuses the prompt with the error, so the page keeps it.
func (s *Service) Check(ctx context.Context, id string) error {
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	r, err := c.Role(ctx, id)
	if err != nil {
		return err
	}
	if r != roster.Owner && r != roster.Editor {
		return fail(CodeForbidden, ReasonRoleRefused, fmt.Errorf("%s: %w (%s)", id, client.ErrRole, r), "role", string(r))
	}
	ms, err := c.Members(ctx, id)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.KeysChanged && m.Account != c.Account() {
			return fail(CodeForbidden, ReasonKeyChanged, fmt.Errorf("the devices of %s changed", m.Account), "account", m.Account)
		}
	}
	return nil
}

// Turn is this machine's run in a shared session: it holds the lease and
// sends the projection of its agent's updates.
type Turn struct {
	s    *Service
	id   string
	run  *client.Run
	proj *client.Projector

	// Mode and Context: how this machine's agent gets the conversation
	// (client.ContextFor) and the text given after the prompt.
	Mode, Context string
}

// Share is what the actor chooses that members see of a turn beyond the
// projection's minimum (sessions.prompt "share"): its thoughts, and a
// summary of each tool call (projection.Summary: the files it touched and
// a diff's line counts, cleaned as every text that leaves). Tool input
// and output, and the contents of notes, never leave this machine.
type Share struct {
	Thoughts      bool `json:"thoughts,omitempty"`
	ToolSummaries bool `json:"toolSummaries,omitempty"`
}

// TurnArgs are a turn's prompt in a shared session.
type TurnArgs struct {
	// Text is the prompt as typed.
	Text string
	// Held: this machine's agent holds the session (loaded or resumed).
	Held bool
	// Mentions are the notes the prompt carries (their names only are
	// shared).
	Mentions []string
	// Turn is the turn's number in the transcript's thread: the run is
	// linked to it there (store.KindSharedRun), so that the window shows
	// this machine's runs from their full entries. 0 links nothing.
	Turn int
	// Root is the folder the agent works in (tool summaries name files
	// relative to it).
	Root  string
	Share Share
}

// BeginTurn brings the transcript up to date with the log, waits for the
// session's lease (the page is told the queue position) and appends the
// prompt.
func (s *Service) BeginTurn(ctx context.Context, id string, a TurnArgs) (*Turn, error) {
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.pull(ctx, c, id); err != nil {
		return nil, err
	}
	s.startFollow(id)
	entries, _, err := s.localEntries(id)
	if err != nil {
		return nil, err
	}
	text := a.Text
	opt := projection.Options{Thoughts: a.Share.Thoughts}
	if a.Share.ToolSummaries {
		opt.Summary = projection.Summary(a.Root)
	}
	if s.cfg.Clean != nil {
		if opt.Clean, err = s.cfg.Clean(); err != nil {
			return nil, err
		}
		text = opt.Clean(text)
	}
	t := &Turn{s: s, id: id}
	t.Mode, t.Context = client.ContextFor(entries, a.Held, c.Device().DeviceID)
	turn := 1
	for _, o := range entries {
		if o.Kind == projection.KindPrompt {
			turn++
		}
	}
	run, err := c.StartRun(ctx, id, projection.Prompt(turn, text, mentionNames(a.Mentions)), client.RunEvents{
		Queued:  func(p int) { s.emit(Event{SessionID: id, Type: EvQueued, Position: p}) },
		Granted: func() { s.emit(Event{SessionID: id, Type: EvGranted}) },
	})
	if err != nil {
		return nil, err
	}
	t.run = run
	t.proj = client.NewProjector(run, opt)
	if a.Turn > 0 {
		s.linkRun(id, run.ID, a.Turn)
	}
	return t, nil
}

// linkRun records which of the transcript's turns the run is and tells
// the page. A link not recorded only means the window shows the run as
// the members do.
func (s *Service) linkRun(id, runID string, turn int) {
	err := s.cfg.Record(id, func(w *store.Writer) error {
		if err := store.AppendSharedRun(w, runID, turn); err != nil {
			return err
		}
		return w.Flush()
	})
	if err != nil {
		s.log.Warn("shared run not linked to its turn", "session", id, "err", err)
		return
	}
	s.emit(Event{SessionID: id, Type: EvRun, Run: &RunLink{RunID: runID, Turn: turn}})
}

// Blocks are the prompt's content blocks with the conversation's context
// after them.
func (t *Turn) Blocks(blocks []thread.ContentBlock) []thread.ContentBlock {
	if t.Context == "" {
		return blocks
	}
	return append(blocks, thread.ContentBlock{Type: "text", Text: "\n\n" + t.Context})
}

// Event feeds the projection from the agent's updates (a chat.Observer's).
func (t *Turn) Event(ev *chat.Event) {
	if ev.Type != chat.EvUpdate || ev.Update == nil {
		return
	}
	t.proj.Update(ev.Update)
}

// Watch cancels the turn (cancel) once the run cannot be shared any more
// (a control-plane failure): never a silent local-only turn.
func (t *Turn) Watch(ctx context.Context, cancel context.CancelFunc) { t.run.Watch(ctx, cancel) }

// Err is the run's control-plane failure, if any.
func (t *Turn) Err() error { return t.run.Err() }

// Finish ends the run in the log (a cancelled turn too) and gives the
// lease back.
func (t *Turn) Finish(failed bool) error {
	status := client.RunEnded
	if failed || t.run.Err() != nil {
		status = client.RunFailed
	}
	t.proj.Flush()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := t.run.Finish(ctx, status)
	if rerr := t.run.Err(); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return errors.Join(errors.New("the turn was not shared completely"), err)
	}
	return nil
}
