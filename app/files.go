package app

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"mnote/workspace"
)

// files.* work on the open workspace's files and buffers (API.md).

type pathArgs struct {
	Path string `json:"path"`
}

type contentArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (s *Services) filesOpen(_ context.Context, a pathArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	st, err := w.Buffers().Open(a.Path)
	if err != nil {
		return nil, workspaceError("open "+a.Path, err).with("path", a.Path)
	}
	return st, nil
}

func (s *Services) filesUpdate(_ context.Context, a contentArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	st, err := w.Buffers().Update(a.Path, a.Content, true)
	if err != nil {
		return nil, workspaceError("edit "+a.Path, err).with("path", a.Path)
	}
	return st, nil
}

func (s *Services) filesSave(_ context.Context, a contentArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	bs := w.Buffers()
	if _, ok := bs.Get(a.Path); !ok {
		if _, err := bs.Open(a.Path); err != nil && !errors.Is(err, workspace.ErrNotFound) {
			return nil, workspaceError("save "+a.Path, err).with("path", a.Path)
		}
	}
	if _, err := bs.Update(a.Path, a.Content, true); err != nil {
		return nil, workspaceError("save "+a.Path, err).with("path", a.Path)
	}
	st, err := bs.Save(a.Path)
	if err != nil {
		return nil, workspaceError("save "+a.Path, err).with("path", a.Path)
	}
	return st, nil
}

func (s *Services) filesClose(_ context.Context, a pathArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	w.Buffers().Close(a.Path)
	return nil, nil
}

func (s *Services) filesDiff(_ context.Context, a pathArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	d, err := w.Buffers().Diff(a.Path)
	if err != nil {
		return nil, workspaceError("compare "+a.Path, err).with("path", a.Path)
	}
	return map[string]string{"diff": d}, nil
}

type resolveArgs struct {
	Path string `json:"path"`
	Take string `json:"take"` // mine or theirs
}

func (s *Services) filesResolve(_ context.Context, a resolveArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	var st workspace.BufferState
	var err error
	switch a.Take {
	case "mine":
		st, err = w.Buffers().KeepMine(a.Path)
	case "theirs":
		st, err = w.Buffers().TakeTheirs(a.Path)
	default:
		return nil, badRequest(`take must be "mine" or "theirs", not %q`, a.Take).why(ReasonInvalidArguments)
	}
	if err != nil {
		return nil, workspaceError("resolve "+a.Path, err).with("path", a.Path)
	}
	return st, nil
}

type createFileArgs struct {
	Path string `json:"path"`
	Dir  bool   `json:"dir"`
}

func (s *Services) filesCreate(_ context.Context, a createFileArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	var err error
	if a.Dir {
		err = w.CreateFolder(a.Path)
	} else {
		err = w.CreateFile(a.Path, nil)
	}
	if err != nil {
		return nil, workspaceError("create "+a.Path, err).with("path", a.Path)
	}
	return nil, nil
}

type renameFileArgs struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func (s *Services) filesRename(_ context.Context, a renameFileArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	if err := w.Rename(a.From, a.To); err != nil {
		return nil, workspaceError("rename "+a.From, err).with("path", a.From)
	}
	return nil, nil
}

func (s *Services) filesDelete(_ context.Context, a pathArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	t, err := w.Delete(a.Path)
	if err != nil {
		return nil, workspaceError("delete "+a.Path, err).with("path", a.Path)
	}
	return map[string]any{"trash": t}, nil
}

type restoreFileArgs struct {
	Trash workspace.Trashed `json:"trash"`
}

func (s *Services) filesRestore(_ context.Context, a restoreFileArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	if err := w.Restore(a.Trash); err != nil {
		return nil, workspaceError("restore "+a.Trash.Path, err).with("path", a.Trash.Path)
	}
	return nil, nil
}

// ---- checkpoints.* --------------------------------------------------------------

// TurnChanges is one turn of a session that changed files (checkpoints.list).
type TurnChanges struct {
	Turn     int           `json:"turn"`
	Files    []ChangedFile `json:"files"`
	Ended    time.Time     `json:"ended"`
	Reverted *time.Time    `json:"reverted,omitempty"`
}

// ChangedFile is one file a turn changed.
type ChangedFile struct {
	Path    string       `json:"path"`
	Op      workspace.Op `json:"op"`
	NotKept string       `json:"notKept,omitempty"`
}

