package workspace

import (
	"context"
	"errors"
	"strings"
)

// Hooks let the owner of an agent session record what its file system
// did. Both are called synchronously, after the fact, on the request's
// goroutine.
type Hooks struct {
	// Reader names the agent session (its id): what it reads and writes
	// is remembered as the base its next write of a file is merged from.
	Reader string
	// OnWrite is told about every completed write: the workspace-relative
	// path written (symbolic links resolved), the content before (nil for
	// a new file) and after.
	OnWrite func(rel string, before, after []byte, existed bool)
	// OnRefused is told about every request refused for confinement: the
	// path as the agent gave it and why.
	OnRefused func(path, reason string)
}

// AgentFS serves one agent session's fs/* requests inside the workspace
// (it has the methods of acp.FileSystem; its owner turns its errors into
// JSON-RPC ones). Reads answer from the open buffer when the file is open
// with unsaved edits; writes are atomic and update the open buffer at
// once. Refusals are *RefusedError, reported to Hooks.OnRefused; a
// missing file wraps ErrNotFound, others ErrTooLarge, ErrNotText or
// ErrNotRegular.
type AgentFS struct {
	w *Workspace
	h Hooks
}

// AgentFS returns a file system for one agent session.
func (w *Workspace) AgentFS(h Hooks) *AgentFS { return &AgentFS{w: w, h: h} }

// ReadTextFile reads the file at the absolute path p: line is 1-based and
// limit counts lines, both optional. A file with several hard links is
// refused. The whole content is remembered as what the agent knows of
// the file (the base of its next write).
func (a *AgentFS) ReadTextFile(_ context.Context, p string, line, limit *int) (string, error) {
	rel, err := a.w.relFromAbs(p)
	if err != nil {
		return "", a.fail(p, err)
	}
	if s, ok := a.w.buffers.dirtyContent(rel); ok {
		if err := a.w.checkAgentPath(p, rel); err != nil {
			return "", a.fail(p, err)
		}
		a.noteRead(p, rel, s)
		return sliceLines(s, line, limit), nil
	}
	b, err := a.w.readAgent(p, rel)
	if err != nil {
		return "", a.fail(p, err)
	}
	a.noteRead(p, rel, string(b))
	return sliceLines(string(b), line, limit), nil
}

// noteRead remembers content as what the agent knows of the file.
func (a *AgentFS) noteRead(p, rel, content string) {
	if r, err := a.w.resolve(p, rel); err == nil {
		a.w.reads.note(a.h.Reader, r, content)
	}
}

// WriteTextFile writes content to the absolute path p atomically,
// creating missing parent folders inside the workspace. The content is
// merged with what the person changed since the agent read the file
// (agentwrite.go): their lines are never dropped unseen.
func (a *AgentFS) WriteTextFile(_ context.Context, p, content string) error {
	rel, err := a.w.relFromAbs(p)
	if err != nil {
		return a.fail(p, err)
	}
	a.w.writeMu.Lock()
	var pl agentWrite
	var disk []byte
	var derr error
	r, err := a.w.resolve(p, rel)
	if err == nil {
		// Not there, not text or too big: nothing to merge with (a
		// refusal is writeFile's to give).
		disk, derr = a.w.readAgent(p, r)
		_, unsaved := a.w.buffers.editorText(r)
		pl = a.w.planAgentWrite(a.h.Reader, r, content, string(disk), derr == nil, unsaved)
	}
	var res written
	if err == nil {
		res, err = a.w.writeFile(p, rel, []byte(pl.write))
	}
	if err == nil {
		a.w.origins.note(OriginAgent, res.rel)
		editor, dropped := a.w.buffers.agentWrote(res.rel, pl)
		if dropped && derr == nil && a.w.cps != nil {
			// The write took lines the person had not saved out of the
			// editor: their text is the "before" of this file in the
			// turn's checkpoint, so Reject and Revert give it back.
			a.w.cps.userUnsaved(res.rel, string(disk), editor)
		}
		a.w.reads.note(a.h.Reader, res.rel, pl.write)
	}
	a.w.writeMu.Unlock()
	if err != nil {
		return a.fail(p, err)
	}
	if a.h.OnWrite != nil {
		a.h.OnWrite(res.rel, res.before, []byte(pl.write), res.existed)
	}
	return nil
}

// fail reports refusals and returns err.
func (a *AgentFS) fail(p string, err error) error {
	var re *RefusedError
	if errors.As(err, &re) && a.h.OnRefused != nil {
		a.h.OnRefused(p, re.Reason)
	}
	return err
}

// sliceLines returns limit lines of s from the 1-based line (all of them
// when both are nil). A line past the end gives "".
func sliceLines(s string, line, limit *int) string {
	if line == nil && limit == nil {
		return s
	}
	start := 0
	if line != nil {
		for i := 1; i < *line; i++ {
			j := strings.IndexByte(s[start:], '\n')
			if j < 0 {
				return ""
			}
			start += j + 1
		}
	}
	if limit == nil || *limit < 0 {
		return s[start:]
	}
	end := start
	for i := 0; i < *limit && end < len(s); i++ {
		j := strings.IndexByte(s[end:], '\n')
		if j < 0 {
			end = len(s)
			break
		}
		end += j + 1
	}
	return s[start:end]
}
