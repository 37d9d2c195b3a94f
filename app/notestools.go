package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"mnote/acp"
	"mnote/acp/runtimes"
	"mnote/app/chat"
	"mnote/mcp"
	"mnote/notes"
	"mnote/store"
	"mnote/workspace"
)

// notesTools runs the notes tools (mcp.go) of one session, for the
// window's live sessions (liveSession.tools) and for `mnote prompt`
// (NewNotesTools): the same tools, the same confinement, the same
// permission request and records, whoever runs the turn.
type notesTools struct {
	id        string // the session's id
	workspace string // the session's folder
	sess      *chat.Session
	sessions  *store.Index // past sessions, for search_sessions
	// open is the session's workspace and its notes index (nil when the
	// folder is not indexed).
	open func() (*workspace.Workspace, *notesIndex, error)
	// fs is the session's agent file system (confined, recorded).
	fs func() (acp.FileSystem, error)
	// turn is the running turn's context, nil between turns.
	turn func() context.Context
}

func (l *notesTools) agentFS() (acp.FileSystem, error) { return l.fs() }

func (l *notesTools) turnContext() context.Context {
	if l.turn == nil {
		return nil
	}
	return l.turn()
}

// tools are the live session's notes tools: the open workspace's (its
// index, open buffers and checkpoints) when the session works in it, else
// the folder opened for confinement only.
func (l *liveSession) tools() *notesTools {
	return &notesTools{
		id: l.id, workspace: l.workspace, sess: l.sess, sessions: l.s.ix,
		open: func() (*workspace.Workspace, *notesIndex, error) {
			if w := l.s.ws.at(l.workspace); w != nil {
				return w, l.s.ws.notesOf(w), nil
			}
			w, err := l.plainWorkspace()
			return w, nil, err
		},
		fs:   l.agentFS,
		turn: l.turnContext,
	}
}

// CallTool implements mcp.Handler: one notes tool call of this session's
// agent, recorded in the transcript.
func (l *liveSession) CallTool(ctx context.Context, tool string, args json.RawMessage) (mcp.Result, error) {
	return l.tools().CallTool(ctx, tool, args)
}

// NotesToolsConfig is what a session run outside the window (`mnote
// prompt`) gives NewNotesTools.
type NotesToolsConfig struct {
	// Session is the chat session: tool calls are recorded in its
	// transcript, and edit_note asks permission through its broker.
	Session *chat.Session
	// Workspace is the session's folder (OpenWorkspace) and FS its agent
	// file system (SessionFS), the one the agent's fs/* requests use.
	Workspace *workspace.Workspace
	FS        acp.FileSystem
	// Notes is the folder's notes index, asked for at each call that
	// needs one (nil, or nil returned: search_notes, list_notes, outline
	// and backlinks answer that the folder is not indexed).
	Notes func() *notes.Index
	// Sessions is the session index, for search_sessions.
	Sessions *store.Index
	// Turn is the running turn's context, nil between turns: edit_note
	// runs only during a turn.
	Turn func() context.Context
}

// NewNotesTools is the mcp.Handler of a session run outside the window,
// to register with an mcp.Host whose Entry goes in the session's
// mcpServers (MCPServers).
func NewNotesTools(c NotesToolsConfig) mcp.Handler {
	var mu sync.Mutex
	var n *notesIndex
	return &notesTools{
		id: c.Session.ID, workspace: c.Workspace.Dir(), sess: c.Session, sessions: c.Sessions,
		open: func() (*workspace.Workspace, *notesIndex, error) {
			if c.Notes == nil {
				return c.Workspace, nil, nil
			}
			ix := c.Notes()
			if ix == nil {
				return c.Workspace, nil, nil
			}
			mu.Lock()
			defer mu.Unlock()
			if n == nil || n.ix != ix {
				n = &notesIndex{ix: ix}
			}
			return c.Workspace, n, nil
		},
		fs:   func() (acp.FileSystem, error) { return c.FS, nil },
		turn: c.Turn,
	}
}

// MCPServers is the mcpServers list of a session of runtime rt on agent
// a: notes (mnote's own entry, mcp.Entry; nil when the notes tools are
// off), then the user's context_servers of cfg (those with a url only
// when the agent takes HTTP MCP servers; one named "mnote" only when the
// notes tools are off).
func MCPServers(cfg runtimes.Config, rt runtimes.Runtime, a *acp.Agent, notes json.RawMessage, log *slog.Logger) []json.RawMessage {
	if log == nil {
		log = slog.Default()
	}
	out := []json.RawMessage{}
	if notes != nil {
		out = append(out, notes)
	}
	servers, err := cfg.ContextServers()
	if err != nil {
		log.Warn("context_servers of config.json not passed to the agent", "err", err)
		return out
	}
	for _, cs := range servers {
		if cs.Name == "mnote" && notes != nil {
			log.Warn("a context server named mnote is not passed: the name is the notes tools'")
			continue
		}
		if cs.URL != "" && (a == nil || !a.Init.AgentCapabilities.McpCapabilities.HTTP) {
			log.Info("context server not passed: the agent takes no HTTP MCP servers", "server", cs.Name, "agent", rt.Name)
			continue
		}
		out = append(out, contextServerEntry(cs))
	}
	return out
}