// checkpointsOf returns the checkpoints of the workspace a session works in.
func (s *Services) checkpointsOf(ctx context.Context, id string) (*workspace.Checkpoints, string, *Error) {
	if e := validID(id); e != nil {
		return nil, "", e
	}
	dir := ""
	if l := s.liveOf(id); l != nil {
		dir = l.workspace
	} else {
		sum, e := s.summary(ctx, id)
		if e != nil {
			return nil, "", e
		}
		dir = sum.Workspace
	}
	w := s.ws.at(dir)
	if w == nil || w.Checkpoints() == nil {
		return nil, dir, nil
	}
	return w.Checkpoints(), dir, nil
}

type sessionArgs struct {
	SessionID string `json:"sessionId"`
}

func (s *Services) checkpointsList(ctx context.Context, a sessionArgs) (any, *Error) {
	cps, _, e := s.checkpointsOf(ctx, a.SessionID)
	if e != nil {
		return nil, e
	}
	out := []TurnChanges{}
	if cps == nil {
		return out, nil
	}
	all, err := cps.List()
	if err != nil {
		return nil, workspaceError("list the changes", err)
	}
	prefix := a.SessionID + "/"
	for _, c := range all {
		n, ok := strings.CutPrefix(c.Turn, prefix)
		if !ok {
			continue
		}
		turn, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		tc := TurnChanges{Turn: turn, Ended: c.Ended, Reverted: c.Reverted, Files: make([]ChangedFile, 0, len(c.Files))}
		for _, f := range c.Files {
			tc.Files = append(tc.Files, ChangedFile{Path: f.Path, Op: f.Op, NotKept: f.NotKept})
		}
		out = append(out, tc)
	}
	slices.SortFunc(out, func(a, b TurnChanges) int { return a.Turn - b.Turn })
	return out, nil
}

type turnArgs struct {
	SessionID string `json:"sessionId"`
	Turn      int    `json:"turn"`
}

func (s *Services) checkpointsChanges(ctx context.Context, a turnArgs) (any, *Error) {
	cps, _, e := s.checkpointsOf(ctx, a.SessionID)
	if e != nil {
		return nil, e
	}
	if cps == nil {
		return nil, &Error{Code: CodeNotFound, Reason: ReasonFolderNotOpen, Message: "this session's folder is not open as a workspace, so its changes are not known here"}
	}
	d, err := cps.Changes(turnID(a.SessionID, a.Turn))
	if err != nil {
		return nil, turnError("the changes of turn "+strconv.Itoa(a.Turn), a, "", err)
	}
	if d == nil {
		d = []workspace.FileDiff{}
	}
	return d, nil
}

func (s *Services) checkpointsRevert(ctx context.Context, a turnArgs) (any, *Error) {
	cps, _, e := s.checkpointsOf(ctx, a.SessionID)
	if e != nil {
		return nil, e
	}
	if cps == nil {
		return nil, &Error{Code: CodeNotFound, Reason: ReasonFolderNotOpen, Message: "this session's folder is not open as a workspace, so its changes are not known here"}
	}
	if l := s.liveOf(a.SessionID); l != nil && l.statusNow() == StatusRunning {
		return nil, &Error{Code: CodeBusy, Reason: ReasonTurnRunning, Message: "a turn is running in this session: stop it or wait, then revert"}
	}
	res, err := cps.Revert(turnID(a.SessionID, a.Turn))
	if ae := revertConflict(a, err); ae != nil {
		return nil, ae
	}
	if err != nil {
		return nil, turnError("revert turn "+strconv.Itoa(a.Turn), a, "", err)
	}
	return res, nil
}

type hunksArgs struct {
	SessionID string `json:"sessionId"`
	Turn      int    `json:"turn"`
	Path      string `json:"path"`
}

// turnCheckpoints is the checkpoints of a session's folder, or not_found.
func (s *Services) turnCheckpoints(ctx context.Context, id string) (*workspace.Checkpoints, *Error) {
	cps, _, e := s.checkpointsOf(ctx, id)
	if e != nil {
		return nil, e
	}
	if cps == nil {
		return nil, &Error{Code: CodeNotFound, Reason: ReasonFolderNotOpen, Message: "this session's folder is not open as a workspace, so its changes are not known here"}
	}
	return cps, nil
}

func (s *Services) checkpointsHunks(ctx context.Context, a hunksArgs) (any, *Error) {
	cps, e := s.turnCheckpoints(ctx, a.SessionID)
	if e != nil {
		return nil, e
	}
	fh, err := cps.Hunks(turnID(a.SessionID, a.Turn), a.Path)
	if err != nil {
		return nil, turnError("the changes of "+a.Path, turnArgs{a.SessionID, a.Turn}, a.Path, err)
	}
	return fh, nil
}

