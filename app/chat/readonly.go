package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"mnote/acp"
)

// This file holds the one rule for a read-only mode: while the user has
// the agent in a plan or read-only mode (ReadOnly), everything that would
// change the notes folder or run a command is refused, the same way on
// every path: terminal/create (the acp.TerminalConfig's Allow),
// fs/write_text_file and the notes tools' edit_note (both write through
// the file system GuardWrites returns).

// ErrReadOnly is what a *ReadOnlyError is (errors.Is).
var ErrReadOnly = errors.New("the session is in a read-only mode")

// ReadOnlyError refuses a write or a command: the user chose a read-only
// mode. Mode is the setting that says so: the mode's id ("plan"), or a
// config option and its value ("tool_approval: read-only").
type ReadOnlyError struct {
	Mode string
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("%v (%s): the user must choose another mode before the agent changes files or runs commands", ErrReadOnly, e.Mode)
}

func (e *ReadOnlyError) Unwrap() error { return ErrReadOnly }

// readOnlyValues are the mode ids and option values that mean "read
// only": agents' plan modes (Qwen Code, OpenCode, Reasonix) and read-only
// approval settings (Reasonix's tool_approval).
var readOnlyValues = map[string]bool{"plan": true, "read-only": true, "read_only": true, "readonly": true}

// ReadOnly returns a *ReadOnlyError while the agent's mode (or a config
// option of category mode) is a plan or read-only one: the user asked the
// agent not to change anything. It is nil otherwise.
func (s *Session) ReadOnly() error {
	if m, _ := s.readOnly(); m != "" {
		return &ReadOnlyError{Mode: m}
	}
	return nil
}

// readOnly names the read-only mode the session is in (mode), or the
// approval option set to read-only (asks): an agent's approval preset
// (Reasonix's tool_approval, Codex's approval presets), under which the
// agent asks before it changes anything and may then do so.
func (s *Session) readOnly() (mode, asks string) {
	s.mu.Lock()
	meta := s.th.Meta()
	s.mu.Unlock()
	if readOnlyValues[meta.CurrentModeID] {
		return meta.CurrentModeID, ""
	}
	var opts []struct {
		ID           string          `json:"id"`
		Category     string          `json:"category"`
		CurrentValue json.RawMessage `json:"currentValue"`
	}
	_ = json.Unmarshal(meta.ConfigOptions, &opts) // an odd shape refuses nothing
	for _, o := range opts {
		var v string
		if json.Unmarshal(o.CurrentValue, &v) != nil || !readOnlyValues[v] {
			continue
		}
		if o.Category == "mode" || o.ID == "mode" {
			return o.ID + ": " + v, ""
		}
		if asks == "" {
			asks = o.ID + ": " + v
		}
	}
	return "", asks
}

// terminalsAllowed is the terminals' rule: refused in a read-only mode and
// under a read-only approval option (a command cannot be shown before it
// runs as a write's diff can).
func (s *Session) terminalsAllowed() error {
	mode, asks := s.readOnly()
	if mode == "" {
		mode = asks
	}
	if mode != "" {
		return &ReadOnlyError{Mode: mode}
	}
	return nil
}

// allowedWrites are the permissions the user allowed in the current turn
// (their titles and raw tool calls): under a read-only approval option a
// write they name was asked for already.
type allowedWrites struct {
	turn  int
	texts []string
}

// noteAllowed remembers an allowed permission request of the current turn.
// The caller holds s.mu.
func (s *Session) noteAllowed(req *acp.PermissionRequest) {
	if s.allowed.turn != s.turn {
		s.allowed = allowedWrites{turn: s.turn}
	}
	s.allowed.texts = append(s.allowed.texts, req.Title, string(req.ToolCall))
}

