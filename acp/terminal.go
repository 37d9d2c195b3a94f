package acp

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"mnote/acp/procguard"
	"mnote/internal/jsonscan"
)

// This file serves the agent's terminal/* requests: terminal/create runs a
// command in a pseudo-terminal, in its own session and process group,
// inside the session's folder; terminal/output, terminal/wait_for_exit,
// terminal/kill and terminal/release follow the ACP schema. Release (and
// the session's end) kills whatever of the command's session still runs
// and waits until it is gone; procguard ends it if mnote is killed.

// Terminal limits.
const (
	// DefaultTerminalOutput is the output kept when terminal/create gives
	// no outputByteLimit.
	DefaultTerminalOutput = 1 << 20
	// MaxTerminalOutput caps outputByteLimit.
	MaxTerminalOutput = 16 << 20
	// MaxTerminals is how many terminals a session may hold unreleased.
	MaxTerminals = 32
)

// TerminalConfig enables a session's terminal/* requests.
type TerminalConfig struct {
	// Observer hears what the terminals do (for the transcript and the
	// UI); nil hears nothing.
	Observer TerminalObserver
	// Allow is asked before every terminal/create; an error refuses it
	// (for example, the session is in a read-only mode). nil allows.
	Allow func() error
}

// TerminalObserver hears about a session's terminals. Its methods are
// called on the terminals' goroutines, one terminal's calls in order
// (started, output..., exited, released); data is valid only during the
// call and never ends inside a UTF-8 sequence.
type TerminalObserver interface {
	TerminalStarted(t TerminalInfo)
	TerminalOutput(id string, data []byte)
	TerminalExited(id string, exit TerminalExit)
	TerminalReleased(id string)
	// TerminalRefused is a terminal/create that was refused (a cwd outside
	// the session's folder, a read-only mode, a command not found).
	TerminalRefused(command, cwd, reason string)
}

// TerminalInfo describes a terminal the agent created.
type TerminalInfo struct {
	ID              string   `json:"terminalId"`
	Command         string   `json:"command"`
	Args            []string `json:"args,omitempty"`
	Cwd             string   `json:"cwd"`
	OutputByteLimit int      `json:"outputByteLimit"`
	// Pid is the command's process id, which is also its process group
	// and session id.
	Pid int `json:"-"`
}

// TerminalExit is how a terminal's command ended: an exit code, or the
// signal that killed it ("SIGKILL").
type TerminalExit struct {
	ExitCode *int   `json:"exitCode,omitempty"`
	Signal   string `json:"signal,omitempty"`
}

func (e TerminalExit) wire() *acpsdk.TerminalExitStatus {
	st := &acpsdk.TerminalExitStatus{ExitCode: e.ExitCode}
	if e.Signal != "" {
		sig := e.Signal
		st.Signal = &sig
	}
	return st
}

// DirOpener is a FileSystem that also opens folders for the agent
// (workspace.AgentFS): a session whose FS is one has its terminals'
// working directories opened by it, so a terminal reaches no folder the
// fs/* requests may not (mnote's own data included). OpenDir takes an
// absolute path and returns the folder opened and its absolute path; its
// errors refuse the terminal/create.
type DirOpener interface {
	OpenDir(path string) (dir *os.File, abs string, err error)
}

// terminals are one session's terminals.
type terminals struct {
	cfg  *TerminalConfig
	root string    // the session's folder
	env  []string  // the agent's environment
	dirs DirOpener // the session's FS when it is one

	mu     sync.Mutex
	byID   map[string]*terminal
	closed bool
}

// terminal is one command in a pseudo-terminal.
type terminal struct {
	info  TerminalInfo
	obs   TerminalObserver
	cmd   *exec.Cmd
	pty   *os.File
	pgid  int
	guard *procguard.Session

	mu        sync.Mutex
	buf       []byte // the output; the last info.OutputByteLimit bytes are kept
	truncated bool
	exit      *TerminalExit

	done     chan struct{} // closed when the command exited and its output was read
	readDone chan struct{} // closed when reading the pty ended
	release  sync.Once
}

var errNoTerminals = &RPCError{Code: CodeInvalidParams, Message: "refused: this session gives the agent no terminals"}

func newTerminals(cfg *TerminalConfig, root string, env []string, fsys FileSystem) *terminals {
	if env == nil {
		env = os.Environ()
	}
	dirs, _ := fsys.(DirOpener)
	return &terminals{cfg: cfg, root: root, env: env, dirs: dirs, byID: make(map[string]*terminal)}
}

