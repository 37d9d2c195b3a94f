package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mnote/acp"
	"mnote/app/chat"
	"mnote/internal/atomicfile"
	"mnote/store"
	"mnote/workspace"
)

// EventWorkspaceChanged carries a workspace.Event of the open folder.
const EventWorkspaceChanged = "workspace:changed"

// maxRecent is how many workspaces the "recent" list keeps.
const maxRecent = 10

// WorkspaceInfo is the open folder (API.md "workspace.get").
type WorkspaceInfo struct {
	Dir     string   `json:"dir"`
	Name    string   `json:"name"`
	Recent  []string `json:"recent"`
	CanPick bool     `json:"canPick"`
	// Select is the note the page should open (relative to Dir), given
	// once: a Markdown file named on the command line or by a second
	// launch (API.md "workspace.get").
	Select string `json:"select,omitempty"`
}

// workspaces holds the folders opened in this run: the current one (the
// window's notes, where new sessions work) and earlier ones that sessions
// may still use. They stay open until Shutdown.
type workspaces struct {
	s *Services

	mu      sync.Mutex
	open    map[string]*workspace.Workspace // by real path
	notes   map[*workspace.Workspace]*notesIndex
	current *workspace.Workspace
	unsub   func()
	// pick is the note to select in current (relative), until the page
	// reads it with workspace.get.
	pick string
}

// setSelect makes the Markdown file abs, inside w, the note the page
// opens next; a file outside w, missing or not Markdown is refused.
func (ws *workspaces) setSelect(w *workspace.Workspace, abs string) error {
	if !workspace.IsMarkdown(abs) {
		return fmt.Errorf("%s is not a Markdown file", abs)
	}
	rel, err := w.Rel(abs)
	if err != nil {
		return fmt.Errorf("%s is not in the notes folder %s: %w", abs, w.Dir(), err)
	}
	if st, err := os.Stat(w.Abs(rel)); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a file in the notes folder", abs)
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.pick = rel
	return nil
}

// takeSelect returns the note to select in w and forgets it.
func (ws *workspaces) takeSelect(w *workspace.Workspace) string {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w == nil || w != ws.current {
		return ""
	}
	p := ws.pick
	ws.pick = ""
	return p
}

// notesOf is the notes index of the open workspace w, or nil.
func (ws *workspaces) notesOf(w *workspace.Workspace) *notesIndex {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.notes[w]
}

