package workspace

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ErrWatchLimit is wrapped by Watch's error when the system's inotify
// limits are reached; the workspace works on without live updates.
var ErrWatchLimit = errors.New("file watch limit reached")

// Watch starts following changes on disk: a recursive fsnotify watch
// (folders added as they appear, dropped as they go, ignored folders
// skipped) whose events are debounced into batches (Options.Debounce) and
// delivered to subscribers as Changes, after the open buffers have been
// brought in step (reload, conflict, deleted). Editors' save patterns
// (write a temporary file and rename it over, vim's backup rename, swap
// and backup files) come out as one Changed event for the real file.
// Calling Watch again does nothing; Close stops it.
func (w *Workspace) Watch() error {
	w.watchMu.Lock()
	defer w.watchMu.Unlock()
	if w.closed {
		return errors.New("watch: the workspace is closed; open it again")
	}
	if w.watcher != nil {
		return nil
	}
	if err := w.Check(); err != nil {
		return err
	}
	wt, err := startWatcher(w)
	if err != nil {
		return err
	}
	w.watcher = wt
	return nil
}

type watcher struct {
	w    *Workspace
	fw   *fsnotify.Watcher
	base string

	// Owned by the run goroutine (and startWatcher before it starts).
	dirs     map[string]bool // watched folders, "." for the root
	known    map[string]bool // paths seen on disk → is a folder
	pending  map[string]*pend
	first    time.Time // of the pending batch
	overflow bool
	warning  string

	timer *time.Timer
	stop  chan struct{}
	done  chan struct{}
}

// pend is what a batch saw happen to one path.
type pend struct {
	ops     fsnotify.Op
	from    string // the rename source, for the name a rename arrived at
	scanned bool   // found while scanning a new folder, no event of its own
}

func startWatcher(w *Workspace) (*watcher, error) {
	fw, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		return nil, watchErr(w.dir, err)
	}
	wt := &watcher{
		w: w, fw: fw, base: w.real,
		dirs: map[string]bool{}, known: map[string]bool{}, pending: map[string]*pend{},
		timer: time.NewTimer(time.Hour),
		stop:  make(chan struct{}), done: make(chan struct{}),
	}
	wt.timer.Stop()
	if err := wt.addDir(".", func(rel string, dir bool) { wt.known[rel] = dir }); err != nil {
		fw.Close()
		return nil, err
	}
	go wt.run()
	return wt, nil
}

func (wt *watcher) close() {
	close(wt.stop)
	<-wt.done
	wt.fw.Close()
}

// watchErr explains inotify's limits.
func watchErr(dir string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("watch %s: the system's limit of inotify watches is reached (fs.inotify.max_user_watches = %s); raise it (sudo sysctl fs.inotify.max_user_watches=524288) or add big folders to the ignore list; live updates are off: %w",
			dir, inotifyLimit("max_user_watches"), ErrWatchLimit)
	case errors.Is(err, syscall.EMFILE):
		return fmt.Errorf("watch %s: too many inotify instances (fs.inotify.max_user_instances = %s); close other watching programs or raise the limit; live updates are off: %w",
			dir, inotifyLimit("max_user_instances"), ErrWatchLimit)
	}
	return fmt.Errorf("watch %s: %w", dir, err)
}

func inotifyLimit(name string) string {
	b, err := os.ReadFile("/proc/sys/fs/inotify/" + name)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

func (wt *watcher) abs(rel string) string {
	if rel == "." {
		return wt.base
	}
	return filepath.Join(wt.base, filepath.FromSlash(rel))
}

// rel maps an event's name to a workspace-relative path.
func (wt *watcher) rel(name string) (string, bool) {
	if name == wt.base {
		return ".", true
	}
	if !strings.HasPrefix(name, wt.base+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(name[len(wt.base)+1:]), true
}

// addDir watches the folder rel and everything under it that is not
// ignored, reporting each entry found. The watch is added before the
// folder is read, so nothing created meanwhile is missed.
func (wt *watcher) addDir(rel string, found func(rel string, dir bool)) error {
	abs := wt.abs(rel)
	if err := wt.fw.Add(abs); err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil // gone already
		}
		return watchErr(abs, err)
	}
	wt.dirs[rel] = true
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil // gone already; its removal event follows
	}
	for _, e := range ents {
		if wt.w.ign.name(e.Name()) || wt.w.deniedEntry(join(rel, e.Name()), e) {
			continue
		}
		c := join(rel, e.Name())
		isDir := e.IsDir()
		found(c, isDir)
		if isDir {
			if err := wt.addDir(c, found); err != nil {
				return err
			}
		}
	}
	return nil
}

