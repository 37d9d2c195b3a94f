package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"mnote/notes"
	"mnote/workspace"
)

// EventNotesIndex reports the notes index of the open folder: building
// (done of total notes read), ready, and what it skipped (API.md).
const EventNotesIndex = "notes:index"

// NotesIndexStatus is the payload of EventNotesIndex and notes.status.
type NotesIndexStatus struct {
	Dir     string `json:"dir"`
	Ready   bool   `json:"ready"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Notes   int    `json:"notes"`
	TooBig  int    `json:"tooBig"`
	NotText int    `json:"notText"`
	Error   string `json:"error,omitempty"`
}

// notesIndex is one open workspace's notes index, kept current from its
// watcher.
type notesIndex struct {
	ix    *notes.Index
	unsub func()

	mu     sync.Mutex
	status NotesIndexStatus
	ready  chan struct{}   // closed once the first Sync ended
	done   chan struct{}   // closed once the updater goroutine ended
	ctx    context.Context // ends with close or Shutdown
	cancel context.CancelFunc
	queue  chan []workspace.Change
	// behind is set when the queue was full: the updater syncs the whole
	// folder instead of the changes it missed.
	behind atomic.Bool

	// undos are the last link updates (notes.updateLinks), by id, oldest
	// first in undoOrder (guarded by mu).
	undos     map[string][]linkEdit
	undoOrder []string
}

// openNotesIndex opens the notes index of w (under the data folder) and
// starts building it in the background; events report its progress.
func (s *Services) openNotesIndex(w *workspace.Workspace) (*notesIndex, error) {
	dir := w.Dir()
	dbPath, err := notes.PathFor(s.paths.DataDir, dir)
	if err != nil {
		return nil, err
	}
	ix, err := notes.Open(s.life, dbPath, w, notes.Options{Ignore: workspace.DefaultIgnore})
	if err != nil {
		return nil, err
	}
	n := &notesIndex{ix: ix, ready: make(chan struct{}), done: make(chan struct{}), queue: make(chan []workspace.Change, 256),
		status: NotesIndexStatus{Dir: dir}}
	n.ctx, n.cancel = context.WithCancel(s.life)
	n.unsub = w.Subscribe(func(ev workspace.Event) {
		if len(ev.Changes) > 0 || ev.Rescan {
			cs := ev.Changes
			if ev.Rescan {
				cs = append(cs, workspace.Change{Path: ".", Op: workspace.Changed, Dir: true})
			}
			select {
			case n.queue <- cs:
			default: // far behind: a sync catches everything up
				n.behind.Store(true)
				select {
				case n.queue <- nil:
				default:
				}
			}
		}
	})
	go n.run(s)
	return n, nil
}

// ownDirs are mnote's own folders, never indexed as notes.
func (s *Services) ownDirs() []string {
	return []string{s.paths.DataDir, s.paths.StateDir, s.paths.LogDir, filepath.Dir(s.paths.ConfigFile)}
}

func (n *notesIndex) run(s *Services) {
	defer close(n.done)
	ctx := n.ctx
	last := time.Time{}
	st, err := n.ix.Sync(ctx, func(done, total int) {
		if now := time.Now(); done == total || now.Sub(last) > 100*time.Millisecond {
			last = now
			s.emit(EventNotesIndex, n.update(func(x *NotesIndexStatus) { x.Done, x.Total = done, total }))
		}
	})
	s.emit(EventNotesIndex, n.update(func(x *NotesIndexStatus) {
		x.Ready, x.Notes, x.TooBig, x.NotText = true, st.Notes, st.TooBig, st.NotText
		if err != nil && !errors.Is(err, context.Canceled) {
			x.Error = err.Error()
		}
	}))
	close(n.ready)
	for {
		select {
		case <-ctx.Done():
			return
		case cs := <-n.queue:
			if n.behind.Swap(false) {
				cs = []workspace.Change{{Path: ".", Op: workspace.Changed, Dir: true}}
			}
			for _, c := range cs {
				n.apply(ctx, s, c)
			}
		}
	}
}

// apply keeps the index current with one change on disk.
func (n *notesIndex) apply(ctx context.Context, s *Services, c workspace.Change) {
	var err error
	switch {
	case c.Path == "." && c.Dir:
		_, err = n.ix.Sync(ctx, nil)
	case c.Op == workspace.Removed:
		err = n.ix.Remove(ctx, c.Path)
	case c.Op == workspace.Renamed:
		if err = n.ix.Remove(ctx, c.From); err == nil {
			err = n.ix.Update(ctx, c.Path)
		}
	default:
		err = n.ix.Update(ctx, c.Path)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		s.log.Warn("notes index: keeping up with a change", "path", c.Path, "err", err)
	}
}

func (n *notesIndex) update(fn func(*NotesIndexStatus)) NotesIndexStatus {
	n.mu.Lock()
	defer n.mu.Unlock()
	fn(&n.status)
	return n.status
}

func (n *notesIndex) close() error {
	n.unsub()
	n.cancel()
	<-n.done
	return n.ix.Close()
}

// ---- bound methods ------------------------------------------------------------

// currentNotes is the current workspace and its notes index, taken
// together so that both belong to the same folder even while the user
// switches folders.
func (s *Services) currentNotes() (*notesIndex, *workspace.Workspace, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, nil, e
	}
	n := s.ws.notesOf(w)
	if n == nil {
		return nil, nil, &Error{Code: CodeNotFound, Reason: ReasonNotesNotIndexed, Message: "the notes of this folder are not indexed (see the log)"}
	}
	return n, w, nil
}

func (s *Services) notesStatus(context.Context, struct{}) (any, *Error) {
	n, _, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	return n.update(func(*NotesIndexStatus) {}), nil
}

type notesSearchArgs struct {
	Query  string `json:"query"`
	Folder string `json:"folder,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Lines  int    `json:"lines,omitempty"`
}

