package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"mnote/app/chat"
	"mnote/cloudsync"
	"mnote/collab/client"
	"mnote/collab/projection"
	"mnote/internal/l10n"
	"mnote/store"
	"mnote/thread"
)

// resolveSharedID is a session id from a full id or a unique prefix of a
// session this machine has, else the id as given (a shared session a
// member has not fetched yet).
func (st *sessionStore) resolveSharedID(id string) (string, error) {
	full, err := st.resolveID(id)
	if err == nil {
		return full, nil
	}
	if strings.Contains(err.Error(), "matches") {
		return "", err
	}
	return id, nil
}

// pullShared records the shared log's entries after those the session's
// transcript holds, by seq; a member's first time makes the transcript
// (workspace: the folder the member's own agent works in).
func (e *env) pullShared(ctx context.Context, c *client.Client, st *sessionStore, id, workspace string) error {
	path := st.transcriptPath(id)
	head, err := store.SharedHead(path)
	if err != nil {
		return err
	}
	opened, err := c.Fetch(ctx, id, head)
	if err != nil {
		return err
	}
	// Entries recorded before this device had their epoch's key, opened
	// now that it came (client.Reopen).
	var again []client.Opened
	if head > 0 {
		if recs, rerr := store.ReadSharedEntries(path); rerr == nil {
			if again, rerr = c.Reopen(ctx, id, client.FromRecords(recs)); rerr != nil {
				e.warn("session %s: entries not opened again: %v", id, rerr)
			}
		}
	}
	_, statErr := os.Stat(path)
	if len(opened) == 0 && len(again) == 0 && statErr == nil {
		return nil
	}
	var w *store.Writer
	if errors.Is(statErr, fs.ErrNotExist) {
		if w, err = store.CreateTranscript(path, store.WriterOptions{}); err != nil {
			return err
		}
		title := ""
		for _, o := range opened {
			if o.Kind == projection.KindPrompt && o.Unreadable == "" {
				title = chat.TitleFromPrompt(o.Entry.Text)
				break
			}
		}
		if _, err := w.AppendJSON(store.DirApp, store.KindSession, store.SessionRecord{ID: id, Title: title, Workspace: workspace, CreatedMs: time.Now().UnixMilli()}); err != nil {
			w.Close()
			return err
		}
	} else if w, err = store.OpenTranscript(path, store.WriterOptions{}); err != nil {
		return err
	}
	if _, err := store.AppendSharedEntries(w, head, client.Records(opened)); err != nil {
		w.Close()
		return err
	}
	if err := store.AppendReopened(w, client.Records(again)); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// sharedTurn is a prompt's run in a shared session.
type sharedTurn struct {
	e  *env
	c  *client.Client
	st *sessionStore
	id string
	ws string // the folder this machine's agent works in
	// thoughts: the members see this turn's thoughts too (the actor's
	// choice: --share-thoughts); summaries: a summary of each tool call
	// (--share-tool-summaries, projection.Summary).
	thoughts, summaries bool
	entries             []client.Opened
	run                 *client.Run

	mu   sync.Mutex
	proj *client.Projector
}

// openSharedTurn says whether session is a shared one and, if so, brings
// its transcript up to date with the log (nil when it is not shared). A
// shared session needs the control plane: without it the run fails
// before anything is sent (invariant 9).
func (e *env) openSharedTurn(ctx context.Context, st *sessionStore, session, cwd string) (*sharedTurn, error) {
	id, err := st.resolveSharedID(session)
	if err != nil {
		return nil, err
	}
	path := st.transcriptPath(id)
	recs, err := store.ReadSharedEntries(path)
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(path)
	local := statErr == nil
	if local && len(recs) == 0 && !client.KnownSession(e.collabDir(), id) {
		return nil, nil // a private session
	}
	var c *client.Client
	var serr error
	func() {
		s, err := cloudsync.Open(cloudsync.Options{Paths: e.paths, Logger: e.log, Manual: true})
		if err != nil {
			serr = err
			return
		}
		defer s.Close()
		c, serr = e.openCollab(ctx, s)
	}()
	if serr != nil {
		if !local {
			return nil, nil // no such session here, and none to ask about: continuePrior says so
		}
		return nil, &sharedRunError{serr}
	}
	if !local {
		if ok, err := c.Shared(ctx, id); err != nil {
			return nil, &sharedRunError{err}
		} else if !ok {
			return nil, nil
		}
	}
	abs, err := absDir(cwd)
	if err != nil {
		return nil, err
	}
	if err := e.pullShared(ctx, c, st, id, abs); err != nil {
		return nil, &sharedRunError{err}
	}
	if recs, err = store.ReadSharedEntries(path); err != nil {
		return nil, err
	}
	return &sharedTurn{e: e, c: c, st: st, id: id, ws: abs, entries: client.FromRecords(recs)}, nil
}

// sharedRunError is a shared run that could not start: the control plane
// is needed and was not there, or refused it.
type sharedRunError struct{ err error }

func (s *sharedRunError) Error() string { return s.err.Error() }
func (s *sharedRunError) Unwrap() error { return s.err }

// explain words a shared run's failure for the person.
func (t *sharedTurn) explain(err error) error {
	loc := l10n.FromEnv()
	if errors.Is(err, client.ErrRole) {
		return errors.New(loc.T("cli.collab_role_refused", t.id))
	}
	return explainSharedRun(err)
}

func explainSharedRun(err error) error {
	loc := l10n.FromEnv()
	if errors.Is(err, client.ErrRole) {
		return errors.New(loc.T("cli.collab_role_refused", "?"))
	}
	return fmt.Errorf("%s", loc.T("cli.collab_run_failed", err.Error()))
}

// start takes the session's turn: the context the member's agent gets
// (held: its agent continues its own session), the lease, the prompt.
func (t *sharedTurn) start(ctx context.Context, typed string, held bool, queued func(int)) (mode, context string, err error) {
	mode, context = client.ContextFor(t.entries, held, t.c.Device().DeviceID)
	turn := 1
	for _, o := range t.entries {
		if o.Kind == projection.KindPrompt {
			turn++
		}
	}
	// What leaves for the members has the secrets mnote knows and local
	// paths hidden, as a share has.
	r, err := t.e.redactor(t.ws)
	if err != nil {
		return "", "", err
	}
	opt := projection.Options{Clean: r.String, Thoughts: t.thoughts}
	if t.summaries {
		opt.Summary = projection.Summary(t.ws)
	}
	t.run, err = t.c.StartRun(ctx, t.id, projection.Prompt(turn, r.String(typed), nil), client.RunEvents{Queued: queued})
	if err != nil {
		return "", "", t.explain(err)
	}
	t.mu.Lock()
	t.proj = client.NewProjector(t.run, opt)
	t.mu.Unlock()
	return mode, context, nil
}

// observer feeds the run's projection from the agent's updates.
func (t *sharedTurn) observer(inner chat.Observer) chat.Observer {
	return chat.ObserverFunc(func(ev *chat.Event) {
		if ev.Type == chat.EvUpdate && ev.Update != nil {
			t.mu.Lock()
			p := t.proj
			t.mu.Unlock()
			if p != nil {
				p.Update(ev.Update)
			}
		}
		inner.Event(ev)
	})
}

// finish ends the run in the log.
func (t *sharedTurn) finish(ctx context.Context, failed bool) error {
	if t.run == nil {
		return nil
	}
	status := client.RunEnded
	if failed {
		status = client.RunFailed
	}
	t.mu.Lock()
	p := t.proj
	t.mu.Unlock()
	if p != nil {
		p.Flush()
	}
	// A cancelled turn (Ctrl+C) still ends in the log.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if err := t.run.Finish(ctx, status); err != nil {
		return errors.New(l10n.FromEnv().T("cli.collab_share_incomplete", err.Error()))
	}
	return nil
}

