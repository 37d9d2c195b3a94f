package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"mnote/acp"
	"mnote/acp/runtimes"
	"mnote/app"
	"mnote/app/chat"
	"mnote/mcp"
	"mnote/notes"
	"mnote/store"
	"mnote/workspace"
)

// promptTools are mnote's notes tools for the agent of one `mnote prompt`
// run, as the window offers them: the mcpServers entry starts `mnote mcp`
// (this binary), which reaches this process over a private socket (mode
// 0600, in the state folder) with this session's token. The tools run
// against the --cwd folder through the session's confined agent file
// system; edit_note asks permission like the agent's own requests (on
// the terminal, or by --approve) and is recorded in the transcript with
// the content it replaced. The folder's notes index is opened (and
// brought up to date) on the first tool that needs it, so a run whose
// agent never searches pays nothing for it.
type promptTools struct {
	e    *env
	host *mcp.Host
	tok  string
	w    *workspace.Workspace
	h    mcp.Handler

	ixOnce sync.Once
	mu     sync.Mutex
	ix     *notes.Index
	turn   context.Context
}

// startNotesTools starts the notes tools of sess, unless the agent's
// "notes_tools" is false or off is set (--no-notes-tools). It returns
// nil when they are off or could not start (said on stderr: the turn
// runs without them).
func (e *env) startNotesTools(rt runtimes.Runtime, off bool, w *workspace.Workspace, sess *chat.Session, fsys acp.FileSystem, sessions *store.Index) *promptTools {
	if off || rt.NoNotesTools {
		return nil
	}
	host, err := mcp.Listen(filepath.Join(e.paths.StateDir, "mcp"), e.log)
	if err != nil {
		e.warn("the notes tools are off for this run: %v", err)
		return nil
	}
	pt := &promptTools{e: e, host: host, w: w}
	pt.h = app.NewNotesTools(app.NotesToolsConfig{
		Session: sess, Workspace: w, FS: fsys, Sessions: sessions,
		Notes: pt.openIndex, Turn: pt.turnContext,
	})
	if pt.tok, err = host.Register(pt); err != nil {
		host.Close()
		e.warn("the notes tools are off for this run: %v", err)
		return nil
	}
	return pt
}

// entry is the notes tools' mcpServers entry, or nil (no tools, or no
// path to this program).
func (pt *promptTools) entry() json.RawMessage {
	if pt == nil {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		pt.e.warn("the notes tools are off for this run: %v", err)
		return nil
	}
	return mcp.Entry("mnote", exe, pt.host.Socket(), pt.tok)
}

// setTurn sets the running turn's context (nil between turns).
func (pt *promptTools) setTurn(ctx context.Context) {
	if pt == nil {
		return
	}
	pt.mu.Lock()
	pt.turn = ctx
	pt.mu.Unlock()
}

func (pt *promptTools) turnContext() context.Context {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return pt.turn
}

// needsIndex are the tools that answer from the notes index.
var needsIndex = map[string]bool{mcp.ToolSearchNotes: true, mcp.ToolListNotes: true, mcp.ToolOutline: true, mcp.ToolBacklinks: true}

// CallTool implements mcp.Handler: the tools of app.NewNotesTools, with
// the notes index opened on first need and updated after an edit_note.
func (pt *promptTools) CallTool(ctx context.Context, tool string, args json.RawMessage) (mcp.Result, error) {
	if needsIndex[tool] {
		pt.index()
	}
	res, err := pt.h.CallTool(ctx, tool, args)
	if tool == mcp.ToolEditNote && err == nil && !res.IsError {
		pt.noteWritten(ctx, args)
	}
	return res, err
}

// openIndex is the notes index when it is open (NotesToolsConfig.Notes).
func (pt *promptTools) openIndex() *notes.Index {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return pt.ix
}

// index opens the folder's notes index once; a failure is said once and
// the index tools answer that the folder is not indexed.
func (pt *promptTools) index() {
	pt.ixOnce.Do(func() {
		ix, err := pt.e.openNotes(pt.w)
		if err != nil {
			pt.e.warn("the notes index of %s could not be opened: %v", pt.w.Dir(), err)
			return
		}
		pt.mu.Lock()
		pt.ix = ix
		pt.mu.Unlock()
	})
}

// noteWritten brings the index up to date with the note edit_note wrote
// (there is no watcher in a `mnote prompt` run), when it is open.
func (pt *promptTools) noteWritten(ctx context.Context, args json.RawMessage) {
	pt.mu.Lock()
	ix := pt.ix
	pt.mu.Unlock()
	var a mcp.EditNoteArgs
	if ix == nil || json.Unmarshal(args, &a) != nil || a.Path == "" {
		return
	}
	p := a.Path
	if !filepath.IsAbs(p) {
		p = filepath.Join(pt.w.Dir(), filepath.FromSlash(p))
	}
	rel, err := pt.w.Rel(p)
	if err == nil {
		err = ix.Update(ctx, rel)
	}
	if err != nil {
		pt.e.log.Debug("notes index not updated after edit_note", "path", a.Path, "err", err)
	}
}

// close revokes the token, stops the socket and closes the index.
func (pt *promptTools) close() {
	if pt == nil {
		return
	}
	if err := pt.host.Close(); err != nil {
		pt.e.log.Debug("closing the notes tools' socket", "err", err)
	}
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if pt.ix != nil {
		if err := pt.ix.Close(); err != nil {
			pt.e.log.Debug("closing the notes index", "err", err)
		}
		pt.ix = nil
	}
}