// serve answers one terminal/* request.
func (ts *terminals) serve(method string, params []byte) (any, *RPCError) {
	if ts == nil || ts.cfg == nil {
		return nil, errNoTerminals
	}
	if method == "terminal/create" {
		var p acpsdk.CreateTerminalRequest
		if err := jsonscan.Decode(params, &p); err != nil {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid terminal/create params: " + err.Error()}
		}
		id, rerr := ts.create(&p)
		if rerr != nil {
			return nil, rerr
		}
		return acpsdk.CreateTerminalResponse{TerminalId: id}, nil
	}
	var p struct {
		TerminalID string `json:"terminalId"`
	}
	if err := jsonscan.Decode(params, &p); err != nil || p.TerminalID == "" {
		return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid " + method + " params: a terminalId is required"}
	}
	t := ts.get(p.TerminalID)
	if t == nil {
		return nil, &RPCError{Code: CodeInvalidParams, Message: "unknown or released terminalId " + p.TerminalID}
	}
	switch method {
	case "terminal/output":
		out, truncated, exit := t.output()
		r := acpsdk.TerminalOutputResponse{Output: out, Truncated: truncated}
		if exit != nil {
			r.ExitStatus = exit.wire()
		}
		return r, nil
	case "terminal/wait_for_exit":
		// Release, kill and the session's end all end the command.
		<-t.done
		_, _, exit := t.output()
		st := exit.wire()
		return acpsdk.WaitForTerminalExitResponse{ExitCode: st.ExitCode, Signal: st.Signal}, nil
	case "terminal/kill":
		t.kill()
		return acpsdk.KillTerminalResponse{}, nil
	case "terminal/release":
		ts.releaseOne(t)
		return acpsdk.ReleaseTerminalResponse{}, nil
	}
	return nil, &RPCError{Code: CodeMethodNotFound, Message: "Method not found: " + method}
}

func (ts *terminals) get(id string) *terminal {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.byID[id]
}

func (ts *terminals) refuse(p *acpsdk.CreateTerminalRequest, cwd, reason string) *RPCError {
	if o := ts.cfg.Observer; o != nil {
		o.TerminalRefused(p.Command, cwd, reason)
	}
	return &RPCError{Code: CodeInvalidParams, Message: "refused: " + reason}
}

// create starts the command of a terminal/create.
func (ts *terminals) create(p *acpsdk.CreateTerminalRequest) (string, *RPCError) {
	cwd := ""
	if p.Cwd != nil {
		cwd = *p.Cwd
	}
	if p.Command == "" {
		return "", &RPCError{Code: CodeInvalidParams, Message: "invalid terminal/create params: a command is required"}
	}
	if ts.cfg.Allow != nil {
		if err := ts.cfg.Allow(); err != nil {
			return "", ts.refuse(p, cwd, err.Error())
		}
	}
	limit := DefaultTerminalOutput
	if p.OutputByteLimit != nil {
		if *p.OutputByteLimit < 0 {
			return "", &RPCError{Code: CodeInvalidParams, Message: "invalid terminal/create params: outputByteLimit must be >= 0"}
		}
		limit = min(*p.OutputByteLimit, MaxTerminalOutput)
	}
	dir, abs, err := ts.openDir(cwd)
	if err != nil {
		return "", ts.refuse(p, cwd, err.Error())
	}
	defer dir.Close()
	env := mergeEnv(ts.env, p.Env, abs)
	path, args, err := resolveCommand(p.Command, p.Args, env, abs)
	if err != nil {
		return "", ts.refuse(p, cwd, err.Error())
	}

	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return "", &RPCError{Code: CodeInvalidParams, Message: "refused: the session is closed"}
	}
	if len(ts.byID) >= MaxTerminals {
		ts.mu.Unlock()
		return "", &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf("refused: %d terminals are open in this session; release one first", MaxTerminals)}
	}
	id := newTerminalID()
	t := &terminal{
		info: TerminalInfo{ID: id, Command: p.Command, Args: p.Args, Cwd: abs, OutputByteLimit: limit},
		obs:  ts.cfg.Observer, done: make(chan struct{}), readDone: make(chan struct{}),
	}
	cmd := exec.Command(path, args...)
	cmd.Args[0] = p.Command
	cmd.Env = env
	// The child changes into the folder opened (and checked) above, not
	// into a path that could be swapped for a symlink meanwhile.
	cmd.Dir = procDir(dir, abs)
	attr := procguard.Attr()
	attr.Setctty = true
	f, err := pty.StartWithAttrs(cmd, &pty.Winsize{Rows: 24, Cols: 120}, attr)
	if err != nil {
		ts.mu.Unlock()
		return "", ts.refuse(p, cwd, "the command did not start: "+err.Error())
	}
	if pf, err := pollable(f); err == nil {
		f = pf
	}
	t.cmd, t.pty, t.pgid = cmd, f, cmd.Process.Pid
	t.guard = procguard.Track(t.pgid)
	t.info.Pid = t.pgid
	ts.byID[id] = t
	ts.mu.Unlock()

	if t.obs != nil {
		t.obs.TerminalStarted(t.info)
	}
	go t.read()
	go t.wait()
	return id, nil
}

