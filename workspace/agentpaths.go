package workspace

import (
	"context"
	"io/fs"
	"os"
)

// This file is what else reaches the workspace for an agent, under the
// rules of its fs/* requests: the notes index reads what an agent's read
// takes (ReadAgentFile, WalkAgentFiles), and a terminal the agent starts gets
// its working folder from OpenDir, so mnote's own folders (Options.Deny)
// and kernel file systems are out of reach there too.

// ReadAgentFile reads the file rel (workspace-relative, slash-separated)
// from disk as an agent's fs/read_text_file does, open buffers aside: the
// same checks (confinement, no denied folder or kernel file system on the
// way, a regular file with one hard link, at most MaxFile bytes, UTF-8),
// the same errors. It returns the opened file's information too.
func (w *Workspace) ReadAgentFile(rel string) ([]byte, fs.FileInfo, error) {
	r, err := cleanFileRel(rel)
	if err != nil {
		return nil, nil, err
	}
	return w.readAgentFile(rel, r)
}

// WalkAgentFiles calls fn with every regular file under the workspace that
// an agent's read may take by its information (its workspace-relative path
// and information): a file with several hard links is left out, as are
// what the tree, the watcher and the checkpoints skip (ignored names,
// editors' temporary files, mnote's own folders, kernel file systems).
// Symbolic links are not followed; unreadable folders are left out. An
// error from fn, or the end of ctx, ends the walk with that error.
func (w *Workspace) WalkAgentFiles(ctx context.Context, fn func(rel string, fi fs.FileInfo) error) error {
	if err := w.Check(); err != nil {
		return err
	}
	return w.walkFiles(ctx, ".", fn)
}

func (w *Workspace) walkFiles(ctx context.Context, rel string, fn func(rel string, fi fs.FileInfo) error) error {
	ents, err := fs.ReadDir(w.root.FS(), rel)
	if err != nil {
		if rel == "." {
			return w.mapErr(rel, err)
		}
		return nil // an unreadable folder is left out
	}
	for _, e := range ents {
		p := join(rel, e.Name())
		if w.ign.name(e.Name()) || w.deniedEntry(p, e) {
			continue
		}
		switch t := e.Type(); {
		case t.IsDir():
			if err := w.walkFiles(ctx, p, fn); err != nil {
				return err
			}
		case t.IsRegular():
			fi, err := e.Info()
			if err != nil || !fi.Mode().IsRegular() || checkLinks(p, fi) != nil {
				continue
			}
			if err := fn(p, fi); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// OpenDir opens the folder at the absolute path p as the working folder
// of a command the agent runs (ACP terminal/create's cwd), under the rules
// of its fs/* requests: inside the workspace, no "..", no symbolic link
// leading out, no folder of mnote's own (Options.Deny) and no kernel file
// system on the way. The caller changes into the folder opened, never into
// a path that could be swapped meanwhile; abs is its path in the
// workspace, symbolic links resolved. Refusals are *RefusedError; they are
// the caller's to report (Hooks.OnRefused is not told).
func (a *AgentFS) OpenDir(p string) (dir *os.File, abs string, err error) {
	w := a.w
	rel, err := w.relFromAbs(p)
	if err != nil {
		return nil, "", err
	}
	if err := w.Check(); err != nil {
		return nil, "", err
	}
	r, err := w.resolve(p, rel)
	if err != nil {
		return nil, "", err
	}
	d, err := w.openDir(p, r, false)
	if err != nil {
		return nil, "", err
	}
	defer w.closeDir(d)
	f, err := d.Open(".")
	if err != nil {
		return nil, "", w.mapErr(p, err)
	}
	return f, w.Abs(r), nil
}
