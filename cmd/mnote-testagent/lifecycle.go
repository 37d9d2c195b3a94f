package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// The stable lifecycle methods a client calls to let go of things:
// session/close (scenario "close"), session/delete ("delete") and logout
// ("logout"). Each call is noted on stderr and, with a state directory,
// appended to <state>/calls.log as "<method> <sessionId>" (logout: just
// "logout"), so that a test can check what the client asked for even
// after the process ended.

// callsLog is the file of lifecycle calls in the state directory.
const callsLog = "calls.log"

// noteCall records one lifecycle call.
func (a *agent) noteCall(line string) {
	a.logStderr(line)
	if a.stateDir == "" {
		return
	}
	a.stderrMu.Lock()
	defer a.stderrMu.Unlock()
	f, err := os.OpenFile(filepath.Join(a.stateDir, callsLog), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(line + "\n")
	_ = f.Close()
}

// sessionClose serves session/close: a running turn is cancelled and the
// session is forgotten by this process (its state stays, so a later
// session/load still finds it).
func (a *agent) sessionClose(r *request) {
	if !a.sc.Close {
		r.fail(codeMethodNotFound, "Method not found")
		return
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(r.params, &p)
	a.noteCall("session/close " + p.SessionID)
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	delete(a.sessions, p.SessionID)
	a.mu.Unlock()
	if s == nil {
		r.fail(codeNotFound, "session not found")
		return
	}
	s.mu.Lock()
	t := s.turn
	s.mu.Unlock()
	if t != nil {
		t.cancel()
	}
	a.closeState(s)
	r.reply(json.RawMessage(`{}`))
}

// sessionDelete serves session/delete: the session and its state files
// are removed (session/list no longer shows it, session/load fails).
func (a *agent) sessionDelete(r *request) {
	if !a.sc.Delete {
		r.fail(codeMethodNotFound, "Method not found")
		return
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(r.params, &p)
	a.noteCall("session/delete " + p.SessionID)
	s := a.findSession(p.SessionID)
	if s == nil {
		r.fail(codeNotFound, "session not found")
		return
	}
	a.mu.Lock()
	delete(a.sessions, p.SessionID)
	a.mu.Unlock()
	a.closeState(s)
	if a.stateDir != "" {
		for _, ext := range []string{".jsonl", ".meta.json"} {
			if err := os.Remove(a.statePath(s.id, ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				r.fail(codeInternal, "delete: "+err.Error())
				return
			}
		}
	}
	r.reply(json.RawMessage(`{}`))
}

// logout serves logout: the login is forgotten (authFile removed), so
// that with authRequired the next session needs authenticate again.
func (a *agent) logout(r *request) {
	if !a.sc.Logout {
		r.fail(codeMethodNotFound, "Method not found")
		return
	}
	a.noteCall("logout")
	a.authenticated.Store(false)
	if a.sc.AuthFile != "" {
		if err := os.Remove(a.sc.AuthFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.fail(codeInternal, "logout: "+err.Error())
			return
		}
	}
	r.reply(json.RawMessage(`{}`))
}

// closeState flushes and closes a session's state file.
func (a *agent) closeState(s *session) {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if s.stateW != nil {
		_ = s.stateW.Flush()
	}
	if s.state != nil {
		_ = s.state.Close()
	}
	s.state, s.stateW = nil, nil
}