// askedFor: the user allowed, in this turn, a request naming path.
func (s *Session) askedFor(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.allowed.turn != s.turn {
		return false
	}
	quoted, _ := json.Marshal(path)
	for _, t := range s.allowed.texts {
		if strings.Contains(t, path) || strings.Contains(t, string(quoted[1:len(quoted)-1])) {
			return true
		}
	}
	return false
}

// GuardWrites returns fs with its writes refused while the session is
// ReadOnly: the refusal answers the agent with an error saying so, is
// recorded (fs_refused) and told to refused (nil tells no one). Reads go
// through; an fs that opens folders for terminals (acp.DirOpener) still
// does.
func (s *Session) GuardWrites(fs acp.FileSystem, refused func(path string, err *ReadOnlyError)) acp.FileSystem {
	g := &writeGuard{FileSystem: fs, s: s, refused: refused}
	if d, ok := fs.(acp.DirOpener); ok {
		return &dirWriteGuard{writeGuard: g, DirOpener: d}
	}
	return g
}

// writeGuard is a FileSystem whose writes a read-only mode refuses
// (GuardWrites).
type writeGuard struct {
	acp.FileSystem
	s       *Session
	refused func(string, *ReadOnlyError)
}

// CheckWrite refuses a write to path now, when the session is ReadOnly
// (recorded and told as WriteTextFile does): for a write that would ask
// the user first (edit_note), so that nobody is asked in vain. The error
// says "refused: " and why; it wraps the *ReadOnlyError.
func (g *writeGuard) CheckWrite(path string) error {
	var ro *ReadOnlyError
	if !errors.As(g.s.ReadOnly(), &ro) {
		return nil
	}
	g.s.FSRefused(path, ro.Error())
	if g.refused != nil {
		g.refused(path, ro)
	}
	return fmt.Errorf("refused: %w", ro)
}

// WriteTextFile implements acp.FileSystem. Under a read-only approval
// option a write the user has not allowed in this turn is asked first
// ("Write <path>", with its diff); not allowed, it is refused.
func (g *writeGuard) WriteTextFile(ctx context.Context, path, content string) error {
	if err := g.CheckWrite(path); err != nil {
		return &acp.RPCError{Code: acp.CodeInvalidParams, Message: err.Error()}
	}
	if _, asks := g.s.readOnly(); asks != "" && !g.s.askedFor(path) {
		if err := g.askWrite(ctx, path, content, asks); err != nil {
			g.s.FSRefused(path, err.Error())
			return &acp.RPCError{Code: acp.CodeInvalidParams, Message: err.Error()}
		}
	}
	return g.FileSystem.WriteTextFile(ctx, path, content)
}

// askWrite asks the user about a write the agent did not ask for under a
// read-only approval option (asks names it).
func (g *writeGuard) askWrite(ctx context.Context, path, content, asks string) error {
	var idb [8]byte
	_, _ = rand.Read(idb[:])
	id := "mnote-write-" + hex.EncodeToString(idb[:])
	title := "Write " + filepath.Base(path)
	tc, _ := json.Marshal(map[string]any{
		"toolCallId": id, "title": title, "kind": "edit", "status": "pending",
		"content":   []any{map[string]any{"type": "diff", "path": path, "newText": content}},
		"locations": []any{map[string]any{"path": path}},
	})
	req := &acp.PermissionRequest{SessionID: g.s.ID, ToolCallID: id, Title: title, Kind: "edit", ToolCall: tc,
		Options: []acp.PermissionOption{{OptionID: "allow", Name: "Allow", Kind: "allow_once"}, {OptionID: "reject", Name: "Reject", Kind: "reject_once"}}}
	d, _ := g.s.RequestPermission(ctx, req)
	if d.OptionID == "allow" {
		return nil
	}
	return fmt.Errorf("refused: the session asks before changes (%s) and the user did not allow this write", asks)
}

// dirWriteGuard is a writeGuard around a file system that opens folders.
type dirWriteGuard struct {
	*writeGuard
	acp.DirOpener
}