func realPath(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// use makes dir the current workspace, opening it (and its watcher) if
// this run has not yet.
func (ws *workspaces) use(dir string) (*workspace.Workspace, error) {
	s := ws.s
	key := realPath(dir)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w := ws.open[key]
	if w == nil {
		state, err := workspace.StateDirFor(s.paths.DataDir, key)
		if err != nil {
			return nil, err
		}
		w, err = OpenWorkspace(key, s.paths, workspace.Options{StateDir: state, Logger: s.log})
		if err != nil {
			return nil, err
		}
		if err := w.Watch(); err != nil {
			// It works without live updates; say why in the log and to the page.
			s.log.Warn("the notes folder is not watched", "dir", key, "err", err)
			s.emit(EventWorkspaceChanged, workspace.Event{Warning: err.Error()})
		}
		ws.open[key] = w
		if n, err := s.openNotesIndex(w); err != nil {
			// Search and links are off; the notes still open.
			s.log.Warn("the notes index could not be opened", "dir", key, "err", err)
		} else {
			if ws.notes == nil {
				ws.notes = make(map[*workspace.Workspace]*notesIndex)
			}
			ws.notes[w] = n
		}
	}
	if ws.current != w {
		if ws.unsub != nil {
			ws.unsub()
		}
		ws.current = w
		ws.unsub = w.Subscribe(func(ev workspace.Event) { s.emit(EventWorkspaceChanged, ev) })
	}
	return w, nil
}

// get returns the current workspace, or nil.
func (ws *workspaces) get() *workspace.Workspace {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.current
}

// at returns the open workspace of the folder dir, or nil: sessions in
// folders never opened as a workspace get one opened for confinement only
// (liveSession.plainWorkspace).
func (ws *workspaces) at(dir string) *workspace.Workspace {
	if dir == "" {
		return nil
	}
	key := realPath(dir)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.open[key]
}

func (ws *workspaces) closeAll() {
	ws.mu.Lock()
	open, idx := ws.open, ws.notes
	ws.open, ws.notes = map[string]*workspace.Workspace{}, nil
	ws.current = nil
	if ws.unsub != nil {
		ws.unsub()
		ws.unsub = nil
	}
	ws.mu.Unlock()
	for _, n := range idx {
		if err := n.close(); err != nil {
			ws.s.log.Warn("closing a notes index", "err", err)
		}
	}
	for dir, w := range open {
		if err := w.Close(); err != nil {
			ws.s.log.Warn("closing a workspace", "dir", dir, "err", err)
		}
	}
}

// ---- the recent list ----------------------------------------------------------

func (s *Services) recentFile() string { return filepath.Join(s.paths.StateDir, "workspaces.json") }

func (s *Services) recent() []string {
	b, err := os.ReadFile(s.recentFile())
	if err != nil {
		return []string{}
	}
	var v struct {
		Recent []string `json:"recent"`
	}
	if json.Unmarshal(b, &v) != nil || v.Recent == nil {
		return []string{}
	}
	return v.Recent
}

func (s *Services) noteRecent(dir string) {
	list := slices.DeleteFunc(s.recent(), func(d string) bool { return d == dir })
	list = append([]string{dir}, list...)
	if len(list) > maxRecent {
		list = list[:maxRecent]
	}
	b, _ := json.MarshalIndent(struct {
		Recent []string `json:"recent"`
	}{list}, "", "  ")
	if err := os.MkdirAll(s.paths.StateDir, 0o700); err == nil {
		err = writeFileAtomic(s.recentFile(), append(b, '\n'))
		if err != nil {
			s.log.Warn("recent workspaces not saved", "err", err)
		}
	}
}

// startWorkspace opens the folder the app starts in: Config.Workspace
// when given (mnote serve --workspace), else the last one used.
func (s *Services) startWorkspace() {
	dir := s.cfg.Workspace
	if dir == "" {
		rs := s.recent()
		if len(rs) == 0 {
			return
		}
		dir = rs[0]
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return // moved or deleted: the page offers to open a folder
		}
	}
	w, err := s.ws.use(dir)
	if err != nil {
		s.log.Warn("the notes folder could not be opened", "dir", dir, "err", err)
		return
	}
	s.noteRecent(realPath(dir))
	if s.cfg.Select != "" {
		if err := s.ws.setSelect(w, s.cfg.Select); err != nil {
			s.log.Warn("the note to open first was not selected", "err", err)
		}
	}
}

// defaultCwd is the folder new sessions work in: the open workspace, else
// Config.Workspace, else the home folder.
func (s *Services) defaultCwd() string {
	if w := s.ws.get(); w != nil {
		return w.Dir()
	}
	if s.cfg.Workspace != "" {
		return s.cfg.Workspace
	}
	home, _ := os.UserHomeDir()
	return home
}

// ---- workspace.* --------------------------------------------------------------

func (s *Services) info(w *workspace.Workspace) *WorkspaceInfo {
	if w == nil {
		return nil
	}
	return &WorkspaceInfo{Dir: w.Dir(), Name: filepath.Base(w.Dir()), Recent: s.recent(), CanPick: s.cfg.PickFolder != nil}
}

func (s *Services) workspaceGet(_ context.Context, _ struct{}) (any, *Error) {
	w := s.ws.get()
	info := s.info(w)
	if info != nil {
		info.Select = s.ws.takeSelect(w)
	}
	return info, nil
}

type dirArgs struct {
	Dir string `json:"dir"`
	// Select: a Markdown file in Dir that the page opens on its next
	// workspace.get (a second launch with `mnote NOTE.md`).
	Select string `json:"select,omitempty"`
}

