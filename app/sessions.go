package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mnote/acp"
	"mnote/app/chat"
	"mnote/app/shared"
	"mnote/store"
	"mnote/thread"
)

// SessionSummary is one session in lists (API.md "SessionSummary").
type SessionSummary struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	Workspace      string `json:"workspace"`
	Agent          string `json:"agent"`
	CreatedMs      int64  `json:"createdMs"`
	UpdatedMs      int64  `json:"updatedMs"`
	Status         string `json:"status"`
	Turns          int    `json:"turns"`
	LastStopReason string `json:"lastStopReason"`
	Live           bool   `json:"live"`
	// ForkedFrom: the session and turn this one was forked from (an
	// edited prompt, fork.go); Forks: the sessions forked from this one
	// (filled where one session is shown, not in sessions.list).
	ForkedFrom *ForkOrigin `json:"forkedFrom,omitempty"`
	Forks      []ForkLink  `json:"forks,omitempty"`
	// Images: the session's running agent takes images in prompts (ACP
	// promptCapabilities.image); absent while no agent runs (images.go).
	Images *bool `json:"images,omitempty"`
}

// Snapshot is a session's whole state (API.md "Snapshot"): events with a
// seq above Seq follow it.
type Snapshot struct {
	Session SessionSummary      `json:"session"`
	Seq     uint64              `json:"seq"`
	Thread  thread.Snapshot     `json:"thread"`
	Pending []PermissionRequest `json:"pending"`
	// Questions are the agent's elicitations waiting for the user.
	Questions []ElicitationRequest `json:"questions,omitempty"`
	Running   bool                 `json:"running"`
	// Earlier is how many entries come before Thread.Entries (a call
	// with limit or before, sessions.open).
	Earlier int `json:"earlier,omitempty"`
}

// Hit is one search result (API.md "Hit").
type Hit struct {
	SessionID string   `json:"sessionId"`
	Title     string   `json:"title"`
	Turn      int      `json:"turn"`
	Role      string   `json:"role"`
	Entry     string   `json:"entry"`
	Entries   []string `json:"entries"`
	Snippet   string   `json:"snippet"`
	// ForkedFrom: the session the hit's session was forked from (its
	// sessionId and title).
	ForkedFrom *ForkOrigin `json:"forkedFrom,omitempty"`
}

// TurnStarted is the result of sessions.prompt.
type TurnStarted struct {
	Turn int `json:"turn"`
}

// validID refuses ids that could name another file.
func validID(id string) *Error {
	if id == "" || len(id) > 100 {
		return badRequest("a session id is required")
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_') {
			return badRequest("%q is not a session id", id)
		}
	}
	return nil
}

func summaryFromRow(r store.SessionRow) SessionSummary {
	sum := SessionSummary{ID: r.ID, Title: r.Title, Workspace: r.Workspace, Agent: r.Runtime, CreatedMs: r.CreatedMs,
		UpdatedMs: r.UpdatedMs, Status: r.Status, Turns: r.Turns, LastStopReason: r.LastStopReason}
	if r.ForkedFrom != "" {
		sum.ForkedFrom = &ForkOrigin{SessionID: r.ForkedFrom, Turn: r.ForkedTurn}
	}
	return sum
}

// overlay puts what the live session knows over the index's row.
func (s *Services) overlay(sum *SessionSummary) {
	l := s.liveOf(sum.ID)
	if l == nil {
		if sum.Status == StatusRunning || sum.Status == StatusReady {
			// Its agent is not running in this process.
			sum.Status = StatusExited
		}
		return
	}
	sum.Live = true
	sum.Status = l.statusNow()
	if t := l.titleNow(); t != "" {
		sum.Title = t
	}
	l.mu.Lock()
	if l.runtime != "" {
		sum.Agent = l.runtime
	}
	l.mu.Unlock()
	sum.Images = l.imagesTaken()
	if n := l.sess.Turns(); n > sum.Turns {
		sum.Turns = n
	}
}

// SessionsChanged is the sessions:changed payload (API.md): the summaries
// of sessions that changed or appeared, and the ids of those that went.
type SessionsChanged struct {
	Changed []SessionSummary `json:"changed,omitempty"`
	Removed []string         `json:"removed,omitempty"`
}

