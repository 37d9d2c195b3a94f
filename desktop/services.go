package desktop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"mnote/internal/winlink"
)

// The services' hidden command and the window's own methods they call
// (mnote/app/cli, windowsvc.go, says the same).
const (
	servicesCmd      = "window-services"
	nativePickFolder = "native.pickFolder"
	nativeSaveFile   = "native.saveFile"
	assetMethod      = "window.asset"
	envCLI           = winlink.EnvCLI
)

// Restarts: a services process that dies is started again (the page
// reloads) up to maxRestarts times within restartWindow; then the window
// says so and closes.
const (
	maxRestarts   = 3
	restartWindow = time.Minute
	stopTimeout   = 10 * time.Second
)

// host is what the services need from the window.
type host interface {
	winlink.Handler
	servicesRestarted()
	servicesFailed(reason string)
}

// services is the child `mnote window-services` process and the link to it.
type services struct {
	cli     string
	log     *slog.Logger
	handler host

	mu       sync.Mutex
	link     *winlink.Conn
	cmd      *exec.Cmd
	exited   chan struct{} // closed when cmd has been waited for
	restarts []time.Time
	stopping bool
}

// findCLI is the command line binary: the one that started this window
// ($MNOTE_CLI), else mnote beside this binary or in ../../bin/ (a
// package's $PREFIX/lib/mnote/mnote-app and $PREFIX/bin/mnote).
func findCLI() (string, error) {
	if p := os.Getenv(envCLI); p != "" {
		os.Unsetenv(envCLI) // the services and their agents do not need it
		if winlink.IsExecutable(p) {
			return p, nil
		}
	}
	cli, tried, err := winlink.Beside("mnote", filepath.Join("..", "..", "bin", "mnote"))
	if err != nil || cli != "" {
		return cli, err
	}
	return "", fmt.Errorf("no mnote in %s or %s: reinstall mnote (the window runs its services with it)", tried[0], tried[1])
}

// start starts the services on t (the first time; a restart opens the
// folder last used, which is the one the window had open).
func (s *services) start(t target) error {
	var args []string
	if t.Dir != "" {
		args = append(args, "-workspace", t.Dir)
	}
	if t.File != "" {
		args = append(args, "-select", t.File)
	}
	return s.spawn(args)
}

func (s *services) spawn(args []string) error {
	parent, child, err := winlink.Pair()
	if err != nil {
		return err
	}
	cmd := exec.Command(s.cli, append([]string{servicesCmd}, args...)...)
	cmd.Args[0] = "mnote"
	cmd.ExtraFiles = []*os.File{child} // fd 3 (winlink.FD)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	err = cmd.Start()
	child.Close()
	if err != nil {
		parent.Close()
		return fmt.Errorf("starting %s %s: %w", s.cli, servicesCmd, err)
	}
	link := winlink.New(parent, s.handler, s.log)
	exited := make(chan struct{})
	s.mu.Lock()
	s.link, s.cmd, s.exited = link, cmd, exited
	s.mu.Unlock()
	go func() { _ = link.Serve() }()
	go s.watch(cmd, link, exited)
	s.log.Info("mnote's services started", "pid", cmd.Process.Pid)
	return nil
}

// watch waits for the process; one that dies while the window runs is
// restarted, or the window gives up.
func (s *services) watch(cmd *exec.Cmd, link *winlink.Conn, exited chan struct{}) {
	err := cmd.Wait()
	close(exited)
	link.Close()
	s.mu.Lock()
	stopping := s.stopping
	now := time.Now()
	recent := s.restarts[:0]
	for _, at := range s.restarts {
		if now.Sub(at) < restartWindow {
			recent = append(recent, at)
		}
	}
	s.restarts = recent
	again := !stopping && len(recent) < maxRestarts
	if again {
		s.restarts = append(s.restarts, now)
	}
	s.mu.Unlock()
	if stopping {
		return
	}
	reason := "exit status 0"
	if err != nil {
		reason = err.Error()
	}
	s.log.Error("mnote's services stopped unexpectedly", "err", reason)
	if again {
		if err := s.spawn(nil); err == nil {
			s.handler.servicesRestarted()
			return
		} else {
			reason = err.Error()
		}
	}
	s.handler.servicesFailed(reason)
}

// call passes one of the page's calls to the services. While they are
// restarting (or after they failed) it fails with the reason
// "services_stopped", which the page words.
func (s *services) call(method, args string) (string, error) {
	s.mu.Lock()
	link := s.link
	s.mu.Unlock()
	if link == nil {
		return "", stoppedError()
	}
	res, err := link.Call(context.Background(), method, args)
	if errors.Is(err, winlink.ErrClosed) {
		return "", stoppedError()
	}
	return res, err
}

// stoppedError is the services' error JSON (app.Error) for a call that
// could not reach them; app's reason list has services_stopped.
func stoppedError() error {
	b, _ := json.Marshal(map[string]string{"code": "internal", "reason": "services_stopped",
		"message": "mnote's services stopped; the window is starting them again — try again in a moment"})
	return errors.New(string(b))
}

// stop closes the link: the services stop every agent and exit. One that
// has not exited after stopTimeout is killed.
func (s *services) stop() {
	s.mu.Lock()
	s.stopping = true
	link, cmd, exited := s.link, s.cmd, s.exited
	s.mu.Unlock()
	if link == nil {
		return
	}
	link.Close()
	select {
	case <-exited:
	case <-time.After(stopTimeout):
		s.log.Warn("mnote's services did not stop in time: killed", "pid", cmd.Process.Pid)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-exited
	}
}

// Bridge is bound into the page (window.go.desktop.Bridge.Call): the
// page's one method, passed on to the services. Wails binds every
// exported method of a bound struct, so Call is its only one.
type Bridge struct {
	svc *services
}

// Call runs one API method in the services (app/API.md).
func (b *Bridge) Call(method, args string) (string, error) { return b.svc.call(method, args) }

// assetHandler serves the page from the services' copy of the UI (the
// window carries none of its own).
type assetHandler struct{ svc *services }

func (h assetHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := path.Clean("/" + r.URL.Path)
	args, _ := json.Marshal(map[string]string{"path": p})
	res, err := h.svc.call(assetMethod, string(args))
	if err != nil {
		if p == "/" || p == "/index.html" {
			// A page all the same: it loads, and the window says what
			// happened over it (desktop.domReady).
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte("<!doctype html><meta charset=\"utf-8\"><title>mnote</title><body></body>"))
			return
		}
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	var a struct {
		Type string `json:"type"`
		Body string `json:"body"` // base64
	}
	if err := json.Unmarshal([]byte(res), &a); err != nil {
		http.Error(w, "the services sent a bad asset: "+err.Error(), http.StatusBadGateway)
		return
	}
	body, err := base64.StdEncoding.DecodeString(a.Body)
	if err != nil {
		http.Error(w, "the services sent a bad asset: "+err.Error(), http.StatusBadGateway)
		return
	}
	if a.Type == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.Type)
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
}