// dropDirs forgets the watches on rel and the folders under it.
func (wt *watcher) dropDirs(rel string) {
	for d := range wt.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			_ = wt.fw.Remove(wt.abs(d)) // the kernel may have dropped it already
			delete(wt.dirs, d)
		}
	}
}

func (wt *watcher) run() {
	defer close(wt.done)
	for {
		select {
		case <-wt.stop:
			return
		case ev, ok := <-wt.fw.Events:
			if !ok {
				return
			}
			wt.onEvent(ev)
			wt.arm()
		case err, ok := <-wt.fw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				wt.overflow = true
				wt.arm()
			} else {
				wt.w.log.Warn("file watcher", "err", err)
			}
		case <-wt.timer.C:
			wt.flush()
		}
	}
}

// arm schedules the flush: after a quiet period, and at most three quiet
// periods after the batch's first event.
func (wt *watcher) arm() {
	now := time.Now()
	if wt.first.IsZero() {
		wt.first = now
	}
	d := wt.w.opts.Debounce
	if limit := wt.first.Add(3 * d).Sub(now); limit < d {
		d = max(limit, 0)
	}
	wt.timer.Reset(d)
}

func (wt *watcher) onEvent(ev fsnotify.Event) {
	rel, ok := wt.rel(ev.Name)
	if !ok || rel == "." || wt.w.ign.rel(rel) {
		return
	}
	p := wt.pending[rel]
	if p == nil {
		p = &pend{}
		wt.pending[rel] = p
	}
	p.ops |= ev.Op
	p.scanned = false
	if from := renamedFrom(ev); from != "" {
		if fr, ok := wt.rel(from); ok && fr != "." && !wt.w.ign.rel(fr) {
			p.from = fr
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if wt.dirs[rel] {
			wt.dropDirs(rel)
		}
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() && !wt.dirs[rel] {
			err := wt.addDir(rel, func(c string, _ bool) {
				if wt.pending[c] == nil {
					wt.pending[c] = &pend{ops: fsnotify.Create, scanned: true}
				}
			})
			if err != nil {
				wt.w.log.Warn("watch new folder", "path", rel, "err", err)
				wt.warning = err.Error()
			}
		}
	}
}

// renamedFrom is the old name of a rename fsnotify paired (inotify's
// cookie), which fsnotify v1.10 only shows in Event.String.
func renamedFrom(ev fsnotify.Event) string {
	prefix := fmt.Sprintf("%-13s %q ← ", ev.Op.String(), ev.Name)
	s := ev.String()
	if !strings.HasPrefix(s, prefix) {
		return ""
	}
	from, err := strconv.Unquote(s[len(prefix):])
	if err != nil {
		return ""
	}
	return from
}

// state is a path's existence before a batch (known) and after (on disk).
type state struct {
	before, beforeDir bool
	now, nowDir       bool
}

func (wt *watcher) stateOf(rel string) state {
	var s state
	s.beforeDir, s.before = wt.known[rel]
	if fi, err := os.Lstat(wt.abs(rel)); err == nil {
		s.now, s.nowDir = true, fi.IsDir()
	}
	return s
}

// flush turns the batch into Changes: a path's existence before (what the
// watcher knew) and now (on disk) decide created, removed or changed, so a
// temporary file that came and went is nothing and a file replaced by a
// rename is one change. Renames are paired through inotify's cookie.
func (wt *watcher) flush() {
	pending, overflow, warning := wt.pending, wt.overflow, wt.warning
	wt.pending, wt.overflow, wt.warning, wt.first = map[string]*pend{}, false, "", time.Time{}
	if overflow {
		wt.rescan()
		wt.w.events.emit(Event{Rescan: true, Buffers: wt.w.buffers.recheck(".")})
		return
	}
	paths := make([]string, 0, len(pending))
	for p := range pending {
		paths = append(paths, p)
	}
	sort.Strings(paths)

	var changes []Change
	done := map[string]bool{}
	moved := map[string]bool{} // new paths of renamed folders
	// Renames first: they re-key what the watcher knows under a folder.
	for _, rel := range paths {
		p := pending[rel]
		if p.from == "" || done[p.from] {
			continue
		}
		to, from := wt.stateOf(rel), wt.stateOf(p.from)
		if to.before || !to.now || !from.before || from.now {
			continue
		}
		changes = append(changes, Change{Path: rel, Op: Renamed, From: p.from, Dir: to.nowDir})
		done[rel], done[p.from] = true, true
		delete(wt.known, p.from)
		wt.known[rel] = to.nowDir
		if from.beforeDir {
			moved[rel] = true
			for k, d := range wt.known {
				if strings.HasPrefix(k, p.from+"/") {
					delete(wt.known, k)
					wt.known[rel+k[len(p.from):]] = d
				}
			}
		}
	}
	gone := map[string]bool{} // folders removed in this batch
	for _, rel := range paths {
		if done[rel] {
			continue
		}
		p, s := pending[rel], wt.stateOf(rel)
		if under(rel, gone) {
			delete(wt.known, rel)
			continue
		}
		if p.scanned && s.before && under(rel, moved) {
			continue
		}
		switch {
		case !s.before && s.now:
			changes = append(changes, Change{Path: rel, Op: Created, Dir: s.nowDir})
			wt.known[rel] = s.nowDir
		case s.before && !s.now:
			changes = append(changes, Change{Path: rel, Op: Removed, Dir: s.beforeDir})
			delete(wt.known, rel)
			if s.beforeDir {
				gone[rel] = true
				for k := range wt.known {
					if strings.HasPrefix(k, rel+"/") {
						delete(wt.known, k)
					}
				}
			}
		case s.before && s.now:
			wt.known[rel] = s.nowDir
			if s.nowDir || p.ops&^fsnotify.Chmod == 0 {
				continue // a folder's own events, or only a mode change
			}
			changes = append(changes, Change{Path: rel, Op: Changed})
		}
	}
	ev := Event{Changes: changes}
	if warning != "" {
		ev.Warning = warning
	}
	turn := wt.w.activeTurn()
	for i := range changes {
		c := &changes[i]
		c.Origin = wt.w.origins.take(c.Path)
		if c.Origin != OriginApp {
			c.Turn = turn
		}
		ev.Buffers = append(ev.Buffers, wt.bufferEvents(*c)...)
	}
	wt.w.events.emit(ev)
}

// under reports whether a parent folder of rel is in set.
func under(rel string, set map[string]bool) bool {
	if len(set) == 0 {
		return false
	}
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if set[d] {
			return true
		}
	}
	return false
}

