package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

// BufferState is an open buffer as the UI sees it.
type BufferState struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	// Dirty: Content has edits not saved to disk.
	Dirty bool `json:"dirty"`
	// Conflict: the file changed on disk while the buffer was dirty. Theirs
	// gives the disk's content; KeepMine or TakeTheirs resolves it.
	Conflict bool `json:"conflict,omitempty"`
	// Deleted: the file is gone from disk; saving creates it again.
	Deleted bool `json:"deleted,omitempty"`
	// Version increases with every change to the buffer.
	Version int64 `json:"version"`
}

// Buffers is the registry of files open in the editor, keyed by their
// workspace-relative path. It lets agents read unsaved edits, keeps the
// buffers in step with the disk (clean buffers reload, dirty ones get a
// conflict) and saves them. Safe for concurrent use.
type Buffers struct {
	w  *Workspace
	mu sync.Mutex
	m  map[string]*buffer
}

type buffer struct {
	content  string
	disk     string // the content last known on disk
	theirs   string // the disk content behind a conflict
	dirty    bool
	conflict bool
	deleted  bool
	version  int64
}

func (b *buffer) state(rel string) BufferState {
	return BufferState{Path: rel, Content: b.content, Dirty: b.dirty, Conflict: b.conflict, Deleted: b.deleted, Version: b.version}
}

func (bs *Buffers) get(rel string) (*buffer, string, error) {
	r, err := cleanFileRel(rel)
	if err != nil {
		return nil, r, err
	}
	b := bs.m[r]
	if b == nil {
		return nil, r, fmt.Errorf("%s is not open in the editor; open it first", r)
	}
	return b, r, nil
}

// Open opens rel (a UTF-8 text file of at most MaxFile bytes) in a buffer
// and returns its state; opening an open file returns its current state.
func (bs *Buffers) Open(rel string) (BufferState, error) {
	r, err := cleanFileRel(rel)
	if err != nil {
		return BufferState{}, err
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if b := bs.m[r]; b != nil {
		return b.state(r), nil
	}
	data, err := bs.w.readText(r, r)
	if err != nil {
		return BufferState{}, err
	}
	b := &buffer{content: string(data), disk: string(data), version: 1}
	bs.m[r] = b
	return b.state(r), nil
}

// Get returns the state of an open buffer.
func (bs *Buffers) Get(rel string) (BufferState, bool) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b, r, err := bs.get(rel)
	if err != nil {
		return BufferState{}, false
	}
	return b.state(r), true
}