// changedPayload is sessions:changed for the given sessions.
func (s *Services) changedPayload(ids ...string) SessionsChanged {
	var out SessionsChanged
	for _, id := range ids {
		// One index read gives both the synced record and the summary.
		if row, err := s.ix.GetSession(context.Background(), id); err == nil {
			s.enqueueSync(&row, "")
			sum := summaryFromRow(row)
			s.overlay(&sum)
			s.forkDetails(context.Background(), &sum)
			out.Changed = append(out.Changed, sum)
			continue
		}
		sum, e := s.summary(context.Background(), id)
		if e != nil {
			if e.Code == CodeNotFound {
				out.Removed = append(out.Removed, id)
				s.enqueueSync(nil, id)
				continue
			}
			s.log.Debug("session summary for sessions:changed", "session", id, "err", e)
			continue
		}
		out.Changed = append(out.Changed, sum)
	}
	return out
}

// emitChanged emits sessions:changed for the given sessions.
func (s *Services) emitChanged(ids ...string) {
	s.emit(EventSessionsChanged, s.changedPayload(ids...))
}

// summary returns one session's summary.
func (s *Services) summary(ctx context.Context, id string) (SessionSummary, *Error) {
	row, err := s.ix.GetSession(ctx, id)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			return SessionSummary{}, errorFrom("read session "+id, err)
		}
		// Not indexed (yet): what its transcript says.
		_, info, _, lerr := store.LoadThread(s.paths.TranscriptPath(id))
		if lerr != nil {
			return SessionSummary{}, notFound(id, lerr)
		}
		row = store.SessionRow{ID: id, Title: info.Title, Workspace: info.Workspace, Runtime: info.Runtime,
			CreatedMs: info.CreatedMs, UpdatedMs: info.UpdatedMs, Status: info.Status, Turns: info.Turns,
			LastStopReason: info.LastStopReason, ForkedFrom: info.ForkedFrom.SessionID, ForkedTurn: info.ForkedFrom.Turn}
	}
	sum := summaryFromRow(row)
	s.overlay(&sum)
	s.forkDetails(ctx, &sum)
	return sum, nil
}

