package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

func sortChanges(fc []FileChange) {
	sort.Slice(fc, func(i, j int) bool { return fc[i].Path < fc[j].Path })
}

// List returns the stored checkpoints, oldest first.
func (c *Checkpoints) List() ([]Checkpoint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checkpoints("")
}

// Get returns the checkpoint of a turn; the error wraps fs.ErrNotExist
// when the turn changed no file (or is unknown).
func (c *Checkpoints) Get(turn string) (*Checkpoint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.get(turn)
}

func (c *Checkpoints) get(turn string) (*Checkpoint, error) {
	cps, err := c.checkpoints(turn)
	if err != nil {
		return nil, err
	}
	if len(cps) == 0 {
		return nil, fmt.Errorf("no checkpoint for turn %s (it changed no file, or was deleted): %w", turn, fs.ErrNotExist)
	}
	return &cps[0], nil
}

// FileDiff is one file of a turn's changes, as a unified diff.
type FileDiff struct {
	Path string `json:"path"`
	Op   Op     `json:"op"`
	// Diff is the unified diff ("" when NotKept is set).
	Diff    string `json:"diff"`
	NotKept string `json:"notKept,omitempty"`
}

// Changes returns the unified diffs (before → after) of a turn's files,
// for the "Changes" view.
func (c *Checkpoints) Changes(turn string) ([]FileDiff, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp, err := c.get(turn)
	if err != nil {
		return nil, err
	}
	out := make([]FileDiff, 0, len(cp.Files))
	for _, f := range cp.Files {
		d := FileDiff{Path: f.Path, Op: f.Op, NotKept: f.NotKept}
		if f.NotKept == "" {
			before, err := c.text(f.Before)
			if err != nil {
				return nil, err
			}
			after, err := c.text(f.After)
			if err != nil {
				return nil, err
			}
			d.Diff = diffFor(f.Path, f.Op, before, after)
		}
		out = append(out, d)
	}
	return out, nil
}

// text is a blob's content ("" for none).
func (c *Checkpoints) text(h string) (string, error) {
	if h == "" {
		return "", nil
	}
	b, err := c.blob(h)
	return string(b), err
}

func diffFor(p string, op Op, before, after string) string {
	from, to := "a/"+p, "b/"+p
	switch op {
	case Created:
		from = "/dev/null"
	case Removed:
		to = "/dev/null"
	}
	return UnifiedDiff(from, to, before, after)
}

// RevertConflict is a file changed since the turn: Diff goes from the
// turn's result to what is there now.
type RevertConflict struct {
	Path string `json:"path"`
	Diff string `json:"diff"`
}

// RevertConflictError is Revert's refusal: files changed since the turn.
// Nothing was reverted.
type RevertConflictError struct {
	Turn      string           `json:"turn"`
	Conflicts []RevertConflict `json:"conflicts"`
}

func (e *RevertConflictError) Error() string {
	names := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		names[i] = c.Path
	}
	return fmt.Sprintf("cannot revert turn %s: %s changed since (nothing was reverted); revert later turns first or undo those edits", e.Turn, strings.Join(names, ", "))
}

// RevertResult is what a revert did.
type RevertResult struct {
	Restored []string `json:"restored"` // written back to their content before the turn
	Deleted  []string `json:"deleted"`  // created by the turn, removed
	// Skipped are files whose content was not kept (not text, over 10
	// MiB): left as they are.
	Skipped []FileChange `json:"skipped,omitempty"`
}

// Revert puts every file the turn changed back as it was before the turn
// (deleting the files it created; folders it created are left). It is
// all-or-nothing: when any file's current content is not what the turn
// left, nothing is written and the error is a *RevertConflictError with a
// diff per such file. Files whose content was not kept are skipped and
// listed. A reverted checkpoint is marked and cannot be reverted again.
// Open buffers follow (clean ones reload, dirty ones get a conflict).
func (c *Checkpoints) Revert(turn string) (*RevertResult, error) {
	return c.swap(turn, false)
}

// UndoRevert undoes the revert of turn: every file the revert wrote gets
// the content the turn left again, the files the turn created and the
// revert removed come back, and the files the turn removed go again. It
// is all-or-nothing: when a file changed since the revert nothing is
// written and the error is a *RevertConflictError. The checkpoint is no
// longer marked reverted (it can be reverted again).
func (c *Checkpoints) UndoRevert(turn string) (*RevertResult, error) {
	return c.swap(turn, true)
}

