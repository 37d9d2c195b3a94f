package workspace

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"
)

// Checkpoints keeps, for every agent turn, the content before and after of
// each file the turn changed, however it was changed: through
// fs/write_text_file or by the agent writing to disk itself.
//
// It holds a content-addressed store (SHA-256 → content) and a manifest
// of the workspace (path → size, mtime, inode, ctime, hash) in one SQLite
// file under the state folder (see checkpoint_db.go). The manifest is refreshed incrementally at BeginTurn and EndTurn
// (every file is stat'ed; only files whose size, mtime, inode or ctime changed, or
// whose mtime was too recent to trust, are read); the first refresh, which
// reads everything, runs in the background from Open. EndTurn compares the
// manifest with the one of BeginTurn and stores a Checkpoint. Changes the
// user makes through mnote during a turn (saves, tree operations, reverts)
// are folded into the turn's starting point, so they are not the agent's.
// Changes by other programs during a turn are attributed to it.
//
// Text files (UTF-8) up to MaxFile are kept; other files are tracked by
// hash only and listed as not kept (a revert skips them); files over
// MaxFile are tracked by size and mtime. Ignored folders are skipped.
// Turns running at the same time in one workspace each get every change
// made while they ran.
type Checkpoints struct {
	w  *Workspace
	db *sql.DB

	mu    sync.Mutex
	man   map[string]entry // the workspace as last scanned
	turns map[string]*turn // running turns

	active   atomic.Value // string: the last turn begun that is still running
	primed   chan struct{}
	primeErr error
	closing  chan struct{}
}

// entry is a manifest row.
type entry struct {
	Size  int64  `json:"s"`
	MTime int64  `json:"m"`
	Ino   uint64 `json:"i,omitempty"`
	CTime int64  `json:"c,omitempty"`
	Mode  uint32 `json:"p"`
	Hash  string `json:"h,omitempty"`
	Blob  bool   `json:"b,omitempty"` // the content is in the blob store
	Big   bool   `json:"g,omitempty"` // over MaxFile: not read
	Racy  bool   `json:"r,omitempty"` // mtime too recent to trust: read again next time
}

type turn struct {
	id      string
	started time.Time
	base    map[string]entry
	// orig is what base held for a file before the person's changes were
	// folded into it (absent: the file did not exist): the file as the
	// turn began, the text an agent that never read it wrote from.
	orig map[string]origEntry
}

type origEntry struct {
	e      entry
	exists bool
}

// FileChange is a file a turn changed. Before and After are blob hashes
// ("" when the file did not exist, or for a file over MaxFile).
type FileChange struct {
	Path       string `json:"path"`
	Op         Op     `json:"op"` // created, changed or removed
	Before     string `json:"before,omitempty"`
	After      string `json:"after,omitempty"`
	BeforeMode uint32 `json:"beforeMode,omitempty"`
	// NotKept says why the content is not kept ("over 10 MiB", "not
	// text"); Revert skips such files.
	NotKept string `json:"notKept,omitempty"`
	// Reviews are the person's reviews of its hunks (ReviewHunks), oldest
	// first. A reject (or its undo) makes After the text it left: the
	// checkpoint holds what was kept, the reviews what was rejected.
	Reviews []HunkReview `json:"reviews,omitempty"`
}

// Checkpoint is what one turn changed.
type Checkpoint struct {
	Turn     string       `json:"turn"`
	Started  time.Time    `json:"started"`
	Ended    time.Time    `json:"ended"`
	Files    []FileChange `json:"files"`
	Reverted *time.Time   `json:"reverted,omitempty"`
}

func openCheckpoints(w *Workspace, dir string) (*Checkpoints, error) {
	db, err := openCPDB(dir)
	if err != nil {
		return nil, err
	}
	c := &Checkpoints{
		w: w, db: db, man: map[string]entry{}, turns: map[string]*turn{},
		primed: make(chan struct{}), closing: make(chan struct{}),
	}
	c.active.Store("")
	go c.prime()
	return c, nil
}

// Checkpoints are kept for folders up to these sizes (see ErrTooBig).
const (
	MaxCheckpointFiles = 100_000
	MaxCheckpointBytes = 1 << 30
)

// checkpointLimits are the limits in force (tests lower them).
var checkpointLimits = struct{ files, bytes int64 }{MaxCheckpointFiles, MaxCheckpointBytes}

// ErrTooBig: the folder is too big to keep checkpoints of.
var ErrTooBig = errors.New("this folder is too big for checkpoints")

// prime loads the saved manifest and brings it up to date.
func (c *Checkpoints) prime() {
	defer close(c.primed)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.loadManifest(); err != nil {
		c.w.log.Warn("checkpoint manifest unreadable; rebuilding it", "err", err)
		c.man = map[string]entry{}
	}
	c.primeErr = c.refresh()
}