type reviewArgs struct {
	SessionID string           `json:"sessionId"`
	Turn      int              `json:"turn"`
	Path      string           `json:"path"`
	Action    string           `json:"action"`
	Hunks     []workspace.Hunk `json:"hunks"`
}

// checkpointsReview keeps, rejects or restores hunks of a turn's file; the
// session's transcript (when it is open here) gets a changes_reviewed
// record, the checkpoint keeps the review either way.
func (s *Services) checkpointsReview(ctx context.Context, a reviewArgs) (any, *Error) {
	cps, e := s.turnCheckpoints(ctx, a.SessionID)
	if e != nil {
		return nil, e
	}
	l := s.liveOf(a.SessionID)
	if a.Action != workspace.HunkKept && l != nil && l.statusNow() == StatusRunning {
		return nil, &Error{Code: CodeBusy, Reason: ReasonTurnRunning, Message: "a turn is running in this session: stop it or wait, then review its changes"}
	}
	fh, err := cps.ReviewHunks(turnID(a.SessionID, a.Turn), a.Path, a.Action, a.Hunks)
	if err != nil {
		return nil, turnError("review the changes of "+a.Path, turnArgs{a.SessionID, a.Turn}, a.Path, err)
	}
	if l != nil {
		l.sess.ChangesReviewed(map[string]any{"turn": a.Turn, "path": a.Path, "action": a.Action, "hunks": a.Hunks})
	}
	return fh, nil
}

// checkpointsUndoRevert undoes checkpoints.revert of a turn.
func (s *Services) checkpointsUndoRevert(ctx context.Context, a turnArgs) (any, *Error) {
	cps, e := s.turnCheckpoints(ctx, a.SessionID)
	if e != nil {
		return nil, e
	}
	l := s.liveOf(a.SessionID)
	if l != nil && l.statusNow() == StatusRunning {
		return nil, &Error{Code: CodeBusy, Reason: ReasonTurnRunning, Message: "a turn is running in this session: stop it or wait, then undo the revert"}
	}
	res, err := cps.UndoRevert(turnID(a.SessionID, a.Turn))
	if ae := revertConflict(a, err); ae != nil {
		return nil, ae
	}
	if err != nil {
		e := turnError("undo the revert of turn "+strconv.Itoa(a.Turn), a, "", err)
		if e.Reason == "" && errors.Is(err, fs.ErrInvalid) {
			e.Reason = ReasonNotReverted
		}
		return nil, e
	}
	if l != nil {
		l.sess.ChangesReviewed(map[string]any{"turn": a.Turn, "action": "revert_undone", "restored": res.Restored, "deleted": res.Deleted})
	}
	return res, nil
}

// revertConflict is the conflict error of a revert or its undo (the diffs
// in details), or nil.
func revertConflict(a turnArgs, err error) *Error {
	var conflict *workspace.RevertConflictError
	if !errors.As(err, &conflict) {
		return nil
	}
	var diffs strings.Builder
	names := make([]string, 0, len(conflict.Conflicts))
	for _, c := range conflict.Conflicts {
		names = append(names, c.Path)
		diffs.WriteString(c.Diff)
		if !strings.HasSuffix(c.Diff, "\n") {
			diffs.WriteByte('\n')
		}
	}
	e := &Error{Code: CodeConflict, Message: hideTurnID(err.Error(), a), Details: diffs.String(), cause: err}
	return e.why(ReasonRevertConflict, "turn", strconv.Itoa(a.Turn), "files", strings.Join(names, ", "), "count", strconv.Itoa(len(names)))
}

// turnError is a checkpoint failure of a session's turn (of its file
// path, when given). A missing checkpoint (or file of it) is told as such.
func turnError(what string, a turnArgs, path string, err error) *Error {
	e := workspaceError(what, err)
	e.Message = hideTurnID(e.Message, a)
	if errors.Is(err, fs.ErrNotExist) && (e.Reason == "" || e.Reason == ReasonFileNotFound) {
		e.Reason = ReasonCheckpointNotFound
		if path != "" {
			e.Reason = ReasonFileNotInTurn
		}
	}
	return e.with("turn", strconv.Itoa(a.Turn), "path", path)
}

// hideTurnID replaces the internal id of a turn among the checkpoints
// (session id/turn) in a message for the user by the turn's number; the
// log keeps the id.
func hideTurnID(msg string, a turnArgs) string {
	return strings.ReplaceAll(msg, turnID(a.SessionID, a.Turn), strconv.Itoa(a.Turn))
}