func (s *Services) notesSearch(ctx context.Context, a notesSearchArgs) (any, *Error) {
	n, _, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	if a.Limit < 0 || a.Limit > 500 {
		return nil, badRequest("limit must be between 0 and 500")
	}
	if a.Lines < 0 || a.Lines > 1000 {
		return nil, badRequest("lines must be between 0 and 1000")
	}
	hits, err := n.ix.Search(ctx, a.Query, notes.SearchOptions{Folder: a.Folder, Limit: a.Limit, Lines: a.Lines})
	if err != nil {
		return nil, errorFrom("search notes", err)
	}
	if hits == nil {
		hits = []notes.Hit{}
	}
	return hits, nil
}

// notesTags lists the folder's tags with how many notes carry each.
func (s *Services) notesTags(ctx context.Context, _ struct{}) (any, *Error) {
	n, _, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	tags, err := n.ix.Tags(ctx)
	if err != nil {
		return nil, errorFrom("list tags", err)
	}
	if tags == nil {
		tags = []notes.TagCount{}
	}
	return tags, nil
}

// notesTitles lists every note with its title (Quick Open).
func (s *Services) notesTitles(ctx context.Context, _ struct{}) (any, *Error) {
	n, _, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	ts, err := n.ix.Titles(ctx)
	if err != nil {
		return nil, errorFrom("list titles", err)
	}
	if ts == nil {
		ts = []notes.NoteTitle{}
	}
	return ts, nil
}

type notesHeadingsArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

func (s *Services) notesHeadings(ctx context.Context, a notesHeadingsArgs) (any, *Error) {
	n, _, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	hs, err := n.ix.Headings(ctx, a.Query, a.Limit)
	if err != nil {
		return nil, errorFrom("search headings", err)
	}
	if hs == nil {
		hs = []notes.Heading{}
	}
	return hs, nil
}

type notePathArgs struct {
	Path string `json:"path"`
}

func (s *Services) notesBacklinks(ctx context.Context, a notePathArgs) (any, *Error) {
	return s.notesLinkList(ctx, a, (*notes.Index).Backlinks)
}

func (s *Services) notesLinks(ctx context.Context, a notePathArgs) (any, *Error) {
	return s.notesLinkList(ctx, a, (*notes.Index).Links)
}

func (s *Services) notesLinkList(ctx context.Context, a notePathArgs, list func(*notes.Index, context.Context, string) ([]notes.Link, error)) (any, *Error) {
	n, _, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	if a.Path == "" {
		return nil, badRequest("path is required")
	}
	ls, err := list(n.ix, ctx, a.Path)
	if err != nil {
		return nil, errorFrom("links of "+a.Path, err).with("path", a.Path)
	}
	if ls == nil {
		ls = []notes.Link{}
	}
	return ls, nil
}

// notesUnresolved lists the links to notes no note answers: of the note
// path, or of every note when path is "".
func (s *Services) notesUnresolved(ctx context.Context, a notePathArgs) (any, *Error) {
	n, _, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	ls, err := n.ix.Unresolved(ctx, a.Path)
	if err != nil {
		return nil, errorFrom("unresolved links", err).with("path", a.Path)
	}
	if ls == nil {
		ls = []notes.Link{}
	}
	return ls, nil
}

func (s *Services) notesOutline(ctx context.Context, a notePathArgs) (any, *Error) {
	n, _, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	hs, err := n.ix.Outline(ctx, a.Path)
	if err != nil {
		return nil, errorFrom("outline of "+a.Path, err).with("path", a.Path)
	}
	if hs == nil {
		hs = []notes.Heading{}
	}
	return hs, nil
}