func (c *Checkpoints) close() {
	close(c.closing)
	<-c.primed
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.db.Close()
}

// Ready waits for the first scan of the workspace (started by Open) and
// returns its error.
func (c *Checkpoints) Ready() error {
	<-c.primed
	return c.primeErr
}

// BeginTurn marks the start of the agent turn id: the workspace is scanned
// (incrementally) and remembered as the turn's starting point. Call it
// before sending the prompt.
func (c *Checkpoints) BeginTurn(id string) error {
	if err := c.Ready(); err != nil {
		return fmt.Errorf("checkpoints unavailable: %w", err)
	}
	if id == "" {
		return errors.New("begin turn: empty turn id")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.turns[id] != nil {
		return fmt.Errorf("turn %s has already begun; end it first", id)
	}
	if err := c.refresh(); err != nil {
		return fmt.Errorf("begin turn %s: %w", id, err)
	}
	base := make(map[string]entry, len(c.man))
	for k, v := range c.man {
		base[k] = v
	}
	c.turns[id] = &turn{id: id, started: time.Now(), base: base}
	c.active.Store(id)
	return nil
}

// EndTurn scans the workspace again and stores the turn's checkpoint:
// every file created, changed or removed since BeginTurn. The checkpoint
// is returned even when it is empty (an empty one is not stored).
func (c *Checkpoints) EndTurn(id string) (*Checkpoint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.turns[id]
	if t == nil {
		return nil, fmt.Errorf("end turn %s: it was not begun (call BeginTurn first)", id)
	}
	delete(c.turns, id)
	c.resetActive()
	if err := c.refresh(); err != nil {
		return nil, fmt.Errorf("end turn %s: %w", id, err)
	}
	cp := &Checkpoint{Turn: id, Started: t.started, Ended: time.Now(), Files: compare(t.base, c.man)}
	if len(cp.Files) == 0 {
		return cp, nil
	}
	if err := c.storeCheckpoint(cp); err != nil {
		return cp, err
	}
	return cp, nil
}

// resetActive makes the latest running turn the active one.
func (c *Checkpoints) resetActive() {
	var last *turn
	for _, t := range c.turns {
		if last == nil || t.started.After(last.started) {
			last = t
		}
	}
	if last == nil {
		c.active.Store("")
	} else {
		c.active.Store(last.id)
	}
}

// activeTurn is the running turn changes on disk are attributed to.
func (w *Workspace) activeTurn() string {
	if w.cps == nil {
		return ""
	}
	return w.cps.active.Load().(string)
}

// compare lists what changed from a to b, sorted by path.
func compare(a, b map[string]entry) []FileChange {
	var out []FileChange
	for p, e := range a {
		n, ok := b[p]
		switch {
		case !ok:
			out = append(out, FileChange{Path: p, Op: Removed, Before: e.Hash, BeforeMode: e.Mode, NotKept: notKept(e)})
		case e.Big || n.Big:
			if e.Big != n.Big || e.Size != n.Size || e.MTime != n.MTime || e.Ino != n.Ino {
				fc := FileChange{Path: p, Op: Changed, BeforeMode: e.Mode, NotKept: "over " + humanSize(MaxFile)}
				if !e.Big {
					fc.Before = e.Hash
				}
				if !n.Big {
					fc.After = n.Hash
				}
				out = append(out, fc)
			}
		case e.Hash != n.Hash:
			nk := notKept(e)
			if nk == "" {
				nk = notKept(n)
			}
			out = append(out, FileChange{Path: p, Op: Changed, Before: e.Hash, After: n.Hash, BeforeMode: e.Mode, NotKept: nk})
		}
	}
	for p, n := range b {
		if _, ok := a[p]; !ok {
			out = append(out, FileChange{Path: p, Op: Created, After: n.Hash, NotKept: notKept(n)})
		}
	}
	sortChanges(out)
	return out
}

func notKept(e entry) string {
	switch {
	case e.Big:
		return "over " + humanSize(MaxFile)
	case !e.Blob:
		return "not text"
	}
	return ""
}

// racyWindow: a file whose mtime is this close to the scan may change
// again within the file system's timestamp granularity unnoticed, so it is
// read again next time.
const racyWindow = 2 * time.Second

// refresh scans the workspace into c.man and the store, in one
// transaction. The caller holds c.mu.
func (c *Checkpoints) refresh() error {
	if err := c.w.Check(); err != nil {
		return err
	}
	tx, err := c.begin()
	if err != nil {
		return err
	}
	start := time.Now()
	seen := make(map[string]bool, len(c.man))
	changed := map[string]entry{}
	var txErr error
	var files, kept int64
	err = c.walk(".", func(rel string, fi fs.FileInfo) {
		if txErr != nil {
			return
		}
		// A folder far bigger than a folder of notes (a home folder, a
		// source tree with its build output) is not copied: checkpoints
		// are off for it, and the app says so.
		files++
		if fi.Size() <= MaxFile {
			kept += fi.Size()
		}
		if files > checkpointLimits.files || kept > checkpointLimits.bytes {
			txErr = fmt.Errorf("%w: over %d files or %s of text; open a smaller folder of notes to keep each turn's changes", ErrTooBig, MaxCheckpointFiles, humanSize(MaxCheckpointBytes))
			return
		}
		old, ok := c.man[rel]
		if ok && !old.Racy && old.Size == fi.Size() && old.MTime == fi.ModTime().UnixNano() && old.Ino == inoOf(fi) && old.CTime == ctimeOf(fi) {
			seen[rel] = true
			return
		}
		e, err := c.scanFile(tx, rel, fi, start)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				c.w.log.Debug("checkpoint scan", "path", rel, "err", err)
			}
			return // counts as gone, like a file that vanished
		}
		seen[rel] = true
		if !ok || old != e {
			changed[rel] = e
			txErr = tx.setFile(rel, e)
		}
	})
	if err == nil {
		err = txErr
	}
	var gone []string
	for p := range c.man {
		if !seen[p] {
			gone = append(gone, p)
			if err == nil {
				err = tx.dropFile(p)
			}
		}
	}
	if err == nil {
		err = tx.commit()
	}
	if err != nil {
		tx.rollback()
		return err
	}
	for p, e := range changed {
		c.man[p] = e
	}
	for _, p := range gone {
		delete(c.man, p)
	}
	return nil
}