type listArgs struct {
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

func (s *Services) sessionsList(ctx context.Context, a listArgs) (any, *Error) {
	if a.Limit < 0 || a.Offset < 0 {
		return nil, badRequest("limit and offset cannot be negative")
	}
	rows, err := s.ix.ListSessions(ctx, store.ListOptions{Limit: a.Limit, Offset: a.Offset})
	if err != nil {
		return nil, errorFrom("list sessions", err)
	}
	out := make([]SessionSummary, 0, len(rows))
	var origins []string
	for _, r := range rows {
		sum := summaryFromRow(r)
		s.overlay(&sum)
		out = append(out, sum)
		if r.ForkedFrom != "" {
			origins = append(origins, r.ForkedFrom)
		}
	}
	if len(origins) > 0 {
		// A fork's origin's title, for the list's fork mark.
		titles, err := s.ix.Titles(ctx, origins)
		if err != nil {
			return nil, errorFrom("list sessions", err)
		}
		for i := range out {
			if f := out[i].ForkedFrom; f != nil {
				f.Title = titles[f.SessionID]
			}
		}
	}
	return out, nil
}

type createArgs struct {
	Agent string `json:"agent"`
	Cwd   string `json:"cwd"`
}

func (s *Services) sessionsCreate(ctx context.Context, a createArgs) (any, *Error) {
	cwd := a.Cwd
	if cwd == "" {
		cwd = s.defaultCwd()
	}
	cwd, e := workspaceDir(cwd)
	if e != nil {
		return nil, e
	}
	l, e := s.createLive(ctx, a.Agent, cwd)
	if e != nil {
		return nil, e
	}
	s.emitChanged(l.id)
	return s.summary(ctx, l.id)
}

// workspaceDir checks a session folder.
func workspaceDir(dir string) (string, *Error) {
	if strings.TrimSpace(dir) == "" {
		return "", badRequest("which folder? give cwd").why(ReasonFolderRequired)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", badRequest("folder %s: %w", dir, err).why(ReasonFolderNotFound, "path", dir)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", badRequest("folder %s: %w", abs, err).why(ReasonFolderNotFound, "path", abs)
	}
	if !st.IsDir() {
		return "", badRequest("%s is not a folder", abs).why(ReasonNotAFolder, "path", abs)
	}
	return abs, nil
}

type idArgs struct {
	ID string `json:"id"`
}

// snapshotWait bounds how long sessions.open waits for the event goroutine.
const snapshotWait = 10 * time.Second

func (s *Services) sessionsOpen(ctx context.Context, a openArgs) (any, *Error) {
	if e := a.check(); e != nil {
		return nil, e
	}
	if l := s.liveOf(a.ID); l != nil {
		var snap thread.Snapshot
		var pos chan streamPos
		l.sess.Thread(func(th *thread.Thread) {
			snap = th.Snapshot()
			pos = l.pump.marker()
		})
		t := time.NewTimer(snapshotWait)
		defer t.Stop()
		var p streamPos
		select {
		case p = <-pos:
		case <-ctx.Done():
			return nil, errorFrom("open session", ctx.Err())
		case <-t.C:
			return nil, &Error{Code: CodeBusy, Reason: ReasonSessionBackedUp, Message: "the session's events are backed up; try again"}
		}
		sum, e := s.summary(ctx, a.ID)
		if e != nil {
			return nil, e
		}
		if p.pending == nil {
			p.pending = []PermissionRequest{}
		}
		out := Snapshot{Session: sum, Seq: p.seq, Thread: snap, Pending: p.pending, Questions: p.questions, Running: p.running}
		if a.paged() {
			if e := pageLive(&out, a); e != nil {
				return nil, e
			}
		}
		return out, nil
	}
	var raw json.RawMessage
	earlier := 0
	if a.paged() {
		var e *Error
		if raw, earlier, e = s.pastPage(a.ID, a); e != nil {
			return nil, e
		}
	} else {
		var err error
		if raw, err = s.pastThread(a.ID); err != nil {
			return nil, pastErr(a.ID, err)
		}
	}
	sum, e := s.summary(ctx, a.ID)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	seq := s.seqs[a.ID]
	s.mu.Unlock()
	// The thread's JSON (megabytes for a long session) goes out as it
	// is: neither decoded nor checked again.
	head, err := json.Marshal(struct {
		Session SessionSummary      `json:"session"`
		Seq     uint64              `json:"seq"`
		Pending []PermissionRequest `json:"pending"`
		Running bool                `json:"running"`
		Earlier int                 `json:"earlier,omitempty"`
	}{sum, seq, []PermissionRequest{}, false, earlier})
	if err != nil {
		return nil, errorFrom("encode session "+a.ID, err)
	}
	out := make(Encoded, 0, len(head)+len(raw)+16)
	out = append(out, head[:len(head)-1]...)
	out = append(out, `,"thread":`...)
	out = append(out, raw...)
	return append(out, '}'), nil
}

// pastErr is the error for a past thread that could not be read.
func pastErr(id string, err error) *Error {
	if errors.Is(err, fs.ErrNotExist) {
		return notFound(id, err)
	}
	return errorFrom("read session "+id, err)
}

// pastThread is the snapshot JSON of a session that is not live: from the
// thread cache while it matches the transcript, else replayed from the
// transcript (and cached for the next time).
func (s *Services) pastThread(id string) (json.RawMessage, error) {
	path := s.paths.TranscriptPath(id)
	stamp, err := store.StampOf(path)
	if err != nil {
		return nil, err
	}
	cache := s.paths.ThreadCachePath(id)
	if raw, ok := store.ReadThreadCache(cache, stamp); ok {
		return raw, nil
	}
	th, _, _, err := store.LoadThread(path)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(th.Snapshot())
	if err != nil {
		return nil, err
	}
	// Cache it only if nothing was appended meanwhile (another mnote
	// process continuing the session).
	if now, err := store.StampOf(path); err == nil && now == stamp {
		if err := store.WriteThreadCache(cache, stamp, raw); err != nil {
			s.log.Debug("thread cache not written", "session", id, "err", err)
		}
	}
	return raw, nil
}

// cacheThread caches the thread of a session that was just closed, so the
// next open (after a restart too) does not replay its transcript.
func (s *Services) cacheThread(id string, snap thread.Snapshot) {
	stamp, err := store.StampOf(s.paths.TranscriptPath(id))
	if err != nil {
		return
	}
	for i := range snap.Entries {
		snap.Entries[i].Streaming = false // closed: nothing streams any more
	}
	raw, err := json.Marshal(snap)
	if err == nil {
		err = store.WriteThreadCache(s.paths.ThreadCachePath(id), stamp, raw)
	}
	if err != nil {
		s.log.Debug("thread cache not written", "session", id, "err", err)
	}
}

type promptArgs struct {
	ID       string         `json:"id"`
	Text     string         `json:"text"`
	Context  *PromptContext `json:"context"`
	Mentions []string       `json:"mentions"`
	Images   []ImageArg     `json:"images"` // images.go
	// Share: in a shared session, what members see of this turn beyond
	// the projection's minimum (thoughts, tool summaries).
	Share *shared.Share `json:"share"`
}

func (s *Services) sessionsPrompt(ctx context.Context, a promptArgs) (any, *Error) {
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	if strings.TrimSpace(a.Text) == "" && len(a.Images) == 0 {
		return nil, badRequest("the prompt is empty").why(ReasonPromptEmpty)
	}
	parts, e := s.readParts(a.Context, a.Mentions)
	if e != nil {
		return nil, e
	}
	if parts, e = withImages(parts, a.Images); e != nil {
		return nil, e
	}
	if a.Share != nil && (a.Share.Thoughts || a.Share.ToolSummaries) {
		if parts == nil {
			parts = &promptParts{}
		}
		parts.share = *a.Share
	}
	if s.shared != nil && s.shared.IsShared(a.ID) {
		// A shared session's turn needs the control plane and a role
		// that runs turns: refused here, the page keeps the prompt.
		if err := s.shared.Check(ctx, a.ID); err != nil {
			return nil, sharedError(err)
		}
	}
	l, e := s.openLive(ctx, a.ID)
	if e != nil {
		return nil, e
	}
	if e := l.checkImages(parts); e != nil {
		return nil, e
	}
	turn, e := l.startTurn(a.Text, parts)
	if e != nil {
		return nil, e
	}
	return TurnStarted{Turn: turn}, nil
}

func (s *Services) sessionsCancel(_ context.Context, a idArgs) (any, *Error) {
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	if l := s.liveOf(a.ID); l != nil {
		l.cancel()
	}
	return nil, nil
}

type killTerminalArgs struct {
	ID         string `json:"id"`
	TerminalID string `json:"terminalId"`
}

// sessionsKillTerminal kills the command of one of the agent's terminals
// (the card's Stop): the agent sees it exit with SIGKILL.
func (s *Services) sessionsKillTerminal(_ context.Context, a killTerminalArgs) (any, *Error) {
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	l := s.liveOf(a.ID)
	if l == nil {
		return nil, &Error{Code: CodeNotFound, Reason: ReasonSessionNotRunning, Message: "the session is not running"}
	}
	if err := l.sess.KillTerminal(a.TerminalID); err != nil {
		return nil, &Error{Code: CodeNotFound, Reason: ReasonTerminalNotFound, Message: err.Error(), cause: err}
	}
	return nil, nil
}

func (s *Services) sessionsClose(_ context.Context, a idArgs) (any, *Error) {
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	if l := s.liveOf(a.ID); l != nil {
		s.closeLive(l)
		s.emitChanged(a.ID)
	}
	if s.shared != nil {
		s.shared.StopFollow(a.ID) // its tab closed: no live stream, no presence
	}
	return nil, nil
}

type renameArgs struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

func (s *Services) sessionsRename(ctx context.Context, a renameArgs) (any, *Error) {
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	title := strings.TrimSpace(a.Title)
	if title == "" {
		return nil, badRequest("the title is empty").why(ReasonTitleEmpty)
	}
	if l := s.liveOf(a.ID); l != nil {
		if err := l.sess.SetTitle(title); err != nil {
			return nil, newError(CodeWriteFailed, "%w", err).why(ReasonTranscriptWriteFailed)
		}
		l.mu.Lock()
		l.title = title
		l.mu.Unlock()
	} else {
		path := s.paths.TranscriptPath(a.ID)
		if _, err := os.Stat(path); err != nil {
			return nil, notFound(a.ID, err)
		}
		w, err := store.OpenTranscript(path, store.WriterOptions{})
		if err != nil {
			return nil, errorFrom("rename session "+a.ID, err)
		}
		data, _ := json.Marshal(store.TitleRecord{Title: title})
		_, err = w.AppendRecord(store.DirApp, store.KindTitle, data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, newError(CodeWriteFailed, "rename session %s: %w", a.ID, err).why(ReasonTranscriptWriteFailed)
		}
		if err := s.ix.Rename(ctx, a.ID, title); errors.Is(err, store.ErrNotFound) {
			err = s.ix.ReindexFile(ctx, path)
			if err != nil {
				s.log.Warn("session not indexed", "session", a.ID, "err", err)
			}
		} else if err != nil {
			s.log.Warn("index not renamed; the next start reindexes it", "session", a.ID, "err", err)
		}
	}
	s.emitChanged(a.ID)
	return s.summary(ctx, a.ID)
}

func (s *Services) sessionsDelete(ctx context.Context, a deleteArgs) (any, *Error) {
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	if l := s.liveOf(a.ID); l != nil {
		s.closeLive(l)
	}
	if a.AgentCopy {
		if e := s.deleteAgentCopy(ctx, a.ID); e != nil {
			return nil, e
		}
	}
	if e := s.trashSession(ctx, a.ID); e != nil {
		return nil, e
	}
	s.enqueueSync(nil, a.ID)
	s.emit(EventSessionsChanged, SessionsChanged{Removed: []string{a.ID}})
	return nil, nil
}

func (s *Services) sessionsRestore(ctx context.Context, a idArgs) (any, *Error) {
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	if err := store.RestoreFromTrash(s.paths, a.ID); err != nil {
		switch {
		case errors.Is(err, store.ErrExists):
			return nil, badRequest("session %s is not in the trash (it exists)", a.ID).why(ReasonSessionNotTrashed)
		case errors.Is(err, fs.ErrNotExist):
			return nil, &Error{Code: CodeNotFound, Reason: ReasonSessionNotInTrash, Message: fmt.Sprintf("there is no session %q in the trash", a.ID), cause: err}
		}
		return nil, errorFrom("restore session "+a.ID, err)
	}
	if err := s.ix.ReindexFile(ctx, s.paths.TranscriptPath(a.ID)); err != nil {
		s.log.Warn("restored session not indexed", "session", a.ID, "err", err)
	}
	s.emitChanged(a.ID)
	return s.summary(ctx, a.ID)
}

// TrashedSession is a deleted session in sessions.trash (API.md
// "TrashedSession"): what its transcript says, and when it was deleted.
type TrashedSession struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Workspace string `json:"workspace"`
	Agent     string `json:"agent"`
	CreatedMs int64  `json:"createdMs"`
	UpdatedMs int64  `json:"updatedMs"`
	DeletedMs int64  `json:"deletedMs"`
	Turns     int    `json:"turns"`
}

