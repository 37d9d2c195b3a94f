package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// MaxFile is the largest file read, written or checkpointed: 10 MiB.
const MaxFile = 10 << 20

// Options tunes a Workspace. The zero value is usable: no checkpoints, the
// default ignore list, the user's freedesktop trash, a 75 ms debounce.
type Options struct {
	// StateDir holds the checkpoints (blobs, manifest, one JSON file per
	// turn). Empty disables checkpoints. StateDirFor gives the usual place.
	StateDir string
	// Ignore lists names (exact, or path.Match patterns such as ".Trash-*")
	// ignored at any depth by the tree, the watcher and the checkpoints.
	// nil means DefaultIgnore; an empty non-nil slice ignores nothing but
	// mnote's own trash folder.
	Ignore []string
	// TrashDir is the freedesktop trash folder ("" = $XDG_DATA_HOME/Trash,
	// that is ~/.local/share/Trash).
	TrashDir string
	// Debounce is the quiet period that closes a batch of watcher events
	// (75 ms); a batch never waits longer than three times that, so a stream
	// of changes is still delivered within about 225 ms.
	Debounce time.Duration
	// Logger receives warnings (slog.Default() if nil).
	Logger *slog.Logger
	// Deny lists folders nothing in the workspace may reach, whatever
	// path leads there (symbolic links and bind mounts included): mnote's
	// own config, data and state folders. They are told by identity
	// (device + inode, of them and of the folders under them when Open
	// runs); reads and writes into them are refused (ErrDenied), the
	// tree, the watcher and the checkpoints skip them, and a workspace
	// folder that is one of them or inside one is refused.
	Deny []string
}

// Workspace is one folder of notes opened for the app and its agents. It is
// safe for concurrent use; open a folder once and share the Workspace
// between sessions.
type Workspace struct {
	dir  string // absolute, as opened
	real string // dir with symbolic links resolved
	root *os.Root
	id   fileID
	deny denySet
	opts Options
	ign  ignorer
	log  *slog.Logger

	// writeMu serializes the app's own writes (agent fs writes, saves, tree
	// operations, reverts) so buffers and checkpoints see them in order.
	writeMu sync.Mutex

	buffers *Buffers
	cps     *Checkpoints
	events  *emitter
	origins *originLog
	reads   agentReads // what each agent last read of each file

	watchMu sync.Mutex
	watcher *watcher
	closed  bool // under watchMu

	closeOnce sync.Once
}

// Open opens the folder dir as a workspace. It pins the folder's identity
// (device and inode): every later operation first checks that the path
// still names the same folder and fails with ErrReplaced otherwise.
// Checkpoints, when Options.StateDir is set, start priming (a first snapshot
// of the folder) in the background. Call Watch to follow changes on disk.
func Open(dir string, opts Options) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace folder %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace folder %s: %w (choose an existing folder)", abs, err)
	}
	deny := newDenySet(opts.Deny)
	if err := checkAncestors(abs, real, deny); err != nil {
		return nil, err
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("open workspace folder %s: %w", abs, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("open workspace folder %s: not a folder; choose a folder of notes", abs)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("open workspace folder %s: %w", abs, err)
	}
	learnEscape(root)
	// Pin what the root handle refers to, not what the path named a moment
	// ago, so a swap between Stat and OpenRoot is caught by the next check.
	rst, err := checkRoot(abs, root, deny)
	if err != nil {
		root.Close()
		return nil, err
	}
	id, _ := idOf(rst)
	if opts.Debounce <= 0 {
		opts.Debounce = 75 * time.Millisecond
	}
	if opts.Ignore == nil {
		opts.Ignore = DefaultIgnore
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	w := &Workspace{
		dir:     abs,
		real:    real,
		root:    root,
		id:      id,
		deny:    deny,
		opts:    opts,
		ign:     newIgnorer(opts.Ignore),
		log:     log.With("workspace", abs),
		events:  newEmitter(),
		origins: newOriginLog(),
	}
	w.buffers = &Buffers{w: w, m: map[string]*buffer{}}
	err = w.Check()
	if err == nil && opts.StateDir != "" {
		w.cps, err = openCheckpoints(w, opts.StateDir)
	}
	if err != nil {
		w.events.close()
		root.Close()
		return nil, err
	}
	return w, nil
}

// StateDirFor is the usual checkpoint folder for the workspace dir under
// mnote's data folder: dataDir/checkpoints/<first 16 hex digits of the
// SHA-256 of dir's real path>.
func StateDirFor(dataDir, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace folder %q: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dataDir, "checkpoints", hex.EncodeToString(sum[:8])), nil
}

