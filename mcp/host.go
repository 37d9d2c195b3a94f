package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Handler runs the tool calls of one session. Errors are the channel's
// (the call could not run); a tool's own failure is a Result with IsError.
type Handler interface {
	CallTool(ctx context.Context, tool string, args json.RawMessage) (Result, error)
}

// Host is the app's end of the channel: one unix socket, one token per
// registered session.
type Host struct {
	path     string
	dir      string // removed on Close when Listen made it a temporary one
	ln       *net.UnixListener
	log      *slog.Logger
	lim      Limits
	budget   *budget
	refusals *refusalLog

	mu      sync.Mutex
	tokens  map[[32]byte]*registration
	conns   map[*net.UnixConn]struct{} // open connections
	pending int                        // of them, those without a token yet
	closed  bool
	wg      sync.WaitGroup
}

type registration struct {
	token  string
	h      Handler
	ctx    context.Context // ends with Unregister or Close
	cancel context.CancelFunc
	conns  int // open connections with this token (under Host.mu)
}

// maxSocketPath keeps the socket path within sun_path (108 bytes on
// Linux, 104 on the BSDs).
const maxSocketPath = 100

// Listen makes dir (mode 0700; it must be ours and not a symbolic link)
// and listens on a socket of mode 0600 in it, with the default Limits.
// When dir is empty or too deep for a socket path, a new private folder
// under the temporary folder is used instead.
func Listen(dir string, log *slog.Logger) (*Host, error) {
	return ListenLimits(dir, log, Limits{})
}

// ListenLimits is Listen with lim (its zero fields take their defaults).
func ListenLimits(dir string, log *slog.Logger, lim Limits) (*Host, error) {
	if log == nil {
		log = slog.Default()
	}
	name := "mcp-" + strconv.Itoa(os.Getpid()) + ".sock"
	tmp := ""
	if dir == "" || len(filepath.Join(dir, name)) > maxSocketPath {
		d, err := os.MkdirTemp("", "mnote-mcp-")
		if err != nil {
			return nil, fmt.Errorf("mcp: socket folder: %w", err)
		}
		dir, tmp = d, d
	} else if err := privateDir(dir); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, name)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("mcp: stale socket: %w", err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: p, Net: "unix"})
	if err != nil {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return nil, fmt.Errorf("mcp: listen: %w", err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("mcp: socket mode: %w", err)
	}
	lim = lim.withDefaults()
	h := &Host{path: p, dir: tmp, ln: ln, log: log, lim: lim, budget: newBudget(lim.Bytes),
		refusals: &refusalLog{log: log, every: lim.LogEvery, now: time.Now},
		tokens:   map[[32]byte]*registration{}, conns: map[*net.UnixConn]struct{}{}}
	h.wg.Add(1)
	go h.accept()
	return h, nil
}

// privateDir makes dir with mode 0700, or checks that the existing one is
// a real folder of ours, and tightens its mode.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("mcp: socket folder: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("mcp: socket folder: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("mcp: socket folder %s is not a folder", dir)
	}
	if !ownedByMe(st) {
		return fmt.Errorf("mcp: socket folder %s belongs to another user", dir)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("mcp: socket folder: %w", err)
	}
	return nil
}

// Socket is the socket's path.
func (h *Host) Socket() string { return h.path }

// Register gives h a new token; calls presenting it run on h until
// Unregister(token).
func (h *Host) Register(hd Handler) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mcp: token: %w", err)
	}
	tok := hex.EncodeToString(b[:])
	ctx, cancel := context.WithCancel(context.Background())
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		cancel()
		return "", errors.New("mcp: the host is closed")
	}
	h.tokens[sha256.Sum256([]byte(tok))] = &registration{token: tok, h: hd, ctx: ctx, cancel: cancel}
	return tok, nil
}

// Unregister revokes token: new connections with it are refused and the
// calls running under it see their context end.
func (h *Host) Unregister(token string) {
	k := sha256.Sum256([]byte(token))
	h.mu.Lock()
	r := h.tokens[k]
	delete(h.tokens, k)
	h.mu.Unlock()
	if r != nil {
		r.cancel()
	}
}

// lookup finds token's registration; the map is keyed by the token's
// hash and the token itself compared in constant time.
func (h *Host) lookup(token string) *registration {
	h.mu.Lock()
	r := h.tokens[sha256.Sum256([]byte(token))]
	h.mu.Unlock()
	if r == nil || subtle.ConstantTimeCompare([]byte(r.token), []byte(token)) != 1 {
		return nil
	}
	return r
}

// Close stops listening, revokes every token, closes the connections and
// waits for their calls to end.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	regs := h.tokens
	h.tokens = map[[32]byte]*registration{}
	err := h.ln.Close() // under mu: accept admits no more connections
	for c := range h.conns {
		c.Close()
	}
	h.mu.Unlock()
	for _, r := range regs {
		r.cancel()
	}
	h.wg.Wait()
	h.refusals.flush()
	os.Remove(h.path)
	if h.dir != "" {
		os.RemoveAll(h.dir)
	}
	return err
}
