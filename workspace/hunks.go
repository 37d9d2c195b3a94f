package workspace

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// Hunk is one change a turn made to a file: the lines Before were
// replaced by the lines After, which start at line Start (1-based) of the
// file as it is now
// (for a pure deletion, After is "" and Start the line Before stood
// before). Texts keep their newlines.
type Hunk struct {
	Start  int    `json:"start"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// Review actions on hunks.
const (
	HunkKept     = "kept"     // reviewed, left as it is
	HunkRejected = "rejected" // put back to Before
	HunkRestored = "restored" // a rejected hunk applied again (the reject undone)
)

// HunkReview is a review of one hunk, kept with the turn's checkpoint.
// For a rejected hunk Start is where Before now stands (what undoing it
// needs); for the others, where After stands.
type HunkReview struct {
	Action string    `json:"action"`
	At     time.Time `json:"at"`
	Hunk
}

// FileHunks is a changed file's hunks now and the reviews made so far.
type FileHunks struct {
	Path    string       `json:"path"`
	Hunks   []Hunk       `json:"hunks"`
	Reviews []HunkReview `json:"reviews,omitempty"`
}

// Hunks lists the hunks the turn made in path (from the file as the turn
// found it to what it left, or what a review kept), placed in the file as
// it is on disk now, with the reviews. A hunk whose lines were edited
// since the turn is not listed (it is no longer the turn's alone).
func (c *Checkpoints) Hunks(turn, path string) (*FileHunks, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, f, err := c.fileOf(turn, path)
	if err != nil {
		return nil, err
	}
	return c.fileHunks(f)
}

func (c *Checkpoints) fileHunks(f *FileChange) (*FileHunks, error) {
	before, err := c.text(f.Before)
	if err != nil {
		return nil, err
	}
	after, err := c.text(f.After)
	if err != nil {
		return nil, err
	}
	cur, exists, err := c.current(f.Path)
	if err != nil {
		return nil, err
	}
	now := ""
	if exists {
		now = string(cur)
	}
	return &FileHunks{Path: f.Path, Hunks: turnHunks(before, after, now), Reviews: f.Reviews}, nil
}

// turnHunks is the line diff before → after as Hunks placed in now (after
// with later edits): hunks the later edits touch are left out.
func turnHunks(before, after, now string) []Hunk {
	bl, al := splitLines(before), splitLines(after)
	later := hunksOf(al, splitLines(now))
	out := []Hunk{}
	pos, last := 0, 0 // pos: line of after
	for _, h := range hunksOf(bl, al) {
		pos += h.s - last
		span := hunk{s: pos, e: pos + len(h.lines)}
		pos += len(h.lines)
		last = h.e
		shift, touched := 0, false
		for _, l := range later {
			if touches(span, l) {
				touched = true
				break
			}
			if l.e <= span.s {
				shift += len(l.lines) - (l.e - l.s)
			}
		}
		if !touched {
			out = append(out, Hunk{Start: span.s + shift + 1, Before: strings.Join(bl[h.s:h.e], ""), After: strings.Join(h.lines, "")})
		}
	}
	return out
}

// fileOf finds path among the files of turn's checkpoint. The caller
// holds c.mu.
func (c *Checkpoints) fileOf(turn, path string) (*Checkpoint, *FileChange, error) {
	cp, err := c.get(turn)
	if err != nil {
		return nil, nil, err
	}
	for i := range cp.Files {
		if f := &cp.Files[i]; f.Path == path {
			if f.NotKept != "" {
				return nil, nil, fmt.Errorf("%s: its content was not kept (%s), so its hunks are not known: %w", path, f.NotKept, fs.ErrInvalid)
			}
			return cp, f, nil
		}
	}
	return nil, nil, fmt.Errorf("turn %s did not change %s: %w", turn, path, fs.ErrNotExist)
}

// ReviewHunks records a review of hunks of a file turn changed. action
// HunkKept writes nothing. HunkRejected puts each hunk's After back to its
// Before; HunkRestored undoes a reject (hs as the HunkReviews of that
// reject gave them). It is all-or-nothing: when a hunk's text is not at
// its line any more, or the file is open with unsaved edits, nothing is
// written and the error wraps ErrConflict. The write is the app's (the
// watcher marks it so, open buffers reload, the turn's later checkpoints
// do not count it). The new hunks and reviews are returned.
func (c *Checkpoints) ReviewHunks(turn, path, action string, hs []Hunk) (*FileHunks, error) {
	if len(hs) == 0 {
		return nil, fmt.Errorf("no hunks to review: %w", fs.ErrInvalid)
	}
	w := c.w
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := w.Check(); err != nil {
		return nil, err
	}
	cp, f, err := c.fileOf(turn, path)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	var reviews []HunkReview
	switch action {
	case HunkKept:
		for _, h := range hs {
			reviews = append(reviews, HunkReview{Action: HunkKept, At: now, Hunk: h})
		}
	case HunkRejected, HunkRestored:
		if _, dirty := w.buffers.dirtyContent(path); dirty {
			return nil, fmt.Errorf("%s has unsaved edits: save them (or undo them) first: %w", path, ErrConflict)
		}
		cur, exists, err := c.current(path)
		if err != nil {
			return nil, err
		}
		if !exists {
			return nil, fmt.Errorf("%s is gone since the turn: %w", path, ErrConflict)
		}
		from, to := func(h Hunk) string { return h.After }, func(h Hunk) string { return h.Before }
		if action == HunkRestored {
			from, to = to, from
		}
		text, starts, err := swapHunks(string(cur), hs, from, to)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		// The turn's result with the same swap (not the person's later
		// edits, which a revert of the turn must still see as changed).
		oldAfter, err := c.text(f.After)
		if err != nil {
			return nil, err
		}
		kept, ok := merge3(string(cur), oldAfter, text)
		if !ok {
			kept = text
		}
		tx, err := c.begin()
		if err != nil {
			return nil, err
		}
		if err := tx.putBlob(hashOf([]byte(kept)), []byte(kept)); err != nil {
			tx.rollback()
			return nil, err
		}
		if err := tx.commit(); err != nil {
			tx.rollback()
			return nil, err
		}
		if _, err := w.writeFile(path, path, []byte(text)); err != nil {
			return nil, err
		}
		f.After = hashOf([]byte(kept))
		w.origins.note(OriginApp, path)
		c.userChangedLocked(path)
		w.events.emit(Event{Buffers: w.buffers.recheck(path)})
		for i, h := range hs {
			h.Start = starts[i]
			reviews = append(reviews, HunkReview{Action: action, At: now, Hunk: h})
		}
	default:
		return nil, fmt.Errorf("unknown review action %q (kept, rejected or restored): %w", action, fs.ErrInvalid)
	}
	f.Reviews = append(f.Reviews, reviews...)
	if err := c.storeCheckpoint(cp); err != nil {
		return nil, err
	}
	return c.fileHunks(f)
}

// swapHunks replaces, for each hunk, from(h) at its line by to(h), checking
// every one first. starts are the lines where to(h) begins in the result.
func swapHunks(text string, hs []Hunk, from, to func(Hunk) string) (string, []int, error) {
	lines := splitLines(text)
	order := make([]int, len(hs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return hs[a].Start - hs[b].Start })
	var sb strings.Builder
	starts := make([]int, len(hs))
	pos, shift := 0, 0
	for _, i := range order {
		h := hs[i]
		old, repl := splitLines(from(h)), splitLines(to(h))
		s := h.Start - 1
		if s < pos || s+len(old) > len(lines) || strings.Join(lines[s:s+len(old)], "") != from(h) {
			return "", nil, fmt.Errorf("the text of a change at line %d is not there any more (the file changed since): %w", h.Start, ErrConflict)
		}
		sb.WriteString(strings.Join(lines[pos:s], ""))
		sb.WriteString(to(h))
		starts[i] = h.Start + shift
		shift += len(repl) - len(old)
		pos = s + len(old)
	}
	sb.WriteString(strings.Join(lines[pos:], ""))
	return sb.String(), starts, nil
}