type notesReadArgs struct {
	Path    string `json:"path"`
	Heading string `json:"heading"`
}

// maxEmbedBytes is the most of a note notes.read gives: an embed shows the
// start of a longer note, cut at a line break.
const maxEmbedBytes = 256 << 10

// notesRead is a note's text as an embed (![[Note]], ![[Note#Heading]])
// shows it: read from disk as the index reads it (confined, no link out,
// no denied folder), the heading's section alone when one is named.
func (s *Services) notesRead(_ context.Context, a notesReadArgs) (any, *Error) {
	w, e := s.current()
	if e != nil {
		return nil, e
	}
	if !notes.IsNote(a.Path) {
		return nil, badRequest("%s is not a note (a Markdown file)", a.Path).why(ReasonInvalidArguments).with("path", a.Path)
	}
	b, _, err := w.ReadAgentFile(a.Path)
	if err != nil {
		return nil, workspaceError("read "+a.Path, err).with("path", a.Path)
	}
	text := strings.TrimPrefix(string(b), "\uFEFF")
	out := struct {
		Path      string `json:"path"`
		Text      string `json:"text"`
		NoHeading bool   `json:"noHeading,omitempty"`
		Truncated bool   `json:"truncated,omitempty"`
	}{Path: a.Path}
	if a.Heading != "" {
		var ok bool
		if text, ok = notes.Section(text, a.Heading); !ok {
			out.NoHeading = true
			return out, nil
		}
	}
	if len(text) > maxEmbedBytes {
		cut := strings.LastIndexByte(text[:maxEmbedBytes], '\n')
		if cut < 0 {
			cut = maxEmbedBytes
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
		}
		text, out.Truncated = text[:cut], true
	}
	out.Text = text
	return out, nil
}

type notesResolveArgs struct {
	From   string `json:"from"`
	Target string `json:"target"`
	Wiki   bool   `json:"wiki"`
}

// notesResolve finds the note a link in the note From points at: {path}
// with "" when none does (the UI then offers to create it).
func (s *Services) notesResolve(ctx context.Context, a notesResolveArgs) (any, *Error) {
	n, _, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	p, err := n.ix.Resolve(ctx, a.From, notes.Link{Target: a.Target, Wiki: a.Wiki})
	if err != nil {
		return nil, errorFrom("resolve "+a.Target, err).with("path", a.Target)
	}
	return map[string]string{"path": p}, nil
}

// ---- updating links after a rename ----------------------------------------------

// maxUndos is how many link updates notes.undoUpdateLinks can still undo.
const maxUndos = 16

// linkEdit is one note a link update wrote: its text before and after.
type linkEdit struct {
	path, old, new string
}

// LinksUndo is the opaque handle of one link update, for
// notes.undoUpdateLinks (valid while the folder stays open, for the last
// few updates).
type LinksUndo struct {
	ID string `json:"id"`
}

// LinksUpdated is the result of notes.updateLinks.
type LinksUpdated struct {
	// Changed are the notes whose links were (dry run: would be) rewritten,
	// Links how many links that is.
	Changed []string `json:"changed"`
	Links   int      `json:"links"`
	// Skipped are notes left alone: unsaved edits in an open editor, or
	// changed on disk while the update ran.
	Skipped []string   `json:"skipped,omitempty"`
	Undo    *LinksUndo `json:"undo,omitempty"`
}

type notesUpdateLinksArgs struct {
	From   string `json:"from"`
	To     string `json:"to"`
	DryRun bool   `json:"dryRun,omitempty"`
}

// notesUpdateLinks rewrites the links that pointed at a note renamed or
// moved from → to (the rename done), writing each note as a save through
// mnote (open editors take the new text). When to is a folder, the folder
// moved: the links to every note in it (and theirs to notes outside) are
// rewritten, as one update with one undo.
func (s *Services) notesUpdateLinks(ctx context.Context, a notesUpdateLinksArgs) (any, *Error) {
	n, w, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	if a.From == "" || a.To == "" {
		return nil, badRequest("from and to are required")
	}
	read := func(rel string) (string, error) {
		b, err := w.ReadFile(rel)
		return string(b), err
	}
	// The index follows the rename through the watcher, later; bring the
	// moved notes in now, so the rewrites never meet the index between the
	// old paths' removal and the new ones' arrival (a folder syncs it).
	if err := n.ix.Update(ctx, a.To); err != nil {
		return nil, workspaceError("links to "+a.From, err).with("path", a.From)
	}
	rewrites := n.ix.MoveRewrites
	if isFolder(w, a.To) {
		rewrites = n.ix.FolderMoveRewrites
	}
	rs, err := rewrites(ctx, a.From, a.To, read)
	if err != nil {
		return nil, workspaceError("links to "+a.From, err).with("path", a.From)
	}
	out := LinksUpdated{Changed: []string{}}
	var done []linkEdit
	for _, r := range rs {
		if a.DryRun {
			out.Changed = append(out.Changed, r.Path)
			out.Links += r.Links
			continue
		}
		ok, err := s.writeNote(w, r.Path, r.Old, r.New)
		if err != nil {
			return nil, workspaceError("update the links in "+r.Path, err).with("path", r.Path)
		}
		if !ok {
			out.Skipped = append(out.Skipped, r.Path)
			continue
		}
		done = append(done, linkEdit{path: r.Path, old: r.Old, new: r.New})
		out.Changed = append(out.Changed, r.Path)
		out.Links += r.Links
	}
	if len(done) > 0 {
		out.Undo = &LinksUndo{ID: n.keepUndo(done)}
	}
	return out, nil
}