// close records the log, this turn included, in the transcript (after
// the session let go of it).
func (t *sharedTurn) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := t.e.pullShared(ctx, t.c, t.st, t.id, ""); err != nil {
		t.e.warn("session %s: the shared log was not recorded here: %v", t.id, err)
	}
}

// promptBlocks are the prompt as the member's agent gets it: the typed
// text, then the conversation's context.
func promptBlocks(text, context string) []thread.ContentBlock {
	blocks := chat.TextPrompt(text)
	if context != "" {
		blocks = append(blocks, thread.ContentBlock{Type: "text", Text: "\n\n" + context})
	}
	return blocks
}

// showShared prints a shared session's log with each turn's actor; it
// reports false for a session that is not shared. With sync on the log
// is fetched first; offline, what this machine has is shown.
func (e *env) showShared(st *sessionStore, session string, asJSON, follow bool) (int, bool) {
	id, err := st.resolveSharedID(session)
	if err != nil {
		return e.fail(exitUsage, err), true
	}
	path := st.transcriptPath(id)
	_, statErr := os.Stat(path)
	loc := l10n.FromEnv()
	if client.KnownSession(e.collabDir(), id) || statErr != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if s, err := cloudsync.Open(cloudsync.Options{Paths: e.paths, Logger: e.log, Manual: true}); err == nil {
			if c, err := e.openCollab(ctx, s); err == nil {
				if ok, _ := c.Shared(ctx, id); ok || statErr == nil {
					cwd, _ := os.Getwd()
					if err := e.pullShared(ctx, c, st, id, cwd); err != nil {
						e.warn("%s", loc.T("cli.collab_offline", err.Error()))
					}
				}
			} else if statErr == nil && !errors.Is(err, cloudsync.ErrDisabled) && !errors.Is(err, cloudsync.ErrNotConfigured) {
				e.warn("%s", loc.T("cli.collab_offline", err.Error()))
			}
			s.Close()
		}
	}
	recs, err := store.ReadSharedEntries(path)
	if err != nil {
		return e.fail(exitAgent, err), true
	}
	if len(recs) == 0 {
		return 0, false
	}
	entries := client.FromRecords(recs)
	if follow {
		return e.followShared(st, id, entries, asJSON), true
	}
	if asJSON {
		return e.printJSON(map[string]any{"id": id, "shared": entries}), true
	}
	w := newTermWriter(e.stdout)
	writeShared(w, loc, id, entries)
	if err := w.Flush(); err != nil {
		return e.fail(exitAgent, err), true
	}
	return exitOK, true
}