// List returns the open buffers, sorted by path.
func (bs *Buffers) List() []BufferState {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	out := make([]BufferState, 0, len(bs.m))
	for r, b := range bs.m {
		out = append(out, b.state(r))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Update replaces the buffer's content with the editor's. dirty is the
// editor's view; content equal to the disk's is clean whatever it says.
func (bs *Buffers) Update(rel, content string, dirty bool) (BufferState, error) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b, r, err := bs.get(rel)
	if err != nil {
		return BufferState{}, err
	}
	if len(content) > MaxFile {
		return b.state(r), fmt.Errorf("%s: content is %s, over the %s limit: %w", r, humanSize(int64(len(content))), humanSize(MaxFile), ErrTooLarge)
	}
	b.content = content
	b.dirty = dirty && !(content == b.disk && !b.deleted)
	b.version++
	return b.state(r), nil
}

// Save writes the buffer to disk atomically. When the file changed on disk
// since the buffer last saw it, nothing is written: the buffer gets a
// conflict and Save returns an error wrapping ErrConflict (resolve with
// KeepMine, then save again, or TakeTheirs).
func (bs *Buffers) Save(rel string) (BufferState, error) {
	w := bs.w
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	bs.mu.Lock()
	b, r, err := bs.get(rel)
	if err != nil {
		bs.mu.Unlock()
		return BufferState{}, err
	}
	if b.conflict {
		st := b.state(r)
		bs.mu.Unlock()
		return st, fmt.Errorf("%s changed on disk; choose keep mine or take theirs first: %w", r, ErrConflict)
	}
	cur, err := w.readText(r, r)
	switch {
	case err == nil && string(cur) != b.disk && string(cur) != b.content:
		b.conflict, b.theirs, b.deleted = true, string(cur), false
		b.version++
		st := b.state(r)
		bs.mu.Unlock()
		w.events.emit(Event{Buffers: []BufferEvent{{Kind: BufferConflict, Buffer: st}}})
		return st, fmt.Errorf("%s changed on disk since it was opened; choose keep mine or take theirs: %w", r, ErrConflict)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		bs.mu.Unlock()
		return b.state(r), err
	}
	res, err := w.writeFile(r, r, []byte(b.content))
	if err != nil {
		st := b.state(r)
		bs.mu.Unlock()
		return st, err
	}
	b.disk, b.dirty, b.deleted = b.content, false, false
	b.version++
	st := b.state(r)
	bs.mu.Unlock()
	w.origins.note(OriginApp, res.rel)
	if w.cps != nil {
		w.cps.userChanged(res.rel)
	}
	return st, nil
}

// Close forgets the buffer (unsaved edits are dropped).
func (bs *Buffers) Close(rel string) {
	r, err := cleanFileRel(rel)
	if err != nil {
		return
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	delete(bs.m, r)
}

// Theirs returns the disk's content behind a conflict (or, without one,
// the content on disk now), for a diff against the buffer.
func (bs *Buffers) Theirs(rel string) (string, error) {
	bs.mu.Lock()
	b, r, err := bs.get(rel)
	if err != nil {
		bs.mu.Unlock()
		return "", err
	}
	if b.conflict {
		defer bs.mu.Unlock()
		return b.theirs, nil
	}
	bs.mu.Unlock()
	data, err := bs.w.readText(r, r)
	return string(data), err
}

// Diff is a unified diff from the disk's content (theirs) to the buffer's
// (mine).
func (bs *Buffers) Diff(rel string) (string, error) {
	theirs, err := bs.Theirs(rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	st, ok := bs.Get(rel)
	if !ok {
		return "", fmt.Errorf("%s is not open in the editor; open it first", rel)
	}
	return UnifiedDiff("disk/"+st.Path, "buffer/"+st.Path, theirs, st.Content), nil
}

// KeepMine resolves a conflict in favour of the buffer: it stays dirty and
// the next Save overwrites the disk's version.
func (bs *Buffers) KeepMine(rel string) (BufferState, error) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b, r, err := bs.get(rel)
	if err != nil {
		return BufferState{}, err
	}
	if b.conflict {
		b.disk, b.theirs, b.conflict = b.theirs, "", false
		b.dirty = b.content != b.disk
		b.version++
	}
	return b.state(r), nil
}

// TakeTheirs resolves a conflict in favour of the disk: the buffer takes
// the disk's content and is clean.
func (bs *Buffers) TakeTheirs(rel string) (BufferState, error) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b, r, err := bs.get(rel)
	if err != nil {
		return BufferState{}, err
	}
	if b.conflict {
		b.content, b.disk, b.theirs = b.theirs, b.theirs, ""
		b.conflict, b.dirty = false, false
		b.version++
	}
	return b.state(r), nil
}

// dirtyContent is the unsaved content of rel for an agent's read. A
// buffer in conflict is not offered: the agent reads the disk (its own
// write, or the other program's) until the person chooses.
func (bs *Buffers) dirtyContent(rel string) (string, bool) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.m[rel]
	if b == nil {
		return "", false
	}
	if b.dirty && !b.conflict {
		return b.content, true
	}
	return "", false
}

// BufferMerged: an agent wrote a file whose buffer had unsaved edits that
// its write did not touch; the buffer holds both (the disk holds the
// agent's write only) and stays dirty until saved.
const BufferMerged BufferEventKind = "merged"

// editorText is the editor's text of rel when it holds edits not on
// disk (dirty, or in conflict).
func (bs *Buffers) editorText(rel string) (string, bool) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.m[rel]
	if b == nil || !b.dirty {
		return "", false
	}
	return b.content, true
}