// swap is Revert (undo false: from what the turn left to what was before
// it) and UndoRevert (undo true: the other way).
func (c *Checkpoints) swap(turn string, undo bool) (*RevertResult, error) {
	w := c.w
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := w.Check(); err != nil {
		return nil, err
	}
	cp, err := c.get(turn)
	if err != nil {
		return nil, err
	}
	switch {
	case !undo && cp.Reverted != nil:
		return nil, fmt.Errorf("turn %s was already reverted at %s", turn, cp.Reverted.Format(time.DateTime))
	case undo && cp.Reverted == nil:
		return nil, fmt.Errorf("turn %s is not reverted, so there is nothing to undo: %w", turn, fs.ErrInvalid)
	}
	// Each file goes from its content "now" (what the turn left, or what
	// the revert left) to its content "then"; a file the turn created (or,
	// undoing, removed) is not there then.
	now := func(f FileChange) string { return f.After }
	then := func(f FileChange) string { return f.Before }
	absentNow, absentThen, label := Removed, Created, "turn/"
	if undo {
		now, then = then, now
		absentNow, absentThen, label = Created, Removed, "reverted/"
	}
	res := &RevertResult{}
	var todo []FileChange
	var conflicts []RevertConflict
	for _, f := range cp.Files {
		if f.NotKept != "" {
			if !undo {
				res.Skipped = append(res.Skipped, f)
			}
			continue
		}
		cur, exists, err := c.current(f.Path)
		if err != nil {
			return nil, err
		}
		if (f.Op == absentNow && !exists) || (f.Op != absentNow && exists && hashOf(cur) == now(f)) {
			todo = append(todo, f)
			continue
		}
		want, err := c.text(now(f))
		if err != nil {
			return nil, err
		}
		got := string(cur)
		if !utf8.Valid(cur) {
			got = "(binary content)\n"
		}
		from, to := label+f.Path, "now/"+f.Path
		if f.Op == absentNow {
			from = "/dev/null"
		}
		if !exists {
			to, got = "/dev/null", ""
		}
		conflicts = append(conflicts, RevertConflict{Path: f.Path, Diff: UnifiedDiff(from, to, want, got)})
	}
	if len(conflicts) > 0 {
		return nil, &RevertConflictError{Turn: turn, Conflicts: conflicts}
	}
	var touched []string
	var errs []error
	for _, f := range todo {
		if f.Op == absentThen {
			if err := w.root.Remove(osRel(f.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, w.mapErr(f.Path, err))
				continue
			}
			res.Deleted = append(res.Deleted, f.Path)
			touched = append(touched, f.Path)
			continue
		}
		data, err := c.blob(then(f))
		if err == nil {
			_, err = w.writeFile(f.Path, f.Path, data)
		}
		if err == nil && !undo && f.BeforeMode != 0 {
			err = w.root.Chmod(osRel(f.Path), fs.FileMode(f.BeforeMode).Perm())
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		res.Restored = append(res.Restored, f.Path)
		touched = append(touched, f.Path)
	}
	if undo {
		cp.Reverted = nil
	} else {
		at := time.Now()
		cp.Reverted = &at
	}
	if err := c.storeCheckpoint(cp); err != nil {
		errs = append(errs, err)
	}
	w.origins.note(OriginApp, touched...)
	c.userChangedLocked(touched...)
	var evs []BufferEvent
	for _, p := range touched {
		evs = append(evs, w.buffers.recheck(p)...)
	}
	w.events.emit(Event{Buffers: evs})
	if len(errs) > 0 {
		what := "revert turn " + turn
		if undo {
			what = "undo the revert of turn " + turn
		}
		return res, fmt.Errorf("%s: %d of %d files failed (the others were written): %w", what, len(errs), len(todo), errors.Join(errs...))
	}
	return res, nil
}

// current reads a file's content now; exists is false when it is gone.
func (c *Checkpoints) current(rel string) (data []byte, exists bool, err error) {
	fi, err := c.w.root.Lstat(osRel(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, c.w.mapErr(rel, err)
	}
	if !fi.Mode().IsRegular() {
		return []byte("(" + kindOf(fi.Mode()) + ")\n"), true, nil
	}
	b, _, err := c.w.readRegular(rel, rel)
	if errors.Is(err, ErrTooLarge) {
		return []byte("(over " + humanSize(MaxFile) + ")\n"), true, nil
	}
	return b, err == nil, err
}

// Delete forgets a turn's checkpoint (its contents are freed by Prune).
func (c *Checkpoints) Delete(turn string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.db.Exec(`DELETE FROM turns WHERE id = ?`, turn); err != nil {
		return fmt.Errorf("delete checkpoint of turn %s: %w", turn, err)
	}
	return nil
}

// Prune keeps the newest keep checkpoints, deletes the others and removes
// the stored contents nothing refers to any more (not the manifest, not a
// running turn, not a checkpoint). It returns how many contents it removed.
func (c *Checkpoints) Prune(keep int) (int, error) {
	if err := c.Ready(); err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	list, err := c.checkpoints("")
	if err != nil {
		return 0, err
	}
	used := map[string]bool{}
	for i, cp := range list {
		if i < len(list)-max(keep, 0) {
			if _, err := c.db.Exec(`DELETE FROM turns WHERE id = ?`, cp.Turn); err != nil {
				return 0, fmt.Errorf("prune checkpoints: %w", err)
			}
			continue
		}
		for _, f := range cp.Files {
			used[f.Before], used[f.After] = true, true
		}
	}
	for _, e := range c.man {
		used[e.Hash] = true
	}
	for _, t := range c.turns {
		for _, e := range t.base {
			used[e.Hash] = true
		}
	}
	rows, err := c.db.Query(`SELECT hash FROM blobs`)
	if err != nil {
		return 0, fmt.Errorf("prune checkpoint contents: %w", err)
	}
	var unused []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			rows.Close()
			return 0, fmt.Errorf("prune checkpoint contents: %w", err)
		}
		if !used[h] {
			unused = append(unused, h)
		}
	}
	rows.Close()
	tx, err := c.db.Begin()
	if err != nil {
		return 0, fmt.Errorf("prune checkpoint contents: %w", err)
	}
	for _, h := range unused {
		if _, err := tx.Exec(`DELETE FROM blobs WHERE hash = ?`, h); err != nil {
			tx.Rollback()
			return 0, fmt.Errorf("prune checkpoint contents: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("prune checkpoint contents: %w", err)
	}
	if _, err := c.db.Exec(`PRAGMA incremental_vacuum`); err != nil {
		c.w.log.Warn("checkpoints: incremental vacuum", "err", err)
	}
	return len(unused), nil
}