func (s *Services) workspaceOpen(_ context.Context, a dirArgs) (any, *Error) {
	dir := strings.TrimSpace(a.Dir)
	if dir == "" {
		return nil, badRequest("give the folder to open").why(ReasonFolderRequired)
	}
	if strings.HasPrefix(dir, "~/") || dir == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
		}
	}
	if !filepath.IsAbs(dir) {
		return nil, badRequest("give the folder's full path (it starts with /): %q", a.Dir).why(ReasonFolderNotAbsolute, "path", a.Dir)
	}
	w, err := s.ws.use(dir)
	if err != nil {
		return nil, workspaceError("open "+dir, err).with("path", dir)
	}
	s.noteRecent(w.Dir())
	if a.Select != "" {
		if err := s.ws.setSelect(w, a.Select); err != nil {
			return nil, badRequest("open %s: %w", a.Select, err).classify(err).with("path", a.Select)
		}
	}
	return s.info(w), nil
}

// pickArgs are workspace.pick's: the page's locale words the dialog.
type pickArgs struct {
	Locale string `json:"locale"`
}

func (s *Services) workspacePick(ctx context.Context, a pickArgs) (any, *Error) {
	if s.cfg.PickFolder == nil {
		return nil, badRequest("there is no folder dialog here: type the folder's path").why(ReasonNoFolderDialog)
	}
	dir, err := s.cfg.PickFolder(ctx, a.Locale)
	if err != nil {
		return nil, errorFrom("folder dialog", err)
	}
	if dir == "" {
		return nil, nil // cancelled
	}
	return s.workspaceOpen(ctx, dirArgs{Dir: dir})
}

// current returns the open workspace or the error every workspace method
// gives without one.
func (s *Services) current() (*workspace.Workspace, *Error) {
	w := s.ws.get()
	if w == nil {
		return nil, badRequest("no folder is open: open a folder of notes first").why(ReasonNoFolderOpen)
	}
	return w, nil
}

type treeArgs struct {
	All    bool   `json:"all"`
	Filter string `json:"filter"`
}

func (s *Services) workspaceTree(_ context.Context, a treeArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	n, err := w.Tree(workspace.TreeOptions{AllFiles: a.All, Filter: a.Filter})
	if err != nil {
		return nil, workspaceError("list the folder", err)
	}
	return n, nil
}

type findArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

func (s *Services) workspaceFind(_ context.Context, a findArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	if a.Limit < 0 || a.Limit > 500 {
		return nil, badRequest("limit must be between 0 and 500")
	}
	ms, err := w.Find(a.Query, workspace.FindOptions{Limit: a.Limit})
	if err != nil {
		return nil, workspaceError("find", err)
	}
	if ms == nil {
		ms = []workspace.Match{}
	}
	return ms, nil
}

// workspaceError classifies a workspace failure: refusals and bad paths
// are the caller's, a missing file not_found, a conflict its own code.
func workspaceError(what string, err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	e := (&Error{Code: CodeInternal, Message: what + ": " + err.Error(), cause: err}).classify(err)
	var refused *workspace.RefusedError
	switch {
	case errors.As(err, &refused), errors.Is(err, fs.ErrExist), errors.Is(err, fs.ErrInvalid):
		e.Code = CodeBadRequest
	case errors.Is(err, fs.ErrNotExist):
		e.Code = CodeNotFound
	case errors.Is(err, workspace.ErrConflict):
		e.Code = CodeConflict
	}
	return e
}

// OwnDirs are mnote's own folders, which no agent may reach whatever
// folder is open: config (config.json, secrets), data (index,
// transcripts, trash, checkpoints), state and logs.
func OwnDirs(p store.Paths) []string {
	var out []string
	if p.ConfigFile != "" {
		out = append(out, filepath.Dir(p.ConfigFile))
	}
	for _, d := range []string{p.DataDir, p.Transcripts, p.Trash, p.StateDir, p.LogDir} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// OpenWorkspace opens dir as a workspace for agents: mnote's own folders
// (OwnDirs of paths) are denied in it, and a folder workspace.Open refuses
// (a kernel file system such as /proc, mnote's own data, a missing
// folder) is an error saying so. There is no weaker fallback.
func OpenWorkspace(dir string, paths store.Paths, opts workspace.Options) (*workspace.Workspace, error) {
	opts.Deny = append(OwnDirs(paths), opts.Deny...)
	w, err := workspace.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("agents cannot work in %s: %w; choose a folder of notes", dir, err)
	}
	return w, nil
}