// agentWrote puts an agent's write (already on disk: pl.write) into the
// open buffer at once. Nothing the person typed is dropped unseen:
//   - a clean buffer takes the write, unless the write lost the person's
//     saved lines to a conflict (pl.conflict): then it keeps them and
//     gets a conflict whose theirs is the agent's write (BufferConflict);
//   - unsaved edits are merged with the agent's content from the text the
//     agent's content was computed from (pl.base: what it last read or
//     wrote, else the file as the turn began, else the text last saved or
//     loaded) (BufferMerged: dirty, the disk holds the agent's write, the
//     next save writes both); when they change the same lines
//     differently the buffer keeps the person's text and gets a conflict.
//
// An agent that read the buffer and wrote it back changed is a clean
// merge (the buffer takes its text and is clean unless the person typed
// on).
//
// It returns the editor's text before the write when the write dropped
// lines of it the person had not saved (else "", false).
func (bs *Buffers) agentWrote(rel string, pl agentWrite) (string, bool) {
	bs.mu.Lock()
	b := bs.m[rel]
	if b == nil {
		bs.mu.Unlock()
		return "", false
	}
	content := pl.write
	kind := BufferWritten
	prev, prevDisk, wasDirty := b.content, b.disk, b.dirty && !b.conflict
	merged, ok := content, true
	if b.dirty && !b.conflict && b.content != content {
		base := b.disk
		if pl.hasBase {
			base = pl.base
		}
		merged, ok = merge3(base, b.content, pl.theirs)
		ok = ok && !pl.conflict
	}
	switch {
	case b.content == content:
		b.content, b.disk, b.theirs = content, content, ""
		b.dirty, b.conflict = false, false
	case b.conflict || !ok || pl.conflict:
		// The person's text stays; the agent's is offered beside it.
		b.conflict, b.theirs = true, content
		b.dirty = true
		kind = BufferConflict
	case !b.dirty:
		b.content, b.disk, b.theirs = content, content, ""
	default:
		b.content, b.disk, b.theirs = merged, content, ""
		b.dirty = merged != content
		if b.dirty {
			kind = BufferMerged
		}
	}
	b.deleted = false
	b.version++
	ev := BufferEvent{Kind: kind, Buffer: b.state(rel)}
	bs.mu.Unlock()
	if wasDirty && kind != BufferConflict {
		if d := typedAway(prevDisk, prev, ev.Buffer.Content); len(d) > 0 {
			ev.Dropped, ev.Previous, ev.PreviousDisk = d, prev, prevDisk
		}
	}
	bs.w.events.emit(Event{Buffers: []BufferEvent{ev}})
	return ev.Previous, len(ev.Dropped) > 0
}

// typedAway are the lines typed from disk to editor that are not in now
// (each counted as often as it occurs), blank ones left out.
func typedAway(disk, editor, now string) []string {
	have := map[string]int{}
	for _, l := range splitLines(now) {
		have[trimEOL(l)]++
	}
	var out []string
	for _, op := range diffLines(splitLines(disk), splitLines(editor)) {
		if op.op != '+' {
			continue
		}
		l := trimEOL(op.line)
		if have[l] > 0 {
			have[l]--
			continue
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// diskChanged brings the buffer of rel, if open, in step with the disk:
// unchanged content is nothing, a clean buffer reloads, a dirty one gets a
// conflict, a deleted one is restored.
func (bs *Buffers) diskChanged(rel string) []BufferEvent {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.m[rel]
	if b == nil {
		return nil
	}
	data, err := bs.w.readText(rel, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return bs.markDeleted(rel, b)
	}
	if err != nil {
		bs.w.log.Warn("reload open buffer", "path", rel, "err", err)
		return nil
	}
	s := string(data)
	kind := BufferReloaded
	if b.deleted {
		b.deleted = false
		kind = BufferRestored
	} else if (b.conflict && s == b.theirs) || (!b.conflict && s == b.disk) {
		return nil
	}
	switch {
	case !b.dirty || s == b.content:
		b.content, b.disk, b.theirs = s, s, ""
		b.dirty, b.conflict = false, false
	default:
		b.conflict, b.theirs = true, s
		kind = BufferConflict
	}
	b.version++
	return []BufferEvent{{Kind: kind, Buffer: b.state(rel)}}
}

// removed marks the buffers of rel and of everything under it deleted.
func (bs *Buffers) removed(rel string) []BufferEvent {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var out []BufferEvent
	for _, r := range bs.under(rel) {
		out = append(out, bs.markDeleted(r, bs.m[r])...)
	}
	return out
}

func (bs *Buffers) markDeleted(rel string, b *buffer) []BufferEvent {
	if b.deleted {
		return nil
	}
	b.deleted = true
	b.version++
	return []BufferEvent{{Kind: BufferDeleted, Buffer: b.state(rel)}}
}

// moved re-keys the buffers of from (and under it) to to, for renames
// and moves done through mnote.
func (bs *Buffers) moved(from, to string) []BufferEvent {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var out []BufferEvent
	for _, r := range bs.under(from) {
		nr := to + strings.TrimPrefix(r, from)
		b := bs.m[r]
		delete(bs.m, r)
		b.version++
		bs.m[nr] = b
		out = append(out, BufferEvent{Kind: BufferMoved, Buffer: b.state(nr), From: r})
	}
	return out
}

// under lists the open paths equal to rel or inside it, sorted. The caller
// holds bs.mu.
func (bs *Buffers) under(rel string) []string {
	var out []string
	for r := range bs.m {
		if r == rel || strings.HasPrefix(r, rel+"/") {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// recheck brings the open buffers of rel and under it in step with the
// disk (after a restore or a revert).
func (bs *Buffers) recheck(rel string) []BufferEvent {
	bs.mu.Lock()
	paths := bs.under(rel)
	bs.mu.Unlock()
	var out []BufferEvent
	for _, r := range paths {
		out = append(out, bs.diskChanged(r)...)
	}
	return out
}