// pollable returns f as a non-blocking file in Go's poller, so that
// closing it ends a Read in progress (creack/pty hands out the master in
// blocking mode, where Close leaves a reader blocked for as long as any
// process, one that left the group included, holds the terminal open).
func pollable(f *os.File) (*os.File, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var nfd int
	var derr error
	if err := sc.Control(func(fd uintptr) { nfd, derr = unix.Dup(int(fd)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	unix.CloseOnExec(nfd)
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		return nil, err
	}
	f.Close()
	return os.NewFile(uintptr(nfd), "pty"), nil
}

// read copies the pty's output into the buffer until it ends (EIO once
// every holder of the terminal's other side is gone, or the pty closed).
func (t *terminal) read() {
	defer close(t.readDone)
	buf := make([]byte, 32<<10)
	held := 0 // bytes of an incomplete UTF-8 sequence kept at buf's start
	for {
		n, err := t.pty.Read(buf[held:])
		if n > 0 {
			n += held
			// Hand out whole characters only: an incomplete sequence at
			// the end waits for the next read.
			end := completeUTF8(buf[:n])
			t.append(buf[:end])
			held = copy(buf, buf[end:n])
		}
		if err != nil {
			if held > 0 {
				t.append(buf[:held])
			}
			return
		}
	}
}

// completeUTF8 returns the length of b without an incomplete UTF-8
// sequence at its end (at most 3 bytes are held back).
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

func (t *terminal) append(data []byte) {
	if len(data) == 0 {
		return
	}
	t.mu.Lock()
	t.buf = append(t.buf, data...)
	limit := t.info.OutputByteLimit
	if len(t.buf) > 2*limit+64<<10 {
		// Compact now and then; output() cuts exactly.
		cut := cutPoint(t.buf, limit)
		t.buf = append(t.buf[:0], t.buf[cut:]...)
		t.truncated = true
	}
	t.mu.Unlock()
	if t.obs != nil {
		t.obs.TerminalOutput(t.info.ID, data)
	}
}

// cutPoint is where to cut b so that at most limit bytes remain and they
// start at a character boundary.
func cutPoint(b []byte, limit int) int {
	if len(b) <= limit {
		return 0
	}
	cut := len(b) - limit
	for cut < len(b) && !utf8.RuneStart(b[cut]) {
		cut++
	}
	return cut
}

// output returns the kept output, whether some was dropped, and the exit
// status once the command exited.
func (t *terminal) output() (string, bool, *TerminalExit) {
	t.mu.Lock()
	defer t.mu.Unlock()
	cut := cutPoint(t.buf, t.info.OutputByteLimit)
	return string(t.buf[cut:]), t.truncated || cut > 0, t.exit
}

// wait reaps the command and records its exit once its output was read
// (or shortly after, when a background child keeps the terminal open).
func (t *terminal) wait() {
	err := t.cmd.Wait()
	timer := time.NewTimer(200 * time.Millisecond)
	select {
	case <-t.readDone:
	case <-timer.C:
	}
	timer.Stop()
	exit := TerminalExit{}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			exit.Signal = unix.SignalName(ws.Signal())
			if exit.Signal == "" {
				exit.Signal = ws.Signal().String()
			}
		} else {
			code := ee.ExitCode()
			exit.ExitCode = &code
		}
	case err == nil:
		code := 0
		exit.ExitCode = &code
	default:
		code := -1
		exit.ExitCode = &code
	}
	t.mu.Lock()
	t.exit = &exit
	t.mu.Unlock()
	// Observed before anyone waiting hears of it: the exit is recorded
	// ahead of the release that may follow.
	if t.obs != nil {
		t.obs.TerminalExited(t.info.ID, exit)
	}
	close(t.done)
}

// kill kills the command's whole process group and waits for the command
// to be reaped.
func (t *terminal) kill() {
	t.signalGroup(syscall.SIGKILL)
	<-t.done
}

func (t *terminal) signalGroup(sig syscall.Signal) {
	if err := syscall.Kill(-t.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = t.cmd.Process.Signal(sig)
	}
}

// releaseOne kills what is left of the terminal's session, waits until it
// is gone, closes the pty and forgets the terminal.
func (ts *terminals) releaseOne(t *terminal) {
	ts.mu.Lock()
	if ts.byID[t.info.ID] == t {
		delete(ts.byID, t.info.ID)
	}
	ts.mu.Unlock()
	t.release.Do(func() {
		// The session outlives its leader when a background child runs
		// on (nohup, a double fork, a job in a group of its own): kill it
		// whether or not the command itself exited.
		t.guard.End(2 * time.Second)
		t.signalGroup(syscall.SIGKILL) // without /proc: the group at least
		<-t.done
		t.pty.Close()
		<-t.readDone
		if t.obs != nil {
			t.obs.TerminalReleased(t.info.ID)
		}
	})
}