type notesUndoLinksArgs struct {
	Undo LinksUndo `json:"undo"`
}

// notesUndoUpdateLinks puts back the texts a link update replaced; when
// any of those notes changed since (on disk or unsaved in an editor),
// nothing is written and it fails with conflict.
func (s *Services) notesUndoUpdateLinks(_ context.Context, a notesUndoLinksArgs) (any, *Error) {
	n, w, e := s.currentNotes()
	if e != nil {
		return nil, e
	}
	n.mu.Lock()
	edits, ok := n.undos[a.Undo.ID]
	n.mu.Unlock()
	if !ok {
		return nil, &Error{Code: CodeNotFound, Reason: ReasonLinkUndoExpired, Message: "that link update can no longer be undone"}
	}
	var changed []string
	for _, ed := range edits {
		cur, err := w.ReadFile(ed.path)
		st, open := w.Buffers().Get(ed.path)
		if err != nil || string(cur) != ed.new || (open && (st.Dirty || st.Content != ed.new)) {
			changed = append(changed, ed.path)
		}
	}
	if len(changed) > 0 {
		return nil, (&Error{Code: CodeConflict, Message: "these notes changed since their links were updated: " + strings.Join(changed, ", "),
			Details: strings.Join(changed, "\n")}).why(ReasonLinksChanged, "files", strings.Join(changed, ", "), "count", strconv.Itoa(len(changed)))
	}
	restored := []string{}
	for _, ed := range edits {
		ok, err := s.writeNote(w, ed.path, ed.new, ed.old)
		if err != nil {
			return nil, workspaceError("restore "+ed.path, err).with("path", ed.path)
		}
		if ok {
			restored = append(restored, ed.path)
		}
	}
	n.mu.Lock()
	delete(n.undos, a.Undo.ID)
	n.undoOrder = slices.DeleteFunc(n.undoOrder, func(id string) bool { return id == a.Undo.ID })
	n.mu.Unlock()
	return map[string][]string{"restored": restored}, nil
}

// isFolder reports whether rel (workspace-relative) is a folder in w, not
// following a symbolic link at its end.
func isFolder(w *workspace.Workspace, rel string) bool {
	rel = path.Clean(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return false
	}
	fi, err := os.Lstat(w.Abs(rel))
	return err == nil && fi.IsDir()
}

// keepUndo remembers a link update and returns its id.
func (n *notesIndex) keepUndo(edits []linkEdit) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.undos == nil {
		n.undos = map[string][]linkEdit{}
	}
	n.undos[id] = edits
	n.undoOrder = append(n.undoOrder, id)
	for len(n.undoOrder) > maxUndos {
		delete(n.undos, n.undoOrder[0])
		n.undoOrder = n.undoOrder[1:]
	}
	return id
}

// writeNote saves text to the note at rel through its buffer, as the
// user's save (the watcher reports it with the app's origin), when the
// note still holds want: false, and nothing written, when it has unsaved
// edits in an editor or another text. An editor showing it takes the new
// text (a reloaded buffer event).
func (s *Services) writeNote(w *workspace.Workspace, rel, want, text string) (bool, error) {
	bs := w.Buffers()
	st, open := bs.Get(rel)
	if !open {
		var err error
		if st, err = bs.Open(rel); err != nil {
			return false, err
		}
		defer bs.Close(rel)
	}
	if st.Dirty || st.Conflict || st.Content != want {
		return false, nil
	}
	if _, err := bs.Update(rel, text, true); err != nil {
		return false, err
	}
	st, err := bs.Save(rel)
	if err != nil {
		return false, err
	}
	if open {
		s.emit(EventWorkspaceChanged, workspace.Event{Buffers: []workspace.BufferEvent{{Kind: workspace.BufferReloaded, Buffer: st}}})
	}
	return true, nil
}
