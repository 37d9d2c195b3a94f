package workspace

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"mnote/acp"
)

// Hooks let the owner of an agent session record what its file system
// did. Both are called synchronously, after the fact, on the request's
// goroutine.
type Hooks struct {
	// OnWrite is told about every completed write: the workspace-relative
	// path written (symbolic links resolved), the content before (nil for
	// a new file) and after.
	OnWrite func(rel string, before, after []byte, existed bool)
	// OnRefused is told about every request refused for confinement: the
	// path as the agent gave it and why.
	OnRefused func(path, reason string)
}

// AgentFS serves one agent session's fs/* requests inside the workspace;
// it implements acp.FileSystem. Reads answer from the open buffer when the
// file is open with unsaved edits; writes are atomic and update the open
// buffer at once. Refusals are *acp.RPCError "invalid params" errors whose
// message says why.
type AgentFS struct {
	w *Workspace
	h Hooks
}

var _ acp.FileSystem = (*AgentFS)(nil)

// AgentFS returns a file system for one agent session.
func (w *Workspace) AgentFS(h Hooks) *AgentFS { return &AgentFS{w: w, h: h} }

// ReadTextFile implements acp.FileSystem: p must be absolute; line is
// 1-based and limit counts lines, both optional.
func (a *AgentFS) ReadTextFile(_ context.Context, p string, line, limit *int) (string, error) {
	rel, err := a.w.relFromAbs(p)
	if err != nil {
		return "", a.fail(p, err)
	}
	if s, ok := a.w.buffers.dirtyContent(rel); ok {
		return sliceLines(s, line, limit), nil
	}
	b, err := a.w.readText(p, rel)
	if err != nil {
		return "", a.fail(p, err)
	}
	return sliceLines(string(b), line, limit), nil
}

// WriteTextFile implements acp.FileSystem: an atomic write of content to
// the absolute path p, creating missing parent folders inside the
// workspace.
func (a *AgentFS) WriteTextFile(_ context.Context, p, content string) error {
	rel, err := a.w.relFromAbs(p)
	if err != nil {
		return a.fail(p, err)
	}
	after := []byte(content)
	a.w.writeMu.Lock()
	res, err := a.w.writeFile(p, rel, after)
	if err == nil {
		a.w.origins.note(OriginAgent, res.rel)
		a.w.buffers.agentWrote(res.rel, content)
	}
	a.w.writeMu.Unlock()
	if err != nil {
		return a.fail(p, err)
	}
	if a.h.OnWrite != nil {
		a.h.OnWrite(res.rel, res.before, after, res.existed)
	}
	return nil
}

// fail turns an error into what the agent gets, reporting refusals.
func (a *AgentFS) fail(p string, err error) error {
	var re *RefusedError
	switch {
	case errors.As(err, &re):
		if a.h.OnRefused != nil {
			a.h.OnRefused(p, re.Reason)
		}
		return &acp.RPCError{Code: acp.CodeInvalidParams, Message: "refused: " + re.Error()}
	case errors.Is(err, fs.ErrNotExist):
		return &acp.RPCError{Code: acp.CodeNotFound, Message: "file not found: " + p}
	case errors.Is(err, ErrTooLarge), errors.Is(err, ErrNotText), errors.Is(err, ErrNotRegular):
		return &acp.RPCError{Code: acp.CodeInvalidParams, Message: err.Error()}
	default:
		return err
	}
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