// SessionFS is the fs/* handler of sess's agent in w: writes (with the
// content before) and refusals are recorded in the session's transcript,
// and a read-only mode refuses writes (chat.Session.GuardWrites).
func SessionFS(w *workspace.Workspace, sess *chat.Session) acp.FileSystem {
	return sessionFS(w, sess, nil)
}

// EventFSRefused tells the page an agent's fs/* request was refused
// (FSRefusedPayload), so the refusal is visible, not only in the
// transcript.
const EventFSRefused = "fs:refused"

// FSRefusedPayload is the payload of "fs:refused". Outside: the path is
// not in the session's folder at all (as written; links out and mnote's
// own folders are refusals inside it). ReadOnlyMode: a write refused
// because the user chose a read-only mode, the one named (chat.ReadOnlyError).
type FSRefusedPayload struct {
	SessionID    string `json:"sessionId"`
	Path         string `json:"path"`
	Reason       string `json:"reason"`
	Outside      bool   `json:"outside,omitempty"`
	ReadOnlyMode string `json:"readOnlyMode,omitempty"`
}

// sessionFS is SessionFS telling refusals to notify too (when not nil).
func sessionFS(w *workspace.Workspace, sess *chat.Session, notify func(FSRefusedPayload)) acp.FileSystem {
	fsys := w.AgentFS(workspace.Hooks{
		Reader: sess.ID,
		OnWrite: func(rel string, before, after []byte, existed bool) {
			sess.FileWritten(w.Abs(rel), before, after, existed)
		},
		OnRefused: func(p, reason string) {
			sess.FSRefused(p, reason)
			if notify != nil {
				notify(FSRefusedPayload{SessionID: sess.ID, Path: p, Reason: reason, Outside: outsideDir(w.Dir(), p)})
			}
		},
	})
	return sess.GuardWrites(fsys, func(p string, ro *chat.ReadOnlyError) {
		if notify != nil {
			notify(FSRefusedPayload{SessionID: sess.ID, Path: p, Reason: ro.Error(), ReadOnlyMode: ro.Mode})
		}
	})
}

// outsideDir: p, as written, is not dir or under it.
func outsideDir(dir, p string) bool {
	if !filepath.IsAbs(p) {
		return true
	}
	r, err := filepath.Rel(dir, filepath.Clean(p))
	return err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// agentFS is the fs/* handler of a live session: the workspace's (open
// buffers, checkpoints, refusals recorded and told to the page) when its
// folder is an open workspace, else the folder opened for confinement
// only (no watcher, no checkpoints). A folder that cannot be opened so is
// refused: the agent does not get it.
func (l *liveSession) agentFS() (acp.FileSystem, error) {
	w := l.s.ws.at(l.workspace)
	if w == nil {
		var err error
		if w, err = l.plainWorkspace(); err != nil {
			return nil, err
		}
	}
	return sessionFS(w, l.sess, func(p FSRefusedPayload) { l.s.emit(EventFSRefused, p) }), nil
}

// plainWorkspace opens the session's folder for confinement only, once.
func (l *liveSession) plainWorkspace() (*workspace.Workspace, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.plainWS == nil {
		w, err := OpenWorkspace(l.workspace, l.s.paths, workspace.Options{Logger: l.s.log})
		if err != nil {
			return nil, err
		}
		l.plainWS = w
	}
	return l.plainWS, nil
}

// turnID names a session's turn among a workspace's checkpoints.
func turnID(sessionID string, turn int) string { return fmt.Sprintf("%s/%d", sessionID, turn) }

// writeFileAtomic replaces path with data (mode 0600): a temporary file
// renamed over it, so a crash leaves the old or the new content.
func writeFileAtomic(path string, data []byte) error {
	return atomicfile.WriteFile(path, data, 0o600)
}