func (s *Services) sessionsTrash(_ context.Context, _ struct{}) (any, *Error) {
	list, err := store.ListTrash(s.paths)
	if err != nil {
		if len(list) == 0 {
			return nil, errorFrom("list the trash", err)
		}
		s.log.Warn("some sessions in the trash could not be read", "err", err)
	}
	out := make([]TrashedSession, 0, len(list))
	for _, t := range list {
		i := t.Info
		out = append(out, TrashedSession{ID: i.ID, Title: i.Title, Workspace: i.Workspace, Agent: i.Runtime,
			CreatedMs: i.CreatedMs, UpdatedMs: i.UpdatedMs, DeletedMs: t.DeletedMs, Turns: i.Turns})
	}
	return out, nil
}

// sessionsPurge deletes a session in the trash for good.
func (s *Services) sessionsPurge(_ context.Context, a idArgs) (any, *Error) {
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	if err := store.PurgeFromTrash(s.paths, a.ID); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Code: CodeNotFound, Reason: ReasonSessionNotInTrash, Message: fmt.Sprintf("there is no session %q in the trash", a.ID), cause: err}
		}
		return nil, errorFrom("delete session "+a.ID+" for good", err)
	}
	store.RemoveThreadCache(s.paths, a.ID)
	s.removeImages(a.ID) // images.go
	return nil, nil
}

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