func (wt *watcher) bufferEvents(c Change) []BufferEvent {
	bs := wt.w.buffers
	switch c.Op {
	case Created, Changed:
		if c.Dir {
			return bs.recheck(c.Path)
		}
		return bs.diskChanged(c.Path)
	case Removed:
		return bs.removed(c.Path)
	case Renamed:
		return append(bs.removed(c.From), bs.recheck(c.Path)...)
	}
	return nil
}

// rescan rebuilds the watcher's picture after lost events: folders not
// watched yet are added, what is known is read again.
func (wt *watcher) rescan() {
	known := map[string]bool{}
	for d := range wt.dirs {
		if _, err := os.Lstat(wt.abs(d)); err != nil {
			wt.dropDirs(d)
		}
	}
	var walk func(rel string)
	walk = func(rel string) {
		if !wt.dirs[rel] {
			if err := wt.addDir(rel, func(c string, dir bool) { known[c] = dir }); err != nil {
				wt.w.log.Warn("rescan", "path", rel, "err", err)
			}
			return
		}
		ents, err := os.ReadDir(wt.abs(rel))
		if err != nil {
			return
		}
		for _, e := range ents {
			if wt.w.ign.name(e.Name()) || wt.w.deniedEntry(join(rel, e.Name()), e) {
				continue
			}
			c := join(rel, e.Name())
			known[c] = e.IsDir()
			if e.IsDir() {
				walk(c)
			}
		}
	}
	walk(".")
	wt.known = known
}
