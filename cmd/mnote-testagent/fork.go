package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"time"
)

// sessionFork serves session/fork (scenario "fork"): a new session in the
// request's cwd that starts with the named session's history (its state
// file copied, so a later session/load replays it) and turn counter.
func (a *agent) sessionFork(r *request) {
	if !a.sc.Fork {
		r.fail(codeMethodNotFound, "Method not found")
		return
	}
	if a.needAuth(r) {
		return
	}
	var p attachParams
	_ = json.Unmarshal(r.params, &p)
	src := a.findSession(p.SessionID)
	if src == nil {
		r.fail(codeNotFound, "session not found")
		return
	}
	src.mu.Lock()
	cwd, title, turns := src.cwd, src.title, src.turns
	src.mu.Unlock()
	if p.Cwd != "" {
		cwd = p.Cwd
	}
	s := &session{id: newSessionID(), cwd: cwd, title: title, turns: turns, modeID: a.sc.newModeID,
		configs: a.sc.newConfigs, created: time.Now().UnixNano()}
	if a.stateDir != "" {
		// The source's updates are flushed as they are written.
		src.sendMu.Lock()
		data, err := os.ReadFile(a.statePath(src.id, ".jsonl"))
		src.sendMu.Unlock()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.fail(codeInternal, "fork: "+err.Error())
			return
		}
		if err := os.WriteFile(a.statePath(s.id, ".jsonl"), data, 0o644); err != nil {
			r.fail(codeInternal, "fork: "+err.Error())
			return
		}
	}
	if err := a.openState(s); err != nil {
		r.fail(codeInternal, "fork: "+err.Error())
		return
	}
	a.saveMeta(s)
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	s.setMCPServers(r.params)
	a.logStderr("forked " + src.id + " into " + s.id)
	res := a.attachResult(s)
	res["sessionId"] = marshal(s.id)
	r.reply(res)
}