// Dir is the workspace folder's absolute path, as opened.
func (w *Workspace) Dir() string { return w.dir }

// Abs turns a workspace-relative path into an absolute one (for agents and
// resource links). It does not check that the file exists.
func (w *Workspace) Abs(rel string) string {
	return filepath.Join(w.dir, filepath.FromSlash(rel))
}

// Rel turns an absolute path inside the workspace into a relative,
// slash-separated one, or refuses it like an agent's fs/* request.
func (w *Workspace) Rel(abs string) (string, error) { return w.relFromAbs(abs) }

// Buffers is the open-buffer registry.
func (w *Workspace) Buffers() *Buffers { return w.buffers }

// Checkpoints is the per-turn checkpoint store, nil when Options.StateDir
// was empty.
func (w *Workspace) Checkpoints() *Checkpoints { return w.cps }

// Check verifies that the workspace path still names the folder opened,
// returning a *RefusedError wrapping ErrReplaced when it was moved, deleted
// or replaced.
func (w *Workspace) Check() error {
	st, err := os.Stat(w.dir)
	if err != nil {
		return &RefusedError{Path: w.dir, Reason: "the workspace folder is gone or was moved (" + errText(err) + "); open it again", Err: ErrReplaced}
	}
	if id, ok := idOf(st); (ok && id != w.id) || !st.IsDir() {
		return &RefusedError{Path: w.dir, Reason: "the workspace folder was replaced by another one since it was opened; open it again", Err: ErrReplaced}
	}
	return nil
}

// Close stops the watcher, waits for pending events to be delivered and
// releases the folder.
func (w *Workspace) Close() error {
	var err error
	w.closeOnce.Do(func() {
		w.watchMu.Lock()
		wt := w.watcher
		w.watcher, w.closed = nil, true
		w.watchMu.Unlock()
		if wt != nil {
			wt.close()
		}
		if w.cps != nil {
			w.cps.close()
		}
		w.events.close()
		err = w.root.Close()
	})
	return err
}

// Subscribe registers fn for workspace events: batches of changes seen on
// disk and buffer events (reloaded, conflict, deleted, written). Events are
// delivered one at a time, in order, on a goroutine of the workspace's; fn
// must not block for long. The returned function unsubscribes.
func (w *Workspace) Subscribe(fn func(Event)) (cancel func()) { return w.events.subscribe(fn) }

// checkRoot checks the folder a root was opened on: not a denied folder,
// not on a kernel file system (/proc, /sys, /dev, told by the file
// system, not the path). It returns the folder's information.
func checkRoot(abs string, root *os.Root, deny denySet) (fs.FileInfo, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, fmt.Errorf("open workspace folder %s: %w", abs, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open workspace folder %s: %w", abs, err)
	}
	if top := deny.of(fi); top != "" {
		return nil, refused(abs, ErrDenied, "is mnote's own data (%s), which agents may not reach; choose a folder of notes", top)
	}
	if k := kernelFS(f, fi); k != "" {
		return nil, refused(abs, ErrOutside, "is on %s, a kernel file system; choose a folder of notes", k)
	}
	return fi, nil
}

// errText is err's message without the path os adds in front.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