// followShared prints the log, then follows the live stream until
// Ctrl+C: each new entry printed (a JSON line with --json) and recorded
// in the transcript by seq.
func (e *env) followShared(st *sessionStore, id string, entries []client.Opened, asJSON bool) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	loc := l10n.FromEnv()
	s, err := cloudsync.Open(cloudsync.Options{Paths: e.paths, Logger: e.log, Manual: true})
	if err != nil {
		return e.fail(exitUsage, err)
	}
	defer s.Close()
	c, err := e.openCollab(ctx, s)
	if err != nil {
		return e.collabFail(exitUsage, err)
	}
	w := newTermWriter(e.stdout)
	p := &sharedPrinter{w: w, loc: loc}
	enc := json.NewEncoder(e.stdout)
	var head int64
	for _, o := range entries {
		head = o.Seq
		if asJSON {
			enc.Encode(o) //nolint:errcheck // stdout
		} else {
			p.entry(o)
		}
	}
	if !asJSON {
		fmt.Fprintf(w, "\n")
		w.Flush()
		e.say(loc.T("cli.collab_following"))
	}
	tw, err := store.OpenTranscript(st.transcriptPath(id), store.WriterOptions{})
	if err != nil {
		tw = nil // busy (a turn runs here): print without recording
		e.log.Debug("following without recording", "err", err)
	} else {
		defer tw.Close()
	}
	err = c.Follow(ctx, id, head, client.LiveEvents{
		Entry: func(o client.Opened) error {
			if tw != nil {
				if _, err := store.AppendSharedEntries(tw, head, client.Records([]client.Opened{o})); err != nil {
					return err
				}
			}
			head = o.Seq
			if asJSON {
				return enc.Encode(o)
			}
			p.entry(o)
			return w.Flush()
		},
	})
	p.end()
	w.Flush()
	if err != nil && ctx.Err() == nil {
		return e.collabFail(exitAgent, err)
	}
	return exitOK
}

// writeShared writes a shared log as a person reads it.
func writeShared(w io.Writer, loc l10n.Locale, id string, entries []client.Opened) {
	fmt.Fprintf(w, "# %s\n", id)
	p := &sharedPrinter{w: w, loc: loc}
	for _, o := range latestTools(entries) {
		p.entry(o)
	}
	p.end()
}

