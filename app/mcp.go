package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mnote/acp"
	"mnote/acp/runtimes"
	"mnote/mcp"
	"mnote/notes"
	"mnote/workspace"
)

// This file is the app's side of the notes tools offered to every agent
// over MCP (package mcp): the socket, each live session's token and
// mcpServers entry, and the tools run against the session's workspace.

// startMCP listens on the notes tools' socket (in the state folder, or a
// private temporary folder when that path is too long for a socket). A
// failure is logged: agents then get no notes tools.
func (s *Services) startMCP() {
	h, err := mcp.Listen(filepath.Join(s.paths.StateDir, "mcp"), s.log)
	if err != nil {
		s.log.Warn("the notes tools (MCP) are off: their socket could not be opened", "err", err)
		return
	}
	s.mcp = h
}

// mcpCommand is the program an agent starts for the notes tools: this
// mnote (Config.MCPCommand in tests).
func (s *Services) mcpCommand() string {
	if s.cfg.MCPCommand != "" {
		return s.cfg.MCPCommand
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// mcpServers is the mcpServers list for the live session's agent a of
// runtime rt: mnote's notes tools (unless the agent's "notes_tools" is
// false), reached with the session's own token (made on first use,
// revoked when the session closes), then the user's context_servers of
// config.json (those with a url only when the agent takes HTTP servers).
func (l *liveSession) mcpServers(rt runtimes.Runtime, a *acp.Agent) []json.RawMessage {
	notes := l.notesToolsEntry(rt)
	cfg, e := l.s.config()
	if e != nil {
		return MCPServers(runtimes.Config{}, rt, a, notes, l.s.log)
	}
	return MCPServers(cfg, rt, a, notes, l.s.log)
}

// notesToolsEntry is mnote's own mcpServers entry, or nil.
func (l *liveSession) notesToolsEntry(rt runtimes.Runtime) json.RawMessage {
	h, cmd := l.s.mcp, l.s.mcpCommand()
	if h == nil || cmd == "" || rt.NoNotesTools {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mcpToken == "" {
		tok, err := h.Register(l)
		if err != nil {
			l.s.log.Warn("no notes tools for this session", "session", l.id, "err", err)
			return nil
		}
		l.mcpToken = tok
	}
	return mcp.Entry("mnote", cmd, h.Socket(), l.mcpToken)
}

// contextServerEntry is a user's server as an ACP McpServer: stdio
// {name, command, args, env[]} or {type: "http", name, url, headers[]}.
func contextServerEntry(cs runtimes.ContextServer) json.RawMessage {
	type pair struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	pairs := func(m map[string]string) []pair {
		out := []pair{}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, pair{k, m[k]})
		}
		return out
	}
	var b []byte
	if cs.URL != "" {
		b, _ = json.Marshal(struct {
			Type    string `json:"type"`
			Name    string `json:"name"`
			URL     string `json:"url"`
			Headers []pair `json:"headers"`
		}{"http", cs.Name, cs.URL, pairs(cs.Headers)})
		return b
	}
	args := cs.Args
	if args == nil {
		args = []string{}
	}
	b, _ = json.Marshal(struct {
		Name    string   `json:"name"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Env     []pair   `json:"env"`
	}{cs.Name, cs.Command, args, pairs(cs.Env)})
	return b
}

// revokeMCP ends the session's token.
func (l *liveSession) revokeMCP() {
	l.mu.Lock()
	tok := l.mcpToken
	l.mcpToken = ""
	l.mu.Unlock()
	if tok != "" && l.s.mcp != nil {
		l.s.mcp.Unregister(tok)
	}
}

type notesToolsArgs struct {
	Name string `json:"name"`
	On   bool   `json:"on"`
}

// agentsSetNotesTools turns the notes tools on or off for one agent
// (its config.json entry's "notes_tools"; an entry named like a preset
// overrides only that). Sessions bound from then on follow it.
func (s *Services) agentsSetNotesTools(_ context.Context, a notesToolsArgs) (any, *Error) {
	rt, e := s.runtime(a.Name)
	if e != nil {
		return nil, e
	}
	cfg, e := s.config()
	if e != nil {
		return nil, e
	}
	if cfg.AgentServers == nil {
		cfg.AgentServers = map[string]runtimes.AgentServer{}
	}
	entry := cfg.AgentServers[rt.Name] // keeps what else it sets
	if a.On {
		entry.NotesTools = nil // the default
	} else {
		off := false
		entry.NotesTools = &off
	}
	cfg.AgentServers[rt.Name] = entry
	if err := runtimes.SaveConfig(s.paths.ConfigFile, cfg); err != nil {
		return nil, newError(CodeWriteFailed, "%w", err)
	}
	return s.listAgents()
}

// CallTool implements mcp.Handler: one notes tool call of this session's
// agent, recorded in the transcript.
func (l *notesTools) CallTool(ctx context.Context, tool string, args json.RawMessage) (mcp.Result, error) {
	res := l.callTool(ctx, tool, args)
	logged := args
	if tool == mcp.ToolEditNote {
		logged = withoutContent(args) // the content is in the file_written record
	}
	msg := ""
	if res.IsError {
		msg = res.Text
	}
	l.sess.MCPRecord(tool, logged, res.IsError, msg)
	return res, nil
}

func (l *notesTools) callTool(ctx context.Context, tool string, raw json.RawMessage) mcp.Result {
	switch tool {
	case mcp.ToolSearchNotes:
		var a mcp.SearchNotesArgs
		return withArgs(raw, &a, func() mcp.Result { return l.searchNotes(ctx, a) })
	case mcp.ToolReadNote:
		var a mcp.ReadNoteArgs
		return withArgs(raw, &a, func() mcp.Result { return l.readNote(ctx, a) })
	case mcp.ToolListNotes:
		var a mcp.ListNotesArgs
		return withArgs(raw, &a, func() mcp.Result { return l.listNotes(ctx, a) })
	case mcp.ToolOutline, mcp.ToolBacklinks:
		var a mcp.PathArgs
		return withArgs(raw, &a, func() mcp.Result { return l.noteGraph(ctx, tool, a) })
	case mcp.ToolSearchSessions:
		var a mcp.SearchSessionsArgs
		return withArgs(raw, &a, func() mcp.Result { return l.searchSessions(ctx, a) })
	case mcp.ToolEditNote:
		var a mcp.EditNoteArgs
		return withArgs(raw, &a, func() mcp.Result { return l.editNote(ctx, a) })
	}
	return mcp.Errorf("there is no tool " + tool)
}

// withArgs decodes raw strictly into a and runs fn.
func withArgs(raw json.RawMessage, a any, fn func() mcp.Result) mcp.Result {
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(a); err != nil {
			return mcp.Errorf("the arguments do not fit: " + err.Error())
		}
	}
	return fn()
}

func withoutContent(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if c, ok := m["content"]; ok {
		m["content"] = json.RawMessage(fmt.Sprintf(`{"bytes":%d}`, len(c)))
	}
	b, _ := json.Marshal(m)
	return b
}

// sessionWorkspace is the session's workspace (the open one, or the
// folder opened for confinement only) and its notes index (nil when the
// folder is not an open workspace).
func (l *notesTools) sessionWorkspace() (*workspace.Workspace, *notesIndex, error) {
	return l.open()
}

func (l *notesTools) notesIndex() (*notesIndex, mcp.Result, bool) {
	_, n, err := l.sessionWorkspace()
	if err != nil {
		return nil, mcp.Errorf(err.Error()), false
	}
	if n == nil {
		return nil, mcp.Errorf("the notes of this session's folder are not indexed (it is not the folder open in mnote)"), false
	}
	return n, mcp.Result{}, true
}

// notePath is the absolute path an agent's relative note path names, for
// the confined agent file system to check: it is not cleaned, so ".."
// and the like are refused there rather than resolved here.
func notePath(w *workspace.Workspace, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return w.Dir() + string(filepath.Separator) + filepath.FromSlash(p)
}

// relNote is p as a clean workspace-relative path, or a refusal.
func relNote(w *workspace.Workspace, p string) (string, mcp.Result, bool) {
	rel, err := w.Rel(notePath(w, p))
	if err != nil {
		return "", mcp.Errorf(err.Error()), false
	}
	return rel, mcp.Result{}, true
}

func clampLimit(n int) int {
	if n <= 0 {
		return 20
	}
	return min(n, 200)
}

func jsonResult(v any) mcp.Result {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return mcp.Errorf(err.Error())
	}
	return mcp.Result{Text: string(b)}
}

func (l *notesTools) searchNotes(ctx context.Context, a mcp.SearchNotesArgs) mcp.Result {
	n, bad, ok := l.notesIndex()
	if !ok {
		return bad
	}
	hits, err := n.ix.Search(ctx, a.Query, notes.SearchOptions{Folder: a.Folder, Limit: clampLimit(a.Limit)})
	if err != nil {
		return mcp.Errorf("search failed: " + err.Error())
	}
	if len(hits) == 0 {
		return mcp.Result{Text: "no note matches " + fmt.Sprintf("%q", a.Query)}
	}
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s:%d: %s\n", h.Path, h.Line, h.Snippet)
	}
	return mcp.Result{Text: b.String()}
}

func (l *notesTools) listNotes(ctx context.Context, a mcp.ListNotesArgs) mcp.Result {
	n, bad, ok := l.notesIndex()
	if !ok {
		return bad
	}
	list, err := n.ix.List(ctx, a.Folder)
	if err != nil {
		return mcp.Errorf(err.Error())
	}
	var b strings.Builder
	for _, nt := range list {
		fmt.Fprintf(&b, "%s\t%d bytes", nt.Path, nt.Size)
		if nt.Skipped != "" {
			b.WriteString("\t(" + nt.Skipped + ")")
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return mcp.Result{Text: "no notes"}
	}
	return mcp.Result{Text: b.String()}
}

func (l *notesTools) noteGraph(ctx context.Context, tool string, a mcp.PathArgs) mcp.Result {
	w, n, err := l.sessionWorkspace()
	if err != nil {
		return mcp.Errorf(err.Error())
	}
	rel, bad, ok := relNote(w, a.Path)
	if !ok {
		return bad
	}
	if n == nil {
		_, bad, _ := l.notesIndex()
		return bad
	}
	if tool == mcp.ToolOutline {
		hs, err := n.ix.Outline(ctx, rel)
		if err != nil {
			return mcp.Errorf(err.Error())
		}
		var b strings.Builder
		for _, h := range hs {
			fmt.Fprintf(&b, "%d: %s %s\n", h.Line, strings.Repeat("#", h.Level), h.Text)
		}
		if b.Len() == 0 {
			return mcp.Result{Text: rel + " has no headings (or is not a note)"}
		}
		return mcp.Result{Text: b.String()}
	}
	links, err := n.ix.Backlinks(ctx, rel)
	if err != nil {
		return mcp.Errorf(err.Error())
	}
	var b strings.Builder
	for _, lk := range links {
		fmt.Fprintf(&b, "%s:%d: %s\n", lk.From, lk.Line, lk.Context)
	}
	if b.Len() == 0 {
		return mcp.Result{Text: "no note links to " + rel}
	}
	return mcp.Result{Text: b.String()}
}

// searchSessions searches past sessions' messages, keeping those of
// sessions in this session's folder (an agent in one folder does not read
// the conversations about another).
func (l *notesTools) searchSessions(ctx context.Context, a mcp.SearchSessionsArgs) mcp.Result {
	limit := clampLimit(a.Limit)
	hits, err := l.sessions.Search(ctx, a.Query, limit*4)
	if err != nil {
		return mcp.Errorf("search failed: " + err.Error())
	}
	mine := realPath(l.workspace)
	same := map[string]bool{}
	var b strings.Builder
	n := 0
	for _, h := range hits {
		ok, seen := same[h.SessionID]
		if !seen {
			row, err := l.sessions.GetSession(ctx, h.SessionID)
			ok = err == nil && realPath(row.Workspace) == mine
			same[h.SessionID] = ok
		}
		if !ok || n >= limit {
			continue
		}
		n++
		fmt.Fprintf(&b, "session %s %q turn %d (%s): %s\n", h.SessionID, h.Title, h.Turn, h.Role, h.Snippet)
	}
	if n == 0 {
		return mcp.Result{Text: "no message of a session in this folder matches " + fmt.Sprintf("%q", a.Query)}
	}
	return mcp.Result{Text: b.String()}
}

// readFS reads the whole note through the session's agent file system
// (confined, open buffers' unsaved text included, refusals recorded).
func (l *notesTools) readWhole(ctx context.Context, path string) (*workspace.Workspace, acp.FileSystem, string, string, error) {
	w, _, err := l.sessionWorkspace()
	if err != nil {
		return nil, nil, "", "", err
	}
	fsys, err := l.agentFS()
	if err != nil {
		return nil, nil, "", "", err
	}
	abs := notePath(w, path)
	text, err := fsys.ReadTextFile(ctx, abs, nil, nil)
	return w, fsys, abs, text, err
}

func (l *notesTools) readNote(ctx context.Context, a mcp.ReadNoteArgs) mcp.Result {
	_, _, _, text, err := l.readWhole(ctx, a.Path)
	if err != nil {
		return mcp.Errorf(err.Error())
	}
	lines := splitLines(text)
	from, to := 1, len(lines)
	switch {
	case a.Heading != "":
		s, e, ok := section(lines, a.Heading)
		if !ok {
			return mcp.Errorf(fmt.Sprintf("%s has no heading %q", a.Path, a.Heading))
		}
		from, to = s, e
	case a.StartLine > 0 || a.EndLine > 0:
		from = max(a.StartLine, 1)
		if a.EndLine > 0 {
			to = min(a.EndLine, len(lines))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, lines %d-%d of %d:\n", a.Path, from, to, len(lines))
	for i := from; i <= to && i <= len(lines); i++ {
		fmt.Fprintf(&b, "%d| %s", i, lines[i-1])
		if !strings.HasSuffix(lines[i-1], "\n") {
			b.WriteByte('\n')
		}
	}
	return mcp.Result{Text: b.String()}
}

// splitLines splits text after each newline (the newlines kept).
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// section finds the lines (1-based, inclusive) of the section under the
// ATX heading whose text is heading: from the heading to the line before
// the next heading of the same or a higher level. Fenced code is skipped.
func section(lines []string, heading string) (int, int, bool) {
	want := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(heading), "#"))
	start, level := 0, 0
	fence := false
	for i, ln := range lines {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		lv := len(t) - len(strings.TrimLeft(t, "#"))
		if lv == 0 || lv > 6 || (len(t) > lv && t[lv] != ' ') {
			continue
		}
		text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[lv:]), "#"))
		if start == 0 {
			if strings.EqualFold(text, want) {
				start, level = i+1, lv
			}
			continue
		}
		if lv <= level {
			return start, i, true
		}
	}
	if start == 0 {
		return 0, 0, false
	}
	return start, len(lines), true
}

// writeChecker is an agent file system that tells ahead whether a write
// would be refused (chat.Session.GuardWrites, in a read-only mode), and
// records and shows the refusal as the write would.
type writeChecker interface {
	CheckWrite(path string) error
}

// editOptions are the choices of an edit_note permission request.
var editOptions = []acp.PermissionOption{
	{OptionID: "allow", Name: "Allow", Kind: "allow_once"},
	{OptionID: "allow-always", Name: "Always allow", Kind: "allow_always"},
	{OptionID: "reject", Name: "Reject", Kind: "reject_once"},
	{OptionID: "reject-always", Name: "Always reject", Kind: "reject_always"},
}

// editNote replaces a section, a range of lines or the whole note, after
// asking the user (an edit tool call card on the file, with the diff, through
// the same broker as the agent's own requests), and writes through the
// session's agent file system: confined, through open buffers, recorded
// with the content replaced, inside the turn's checkpoint.
func (l *notesTools) editNote(ctx context.Context, a mcp.EditNoteArgs) mcp.Result {
	turnCtx := l.turnContext()
	if turnCtx == nil {
		return mcp.Errorf("edit_note runs only during a turn of the session")
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(turnCtx, stop)()

	w, fsys, abs, old, err := l.readWhole(ctx, a.Path)
	existed := err == nil
	whole := a.Heading == "" && a.StartLine == 0 && a.EndLine == 0
	if err != nil && !(whole && errors.Is(err, fs.ErrNotExist)) {
		return mcp.Errorf(err.Error())
	}
	rel, bad, ok := relNote(w, a.Path)
	if !ok {
		return bad
	}
	// A read-only mode refuses the edit before the user is asked (the
	// write itself would be refused too).
	if c, ok := fsys.(writeChecker); ok {
		if err := c.CheckWrite(abs); err != nil {
			return mcp.Errorf(err.Error())
		}
	}
	lines := splitLines(old)
	from, to := 1, len(lines)
	switch {
	case whole:
	case a.Heading != "":
		s, e, ok := section(lines, a.Heading)
		if !ok {
			return mcp.Errorf(fmt.Sprintf("%s has no heading %q", rel, a.Heading))
		}
		from, to = s, e
	default:
		from, to = a.StartLine, a.EndLine
		if to == 0 {
			to = from
		}
		if from < 1 || to < from || to > len(lines) {
			return mcp.Errorf(fmt.Sprintf("lines %d-%d are not in %s (it has %d lines)", from, to, rel, len(lines)))
		}
	}
	updated := a.Content
	if !whole {
		repl := a.Content
		if repl != "" && !strings.HasSuffix(repl, "\n") && to < len(lines) {
			repl += "\n"
		}
		updated = strings.Join(lines[:from-1], "") + repl + strings.Join(lines[to:], "")
	}
	if existed && updated == old {
		return mcp.Result{Text: rel + " already has this content; nothing was written"}
	}

	var idb [8]byte
	_, _ = rand.Read(idb[:])
	id := "mnote-edit-" + hex.EncodeToString(idb[:])
	diff := map[string]any{"type": "diff", "path": abs, "newText": updated}
	if existed {
		diff["oldText"] = old
	}
	tc, _ := json.Marshal(map[string]any{
		"toolCallId": id, "title": "", "kind": "edit", "status": "pending",
		"content": []any{diff}, "locations": []any{map[string]any{"path": abs, "line": from}},
	})
	// No title: the reader words it in their language from the kind and
	// the file (the page's permissionTitle, the terminal's permTitle).
	req := &acp.PermissionRequest{SessionID: l.id, ToolCall: tc, Options: editOptions, ToolCallID: id, Kind: "edit"}
	d, _ := l.sess.RequestPermission(ctx, req)
	kind := ""
	for _, o := range editOptions {
		if o.OptionID == d.OptionID {
			kind = o.Kind
		}
	}
	switch {
	case d.OptionID == "":
		return mcp.Errorf("the edit of " + rel + " was cancelled")
	case !strings.HasPrefix(kind, "allow"):
		return mcp.Errorf("the user rejected the edit of " + rel)
	}
	if err := fsys.WriteTextFile(ctx, abs, updated); err != nil {
		l.sess.ToolCallDone(id, "failed", err.Error())
		return mcp.Errorf(err.Error())
	}
	l.sess.ToolCallDone(id, "completed", "")
	if whole {
		return mcp.Result{Text: fmt.Sprintf("wrote %s (%d bytes)", rel, len(updated))}
	}
	return mcp.Result{Text: fmt.Sprintf("replaced lines %d-%d of %s", from, to, rel)}
}
