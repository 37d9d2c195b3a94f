package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mnote/internal/testenv"
)

// ErrNotInstalled is returned by Start and BinDir when no PostgreSQL
// server binaries are found.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL is not installed (no initdb/postgres in PATH, /usr/local/bin or /usr/lib/postgresql/*/bin); install it with: apt-get install postgresql")

// BinDir returns the folder holding initdb and postgres.
func BinDir() (string, error) {
	var candidates []string
	if p, err := exec.LookPath("initdb"); err == nil {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, "/usr/local/bin/initdb")
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Newest major version first.
	slices.SortFunc(dirs, func(a, b string) int { return majorOf(b) - majorOf(a) })
	for _, d := range dirs {
		candidates = append(candidates, filepath.Join(d, "initdb"))
	}
	for _, c := range candidates {
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue
		}
		dir := filepath.Dir(real)
		if isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", ErrNotInstalled
}

// Available reports whether Start can find PostgreSQL.
func Available() bool {
	_, err := BinDir()
	return err == nil
}

func majorOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// RequireEnv, set to 1 (make test sets it), makes a test that needs
// PostgreSQL fail instead of skip when it is not installed.
const RequireEnv = "MNOTE_REQUIRE_POSTGRES"

// Require skips t when PostgreSQL is not installed, or fails it when
// RequireEnv is 1 or the run requires everything (testenv,
// MNOTE_REQUIRE_ALL=1).
func Require(t testing.TB) {
	t.Helper()
	if Available() {
		return
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s=1 but %v", RequireEnv, ErrNotInstalled)
	}
	testenv.SkipOrFail(t, fmt.Sprintf("skipping the PostgreSQL part: %v (set %s=1 to make this a failure)", ErrNotInstalled, RequireEnv))
}

// StartForTest starts a server for t (Require first; a server that does
// not start fails t) and closes it when t ends.
func StartForTest(t testing.TB) *Server {
	t.Helper()
	Require(t)
	s, err := Start(t.Context(), Options{})
	if err != nil {
		t.Fatalf("start PostgreSQL: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Options tune a server.
type Options struct {
	// Durable keeps PostgreSQL's defaults (fsync on). Off, the server
	// skips fsync: faster, and a test does not need to survive power
	// loss.
	Durable bool
}

// Server is a running (or stopped) throwaway PostgreSQL server.
type Server struct {
	Dir     string // the temporary folder: data/, the socket, postgres.log
	bin     string
	opts    Options
	asUser  *user.User // nobody, when we are root
	logPath string

	mu   sync.Mutex
	proc *os.Process
	done chan struct{} // closed when proc has exited
}

// Start creates a cluster in a new temporary folder and starts it. Close
// stops it and removes the folder.
func Start(ctx context.Context, opts Options) (_ *Server, err error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	// A short path: the socket path must fit in 107 bytes.
	dir, err := os.MkdirTemp("", "mnote-pg-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{Dir: dir, bin: bin, opts: opts, logPath: filepath.Join(dir, "postgres.log")}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("setpriv"); err != nil {
			return nil, fmt.Errorf("pgtest: running as root, and PostgreSQL refuses root; need setpriv (util-linux) to run it as nobody: %w", err)
		}
		if s.asUser, err = user.Lookup("nobody"); err != nil {
			return nil, fmt.Errorf("pgtest: running as root, and PostgreSQL refuses root; need the user nobody: %w", err)
		}
		uid, _ := strconv.Atoi(s.asUser.Uid)
		gid, _ := strconv.Atoi(s.asUser.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, fmt.Errorf("pgtest: %w", err)
		}
	}
	initdb := s.command(ctx, filepath.Join(bin, "initdb"), "-D", s.dataDir(), "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	if err := s.Restart(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) dataDir() string { return filepath.Join(s.Dir, "data") }

// command runs name as the server's user (nobody under root).
func (s *Server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if s.asUser != nil {
		// setpriv sets the parent-death signal after dropping privileges
		// (changing credentials clears one set before).
		pre := []string{"--reuid=" + s.asUser.Uid, "--regid=" + s.asUser.Gid, "--clear-groups", "--pdeathsig", "INT", name}
		cmd = exec.CommandContext(ctx, "setpriv", append(pre, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT}
	}
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
	cmd.Dir = s.Dir
	return cmd
}

// Restart starts the server again after Stop (Start has started it).
func (s *Server) Restart(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return errors.New("pgtest: the server is running already")
	}
	args := []string{"-D", s.dataDir(), "-k", s.Dir, "-c", "listen_addresses=", "-c", "max_connections=300",
		"-c", "shared_buffers=64MB", "-c", "logging_collector=off"}
	if !s.opts.Durable {
		args = append(args, "-c", "fsync=off", "-c", "full_page_writes=off")
	}
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	// The parent-death signal fires when the *thread* that started the
	// process exits, so start it from a thread that lives as long as the
	// server: this goroutine keeps its thread locked until postgres exits.
	started := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer logf.Close()
		cmd := s.command(context.Background(), filepath.Join(s.bin, "postgres"), args...)
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		s.proc = cmd.Process
		started <- nil
		cmd.Wait()
		close(done)
		// Returning with the thread locked ends the thread; postgres
		// is gone already.
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	s.done = done
	deadline := time.Now().Add(60 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(cctx, s.URL("postgres"))
		cancel()
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-done:
			s.proc = nil
			return fmt.Errorf("pgtest: postgres exited at start:\n%s", s.LogTail())
		case <-ctx.Done():
			s.stopLocked()
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stopLocked()
			return fmt.Errorf("pgtest: postgres not ready after 60 s: %w\n%s", err, s.LogTail())
		}
	}
}

// URL is the connection URL of database db (superuser postgres, trust
// authentication, over the Unix socket).
func (s *Server) URL(db string) string {
	return "postgres://postgres@/" + db + "?host=" + s.Dir + "&sslmode=disable"
}

// CreateDB creates a new, empty database and returns its URL.
func (s *Server) CreateDB(ctx context.Context, name string) (string, error) {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return "", fmt.Errorf("pgtest: database name %q: use a-z 0-9 _", name)
		}
	}
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %w", name, err)
	}
	return s.URL(name), nil
}

// Stop stops the server (fast shutdown: open sessions are ended), keeping
// its data for Restart.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked()
}

func (s *Server) stopLocked() error {
	if s.proc == nil {
		return nil
	}
	_ = s.proc.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.proc.Kill()
		<-s.done
	}
	s.proc = nil
	return nil
}

// Close stops the server and removes its folder.
func (s *Server) Close() error {
	s.Stop()
	return os.RemoveAll(s.Dir)
}

// LogTail returns the end of the server's log, for error messages.
func (s *Server) LogTail() string {
	b, _ := os.ReadFile(s.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return strings.TrimSpace(string(b))
}