// closeAll releases every terminal; later creates are refused.
func (ts *terminals) closeAll() {
	if ts == nil {
		return
	}
	ts.mu.Lock()
	ts.closed = true
	list := make([]*terminal, 0, len(ts.byID))
	for _, t := range ts.byID {
		list = append(list, t)
	}
	ts.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range list {
		wg.Go(func() { ts.releaseOne(t) })
	}
	wg.Wait()
}

// openDir opens the command's working directory cwd (absolute, or
// relative to the session's folder; empty is the folder itself) through
// the session's FS when it opens folders (DirOpener), else confineDir.
func (ts *terminals) openDir(cwd string) (*os.File, string, error) {
	if ts.dirs == nil {
		return confineDir(ts.root, cwd)
	}
	p := cwd
	switch {
	case p == "":
		p = ts.root
	case !filepath.IsAbs(p):
		// Not cleaned: a ".." stays for the opener to refuse.
		p = strings.TrimSuffix(ts.root, string(filepath.Separator)) + string(filepath.Separator) + p
	}
	dir, abs, err := ts.dirs.OpenDir(p)
	if err != nil {
		return nil, "", fmt.Errorf("the working directory %s", strings.TrimPrefix(err.Error(), "refused: "))
	}
	return dir, abs, nil
}

// confineDir opens the command's working directory: cwd (absolute, or
// relative to root; empty is root itself) must be a directory beneath
// root, reached without leaving it (no "..", no symlink out).
func confineDir(root, cwd string) (*os.File, string, error) {
	if root == "" {
		return nil, "", errors.New("the session has no folder")
	}
	root = filepath.Clean(root)
	abs := cwd
	if abs == "" {
		abs = root
	} else if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, "", fmt.Errorf("the working directory %s is outside the session's folder", cwd)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, "", fmt.Errorf("the session's folder cannot be opened: %w", err)
	}
	defer r.Close()
	f, err := r.Open(rel)
	if err != nil {
		return nil, "", fmt.Errorf("the working directory %s cannot be used: %w", cwd, err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() {
		f.Close()
		return nil, "", fmt.Errorf("the working directory %s is not a directory", cwd)
	}
	return f, abs, nil
}

// procDir names the opened directory for the child's chdir.
func procDir(dir *os.File, abs string) string {
	p := fmt.Sprintf("/proc/self/fd/%d", dir.Fd())
	if _, err := os.Stat(p); err != nil {
		return abs // no /proc: the checked path
	}
	return p
}

// mergeEnv is the agent's environment with the request's variables on
// top, PWD set to the working directory and TERM to a colour terminal
// when the agent has none.
func mergeEnv(base []string, extra []acpsdk.EnvVariable, cwd string) []string {
	env := make([]string, 0, len(base)+len(extra)+2)
	idx := map[string]int{}
	set := func(kv string) {
		name, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[name]; ok {
			env[i] = kv
			return
		}
		idx[name] = len(env)
		env = append(env, kv)
	}
	for _, kv := range base {
		set(kv)
	}
	if _, ok := idx["TERM"]; !ok {
		set("TERM=xterm-256color")
	}
	for _, v := range extra {
		if v.Name != "" && !strings.ContainsAny(v.Name, "=\x00") {
			set(v.Name + "=" + v.Value)
		}
	}
	set("PWD=" + cwd)
	return env
}

// resolveCommand finds the executable with the command's own PATH. A
// command given without arguments that is no executable but a shell line
// ("npm test && echo ok", as some agents send) runs with /bin/sh -c.
func resolveCommand(command string, args, env []string, dir string) (string, []string, error) {
	path, err := lookPath(command, env, dir)
	if err == nil {
		return path, args, nil
	}
	if len(args) == 0 && strings.ContainsAny(command, " \t\n;&|<>()$`'\"*?~") {
		if sh, err := lookPath("sh", env, dir); err == nil {
			return sh, []string{"-c", command}, nil
		}
	}
	return "", nil, err
}

func lookPath(command string, env []string, dir string) (string, error) {
	if strings.Contains(command, "/") {
		p := command
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if isExecutable(p) {
			return p, nil
		}
		return "", fmt.Errorf("the command %s is not an executable file", command)
	}
	pathVar := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" || !filepath.IsAbs(d) {
			continue // a relative PATH entry would search the agent's folder
		}
		if p := filepath.Join(d, command); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("the command %s was not found in PATH", command)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

func newTerminalID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "term-" + hex.EncodeToString(b[:])
}