func (s *Services) sessionsSearch(ctx context.Context, a searchArgs) (any, *Error) {
	hits, err := s.ix.Search(ctx, a.Query, a.Limit)
	if err != nil {
		return nil, errorFrom("search", err)
	}
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		entries := h.Entries
		if entries == nil {
			entries = []string{}
		}
		hit := Hit{SessionID: h.SessionID, Title: h.Title, Turn: h.Turn, Role: h.Role, Entry: h.Entry, Entries: entries, Snippet: h.Snippet}
		if h.ForkedFrom != "" {
			hit.ForkedFrom = &ForkOrigin{SessionID: h.ForkedFrom, Title: h.ForkedTitle}
		}
		out = append(out, hit)
	}
	return out, nil
}

// boundLive returns a live session with a running agent.
func (s *Services) boundLive(id string) (*liveSession, *Error) {
	if e := validID(id); e != nil {
		return nil, e
	}
	l := s.liveOf(id)
	if l == nil || l.agent.Load() == nil {
		return nil, badRequest("no agent is running for this session; send a prompt first").why(ReasonAgentNotRunning)
	}
	return l, nil
}

type setModeArgs struct {
	ID     string `json:"id"`
	ModeID string `json:"modeId"`
}

func (s *Services) sessionsSetMode(ctx context.Context, a setModeArgs) (any, *Error) {
	l, e := s.boundLive(a.ID)
	if e != nil {
		return nil, e
	}
	if err := l.sess.SetMode(ctx, a.ModeID); err != nil {
		return nil, agentCallError(err)
	}
	return nil, nil
}