func inoOf(fi fs.FileInfo) uint64 {
	id, _ := idOf(fi)
	return id.ino
}

// walk calls fn for every regular file under rel that is not ignored.
func (c *Checkpoints) walk(rel string, fn func(rel string, fi fs.FileInfo)) error {
	select {
	case <-c.closing:
		return errors.New("workspace closed")
	default:
	}
	ents, err := fs.ReadDir(c.w.root.FS(), rel)
	if err != nil {
		if rel != "." && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
			return nil
		}
		return c.w.mapErr(rel, err)
	}
	for _, e := range ents {
		if c.w.ign.name(e.Name()) || c.w.deniedEntry(join(rel, e.Name()), e) {
			continue
		}
		p := join(rel, e.Name())
		switch t := e.Type(); {
		case t.IsDir():
			if err := c.walk(p, fn); err != nil {
				return err
			}
		case t.IsRegular():
			fi, err := e.Info()
			if err == nil && fi.Mode().IsRegular() {
				fn(p, fi)
			}
		}
	}
	return nil
}

// scanFile reads one file into a manifest entry, keeping text content in
// the store.
func (c *Checkpoints) scanFile(tx *cpTx, rel string, fi fs.FileInfo, scan time.Time) (entry, error) {
	e := entry{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Ino: inoOf(fi), CTime: ctimeOf(fi), Mode: uint32(fi.Mode().Perm())}
	e.Racy = !fi.ModTime().Before(scan.Add(-racyWindow))
	if fi.Size() > MaxFile {
		e.Big = true
		return e, nil
	}
	f, err := c.w.root.OpenFile(osRel(rel), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return e, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return e, err
	}
	if !st.Mode().IsRegular() || !sameFile(fi, st) {
		return e, fs.ErrNotExist // replaced meanwhile; the next scan sees it
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return e, err
	}
	if len(data) > MaxFile {
		e.Big = true
		return e, nil
	}
	// What was read is what is described, even if the file grew meanwhile.
	e.Size, e.MTime, e.Ino, e.CTime = st.Size(), st.ModTime().UnixNano(), inoOf(st), ctimeOf(st)
	if int64(len(data)) != st.Size() {
		e.Racy = true
	}
	e.Hash = hashOf(data)
	if utf8.Valid(data) {
		if err := tx.putBlob(e.Hash, data); err != nil {
			return e, err
		}
		e.Blob = true
	}
	return e, nil
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// userChanged folds the current state of paths (files or folders) into
// the starting point of every running turn: the user changed them through
// mnote, so they are not the agent's doing. The caller holds w.writeMu.
func (c *Checkpoints) userChanged(paths ...string) {
	select {
	case <-c.primed:
	default:
		return // no turn runs before the first scan, which will see them
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.userChangedLocked(paths...)
}

func (c *Checkpoints) userChangedLocked(paths ...string) {
	if len(c.turns) == 0 {
		return
	}
	select {
	case <-c.primed:
	default:
		return // the first scan will see them
	}
	tx, err := c.begin()
	if err != nil {
		c.w.log.Warn("checkpoints", "err", err)
		return
	}
	now := time.Now()
	type update struct {
		prefix string
		fresh  map[string]entry
	}
	var updates []update
	for _, p := range paths {
		if c.w.ign.rel(p) {
			continue
		}
		fresh := map[string]entry{}
		scan := func(rel string, fi fs.FileInfo) {
			if e, err := c.scanFile(tx, rel, fi, now); err == nil {
				fresh[rel] = e
			}
		}
		fi, err := c.w.root.Lstat(osRel(p))
		switch {
		case err != nil:
		case fi.IsDir():
			_ = c.walk(p, scan)
		case fi.Mode().IsRegular():
			scan(p, fi)
		}
		updates = append(updates, update{p, fresh})
	}
	if err := tx.commit(); err != nil {
		tx.rollback()
		c.w.log.Warn("checkpoints", "err", err)
		return
	}
	// The manifest rows are left to the next scan (it finds these files
	// changed and stores them); the contents are stored already.
	for _, u := range updates {
		apply := func(m map[string]entry) {
			for k := range m {
				if k == u.prefix || strings.HasPrefix(k, u.prefix+"/") {
					delete(m, k)
				}
			}
			for k, e := range u.fresh {
				m[k] = e
			}
		}
		for _, t := range c.turns {
			t.keepOrig(u.prefix, u.fresh)
			apply(t.base)
		}
	}
}

// keepOrig remembers, before the person's change under prefix is folded
// into the turn's base, what the base held for each file it touches.
func (t *turn) keepOrig(prefix string, fresh map[string]entry) {
	if t.orig == nil {
		t.orig = map[string]origEntry{}
	}
	keep := func(k string) {
		if _, seen := t.orig[k]; !seen {
			e, ok := t.base[k]
			t.orig[k] = origEntry{e, ok}
		}
	}
	for k := range t.base {
		if k == prefix || strings.HasPrefix(k, prefix+"/") {
			keep(k)
		}
	}
	for k := range fresh {
		keep(k)
	}
}

// turnStart is the text rel had when the running turn began, before the
// person's changes during it; false when no turn runs, the file did not
// exist then or its text is not kept.
func (c *Checkpoints) turnStart(rel string) (string, bool) {
	id := c.active.Load().(string)
	if id == "" {
		return "", false
	}
	c.mu.Lock()
	t := c.turns[id]
	if t == nil {
		c.mu.Unlock()
		return "", false
	}
	o, folded := t.orig[rel]
	if !folded {
		o.e, o.exists = t.base[rel]
	}
	c.mu.Unlock()
	if !o.exists || !o.e.Blob {
		return "", false
	}
	b, err := c.blob(o.e.Hash)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// userUnsaved folds the person's unsaved text of rel (editor; disk is the
// file now) into the starting point of every running turn, before an
// agent's write replaces the file: the turn's checkpoint then has the
// person's text as the file's "before", so Review's Reject and Revert give
// it back. Where the turn already changed the file, the person's change
// (disk → editor) is applied to the turn's starting text instead. The
// caller holds w.writeMu.
func (c *Checkpoints) userUnsaved(rel, disk, editor string) {
	select {
	case <-c.primed:
	default:
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.turns) == 0 || len(editor) > MaxFile {
		return
	}
	type fold struct {
		t    *turn
		text string
	}
	var folds []fold
	for _, t := range c.turns {
		e, ok := t.base[rel]
		if !ok || !e.Blob {
			continue
		}
		text := editor
		if e.Hash != hashOf([]byte(disk)) {
			b, err := c.blob(e.Hash)
			if err != nil {
				continue
			}
			m, ok := merge3(disk, editor, string(b))
			if !ok {
				continue
			}
			text = m
		}
		folds = append(folds, fold{t, text})
	}
	if len(folds) == 0 {
		return
	}
	tx, err := c.begin()
	if err != nil {
		c.w.log.Warn("checkpoints", "err", err)
		return
	}
	for _, f := range folds {
		h := hashOf([]byte(f.text))
		if err := tx.putBlob(h, []byte(f.text)); err != nil {
			tx.rollback()
			c.w.log.Warn("checkpoints", "err", err)
			return
		}
	}
	if err := tx.commit(); err != nil {
		tx.rollback()
		c.w.log.Warn("checkpoints", "err", err)
		return
	}
	for _, f := range folds {
		old := f.t.base[rel]
		f.t.keepOrig(rel, nil)
		f.t.base[rel] = entry{Size: int64(len(f.text)), MTime: old.MTime, Mode: old.Mode, Hash: hashOf([]byte(f.text)), Blob: true}
	}
}