// latestTools keeps a tool call once, at its first place, with its last
// state (as the window shows it): a run appends each state it reached.
func latestTools(entries []client.Opened) []client.Opened {
	out := make([]client.Opened, 0, len(entries))
	at := map[string]int{}
	for _, o := range entries {
		if o.Unreadable == "" && o.Entry.Kind == projection.KindTool && o.Entry.Tool != nil {
			key := fmt.Sprintf("%d\x00%s\x00%s", o.Entry.Turn, o.Actor, o.Entry.Tool.ToolCallID)
			if i, ok := at[key]; ok {
				out[i] = o
				continue
			}
			at[key] = len(out)
		}
		out = append(out, o)
	}
	return out
}

// sharedPrinter writes shared entries one at a time: an answer's appends
// run on as one text.
type sharedPrinter struct {
	w        io.Writer
	loc      l10n.Locale
	inAnswer bool
}

func (p *sharedPrinter) end() {
	if p.inAnswer {
		fmt.Fprint(p.w, "\n")
		p.inAnswer = false
	}
}

func (p *sharedPrinter) entry(o client.Opened) {
	w, loc := p.w, p.loc
	if o.Unreadable != "" {
		p.end()
		fmt.Fprintf(w, "\n%s\n", loc.T("cli.collab_unreadable", o.Seq, termLine(o.Actor), loc.T("cli.collab_why_"+whyKey(o.Unreadable))))
		return
	}
	en := o.Entry
	switch en.Kind {
	case projection.KindPrompt:
		p.end()
		fmt.Fprintf(w, "\n%s\n\n%s\n", loc.T("cli.collab_turn_heading", en.Turn, termLine(o.Actor)), en.Text)
		if len(en.Mentions) > 0 {
			fmt.Fprintf(w, "@%s\n", strings.Join(en.Mentions, " @"))
		}
	case projection.KindAnswer, projection.KindThought:
		if !p.inAnswer {
			fmt.Fprint(w, "\n")
			p.inAnswer = true
		}
		fmt.Fprint(w, en.Text)
	case projection.KindTool:
		p.end()
		if en.Tool != nil {
			fmt.Fprintf(w, "%s\n", loc.T("cli.collab_tool", loc.ToolKind(en.Tool.Kind), termLine(en.Tool.Title), loc.ToolStatus(en.Tool.Status)))
			if en.Tool.Summary != "" {
				fmt.Fprintf(w, "    %s\n", termLine(en.Tool.Summary))
			}
		}
	case projection.KindPlan:
		p.end()
		for _, it := range en.Plan {
			fmt.Fprintf(w, "- [%s] %s\n", it.Status, termLine(it.Content))
		}
	case projection.KindComment:
		p.end()
		fmt.Fprintf(w, "\n%s\n", loc.T("cli.collab_comment", en.Text, termLine(o.Actor)))
	default: // a run's status
		p.end()
		fmt.Fprintf(w, "%s\n", loc.T("cli.collab_run_status", loc.T("cli.collab_status_"+statusKey(en.Text))))
	}
}

func whyKey(code string) string {
	switch code {
	case client.UnreadableNoKey, client.UnreadableAuthor, client.UnreadableTampered, client.UnreadableRole:
		return code
	}
	return client.UnreadableContent
}

func statusKey(s string) string {
	if s == client.RunFailed {
		return s
	}
	return client.RunEnded
}

// sharedRoles are this account's roles in the shared sessions it is a
// member of, and those sessions, when sync is on and this machine has
// used shared sessions (nil otherwise: no connection is made).
func (e *env) sharedRoles() map[string]sharedRow {
	if _, err := os.Stat(e.collabDir()); err != nil {
		return nil
	}
	s, err := cloudsync.Open(cloudsync.Options{Paths: e.paths, Logger: e.log, Manual: true})
	if err != nil {
		return nil
	}
	defer s.Close()
	ac, err := s.Client()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := ac.SharedSessions(ctx)
	if err != nil {
		e.warn("%s", l10n.FromEnv().T("cli.collab_offline", err.Error()))
		return nil
	}
	out := map[string]sharedRow{}
	for _, sh := range list {
		out[sh.Session.ID] = sharedRow{role: sh.Role, owner: sh.Owner, title: sh.Session.Title, updated: sh.Session.UpdatedAt.UnixMilli()}
	}
	return out
}

type sharedRow struct {
	role, owner, title string
	updated            int64
}