type setConfigArgs struct {
	ID       string `json:"id"`
	ConfigID string `json:"configId"`
	Value    any    `json:"value"` // a value id, or a boolean option's bool
}

func (s *Services) sessionsSetConfigOption(ctx context.Context, a setConfigArgs) (any, *Error) {
	l, e := s.boundLive(a.ID)
	if e != nil {
		return nil, e
	}
	switch a.Value.(type) {
	case string, bool:
	default:
		return nil, badRequest("value must be a string (a value id) or a boolean")
	}
	if err := l.sess.SetConfigOption(ctx, a.ConfigID, a.Value); err != nil {
		return nil, agentCallError(err)
	}
	return nil, nil
}

type setModelArgs struct {
	ID      string `json:"id"`
	ModelID string `json:"modelId"`
}

func (s *Services) sessionsSetModel(ctx context.Context, a setModelArgs) (any, *Error) {
	l, e := s.boundLive(a.ID)
	if e != nil {
		return nil, e
	}
	if err := l.sess.SetModel(ctx, a.ModelID); err != nil {
		if errors.Is(err, chat.ErrNoModelChoice) {
			return nil, badRequest("%w", err)
		}
		return nil, agentCallError(err)
	}
	return nil, nil
}

// agentCallError classifies a failed request to a running agent: the
// agent refusing it is a bad request, anything else its failure.
func agentCallError(err error) *Error {
	var re *acp.RPCError
	if errors.As(err, &re) {
		return (&Error{Code: CodeBadRequest, Message: "the agent refused: " + re.Message, cause: err}).why(ReasonAgentRefused, "message", re.Message)
	}
	if errors.Is(err, chat.ErrNoRuntime) {
		return badRequest("%w", err).why(ReasonNoAgent)
	}
	e := errorFrom("", err)
	if e.Code == CodeInternal {
		e.Code = CodeAgentFailed
	}
	return e
}

type switchArgs struct {
	ID    string `json:"id"`
	Agent string `json:"agent"`
}

func (s *Services) sessionsSwitchAgent(ctx context.Context, a switchArgs) (any, *Error) {
	if e := validID(a.ID); e != nil {
		return nil, e
	}
	rt, e := s.runtime(a.Agent)
	if e != nil {
		return nil, e
	}
	l, e := s.openLive(ctx, a.ID)
	if e != nil {
		return nil, e
	}
	l.mu.Lock()
	if l.busy != "" || l.closing {
		l.mu.Unlock()
		return nil, &Error{Code: CodeBusy, Reason: ReasonSessionBusy, Message: "the session is busy; cancel the turn first"}
	}
	l.busy = "switch"
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.busy = ""
		l.mu.Unlock()
	}()
	if e := l.bind(ctx, rt.Name, ""); e != nil {
		return nil, e
	}
	l.pump.global(EventSessionsChanged, s.changedPayload(a.ID))
	return s.summary(ctx, a.ID)
}
