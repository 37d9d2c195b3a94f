package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// agent is the whole process state.
type agent struct {
	sc       *scenario
	stateDir string
	out      *output
	calls    calls

	stopped       atomic.Bool // stopReadingAfter reached
	authenticated atomic.Bool

	mu       sync.Mutex
	sessions map[string]*session

	stderrMu sync.Mutex
}

func newAgent(sc *scenario, stateDir string, stdout io.Writer) *agent {
	return &agent{sc: sc, stateDir: stateDir, out: newOutput(stdout), sessions: map[string]*session{}}
}

// serve reads stdin line by line (no length cap) and dispatches each message
// in order. It returns only when the process should exit with status 0.
func (a *agent) serve(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if a.stopped.Load() {
			parkForever()
		}
		if len(bytes.TrimSpace(line)) > 0 {
			a.dispatch(line)
		}
		if a.stopped.Load() {
			parkForever()
		}
		if err != nil {
			if err != io.EOF {
				slog.Warn("stdin read failed", "err", err)
			}
			if !a.sc.ExitOnStdinClose {
				parkForever()
			}
			a.out.flushWithin(500 * time.Millisecond)
			return
		}
	}
}

// parkForever keeps the process alive without doing anything.
func parkForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// dispatch handles one incoming line.
func (a *agent) dispatch(line []byte) {
	var m inMsg
	if err := json.Unmarshal(line, &m); err != nil {
		slog.Warn("unparseable line from client", "err", err)
		a.out.write(errorLine(nil, &rpcError{Code: codeParseError, Message: "Parse error"}), true)
		return
	}
	hasID := len(m.ID) > 0
	switch {
	case m.Method != "" && hasID:
		a.handleRequest(&request{a: a, id: compact(m.ID), method: m.Method, params: m.Params})
	case m.Method != "":
		a.handleNotification(m.Method, m.Params)
	case hasID:
		a.calls.deliver(&m)
	default:
		a.out.write(errorLine(nil, &rpcError{Code: codeInvalidRequest, Message: "Invalid Request"}), true)
	}
}

func (a *agent) handleNotification(method string, params json.RawMessage) {
	switch method {
	case "session/cancel":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(params, &p)
		if a.sc.IgnoreCancel {
			return
		}
		if s := a.liveSession(p.SessionID); s != nil {
			s.mu.Lock()
			t := s.turn
			s.mu.Unlock()
			if t != nil {
				t.cancel()
			}
		}
	case "$/cancel_request":
		a.cancelRequest(params)
	default:
		slog.Debug("ignoring notification", "method", method)
	}
}

func (a *agent) handleRequest(r *request) {
	switch r.method {
	case "initialize":
		a.initialize(r)
	case "authenticate":
		a.authenticate(r)
	case "session/new":
		a.sessionNew(r)
	case "session/load":
		a.sessionLoad(r)
	case "session/resume":
		a.sessionResume(r)
	case "session/fork":
		a.sessionFork(r)
	case "session/close":
		a.sessionClose(r)
	case "session/delete":
		a.sessionDelete(r)
	case "logout":
		a.logout(r)
	case "session/list":
		var p struct {
			Cwd string `json:"cwd"`
		}
		_ = json.Unmarshal(r.params, &p)
		r.reply(map[string]any{"sessions": a.listSessions(p.Cwd)})
	case "session/prompt":
		a.prompt(r)
	case "session/set_mode":
		a.setMode(r)
	case "session/set_config_option":
		a.setConfigOption(r)
	case "session/set_model":
		a.setModel(r)
	default:
		r.fail(codeMethodNotFound, "Method not found")
	}
}

func sleepMs(ms int) {
	if ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
}

func (a *agent) initialize(r *request) {
	sleepMs(a.sc.InitializeDelayMs)
	sessCaps := map[string]any{"list": struct{}{}}
	if a.sc.Resume {
		sessCaps["resume"] = struct{}{}
	}
	if a.sc.AddDirectories {
		sessCaps["additionalDirectories"] = struct{}{}
	}
	if a.sc.Fork {
		sessCaps["fork"] = struct{}{}
	}
	if a.sc.Close {
		sessCaps["close"] = struct{}{}
	}
	if a.sc.Delete {
		sessCaps["delete"] = struct{}{}
	}
	var auth any // absent unless there is something in it
	if a.sc.Logout {
		auth = map[string]any{"logout": struct{}{}}
	}
	r.reply(struct {
		ProtocolVersion   int             `json:"protocolVersion"`
		AgentCapabilities any             `json:"agentCapabilities"`
		AuthMethods       json.RawMessage `json:"authMethods"`
		AgentInfo         json.RawMessage `json:"agentInfo"`
	}{
		ProtocolVersion: a.sc.ProtocolVersion,
		AgentCapabilities: struct {
			LoadSession         bool            `json:"loadSession"`
			PromptCapabilities  json.RawMessage `json:"promptCapabilities"`
			SessionCapabilities any             `json:"sessionCapabilities"`
			Auth                any             `json:"auth,omitempty"`
		}{a.sc.LoadSession, a.sc.PromptCapabilities, sessCaps, auth},
		AuthMethods: a.sc.AuthMethods,
		AgentInfo:   a.sc.AgentInfo,
	})
}

// authenticate logs in with one of the scenario's authMethods (any id
// when there are none), remembered in authFile when the scenario names
// one, as a real agent keeps its credentials.
func (a *agent) authenticate(r *request) {
	var p struct {
		MethodID string `json:"methodId"`
	}
	_ = json.Unmarshal(r.params, &p)
	var methods []struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(a.sc.AuthMethods, &methods)
	known := len(methods) == 0
	for _, m := range methods {
		known = known || m.ID == p.MethodID
	}
	if !known {
		r.fail(codeInvalidParams, "unknown auth method "+p.MethodID)
		return
	}
	if a.sc.AuthFile != "" {
		if err := os.WriteFile(a.sc.AuthFile, []byte(p.MethodID+"\n"), 0o600); err != nil {
			r.fail(codeInternal, err.Error())
			return
		}
	}
	a.authenticated.Store(true)
	r.reply(json.RawMessage(`{}`))
}

// needAuth answers the request with "Authentication required" when the
// scenario demands authentication that has not happened yet (in this
// process, or in an earlier one that wrote authFile).
func (a *agent) needAuth(r *request) bool {
	if a.sc.AuthRequired && !a.authenticated.Load() && !a.authFileExists() {
		r.fail(codeAuthRequired, "Authentication required")
		return true
	}
	return false
}

func (a *agent) sessionNew(r *request) {
	sleepMs(a.sc.SessionNewDelayMs)
	if a.needAuth(r) {
		return
	}
	var p struct {
		Cwd string `json:"cwd"`
	}
	_ = json.Unmarshal(r.params, &p)
	s, err := a.createSession(p.Cwd)
	if err != nil {
		r.fail(codeInternal, "create session: "+err.Error())
		return
	}
	s.setMCPServers(r.params)
	res := map[string]json.RawMessage{}
	for k, v := range a.sc.newResult {
		res[k] = v
	}
	res["sessionId"] = marshal(s.id)
	r.reply(res)
}

// attachResult is the session/load and session/resume result: {} plus the
// modes, configOptions and models of sessionNewResult.
func (a *agent) attachResult(s *session) map[string]json.RawMessage {
	res := map[string]json.RawMessage{}
	for _, k := range []string{"modes", "configOptions", "models"} {
		if v, ok := a.sc.newResult[k]; ok {
			res[k] = v
		}
	}
	if v, ok := res["models"]; ok {
		res["models"] = s.attachModels(v)
	}
	s.mu.Lock()
	if s.configs != nil && res["configOptions"] != nil {
		res["configOptions"] = s.configs
	}
	s.mu.Unlock()
	return res
}

// attach finds the session a session/load or session/resume names and
// takes its cwd; it answers the request itself (and returns nil) when the
// method is off, authentication is needed or the session is unknown. busy
// says a prompt turn is running.
func (a *agent) attach(r *request, enabled bool) (s *session, busy bool) {
	if !enabled {
		r.fail(codeMethodNotFound, "Method not found")
		return nil, false
	}
	if a.needAuth(r) {
		return nil, false
	}
	var p attachParams
	_ = json.Unmarshal(r.params, &p)
	s = a.findSession(p.SessionID)
	if s == nil {
		r.fail(codeNotFound, "session not found")
		return nil, false
	}
	s.setMCPServers(r.params)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Cwd != "" {
		s.cwd = p.Cwd
	}
	return s, s.turn != nil
}

type attachParams struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
}

func (a *agent) sessionLoad(r *request) {
	s, busy := a.attach(r, a.sc.LoadSession)
	if s == nil {
		return
	}
	if busy {
		r.fail(codeInvalidRequest, "a prompt turn is running for this session")
		return
	}
	// The load steps may send requests, so they run off the reader goroutine.
	t := a.beginTurn(s, false)
	t.reqID = string(r.id)
	go func() {
		res := t.run(a.sc.load)
		a.endTurn(t)
		if t.withdrawn.Load() {
			r.fail(codeRequestCancelled, "Request cancelled")
			return
		}
		if res.err != nil {
			r.failWith(res.err)
			return
		}
		if err := a.replay(s); err != nil {
			r.fail(codeInternal, err.Error())
			return
		}
		r.reply(a.attachResult(s))
	}()
}

func (a *agent) sessionResume(r *request) {
	s, _ := a.attach(r, a.sc.Resume)
	if s == nil {
		return
	}
	r.reply(a.attachResult(s))
}

func (a *agent) setMode(r *request) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModeID    string `json:"modeId"`
	}
	_ = json.Unmarshal(r.params, &p)
	s := a.liveSession(p.SessionID)
	if s == nil {
		r.fail(codeNotFound, "session not found")
		return
	}
	s.mu.Lock()
	s.modeID = p.ModeID
	s.mu.Unlock()
	a.sendUpdate(s, marshal(struct {
		SessionUpdate string `json:"sessionUpdate"`
		CurrentModeID string `json:"currentModeId"`
	}{"current_mode_update", p.ModeID}), true)
	r.reply(json.RawMessage(`{}`))
}

// setModel accepts a model the session's setup offered.
func (a *agent) setModel(r *request) {
	var p struct {
		SessionID string `json:"sessionId"`
		ModelID   string `json:"modelId"`
	}
	_ = json.Unmarshal(r.params, &p)
	s := a.liveSession(p.SessionID)
	if s == nil {
		r.fail(codeNotFound, "session not found")
		return
	}
	if p.ModelID == "" || strings.HasPrefix(p.ModelID, "bad") {
		r.fail(codeInvalidParams, fmt.Sprintf("unknown model %q", p.ModelID))
		return
	}
	s.mu.Lock()
	s.modelID = p.ModelID
	s.mu.Unlock()
	a.saveMeta(s)
	r.reply(json.RawMessage(`{}`))
}

// setConfigOption answers with the full configOptions list (as the schema
// requires), with currentValue of the chosen option updated.
func (a *agent) setConfigOption(r *request) {
	var p struct {
		SessionID string          `json:"sessionId"`
		ConfigID  string          `json:"configId"`
		Type      string          `json:"type"`
		Value     json.RawMessage `json:"value"`
	}
	_ = json.Unmarshal(r.params, &p)
	s := a.liveSession(p.SessionID)
	if s == nil {
		r.fail(codeNotFound, "session not found")
		return
	}
	if v := string(compact(p.Value)); (v == "true" || v == "false") != (p.Type == "boolean") {
		// As the schema says: a boolean value goes with type "boolean".
		r.fail(codeInvalidParams, "a boolean value needs type \"boolean\" (and only one does)")
		return
	}
	if v := ""; json.Unmarshal(p.Value, &v) == nil && strings.HasPrefix(v, "bad") {
		r.fail(codeInvalidParams, fmt.Sprintf("unknown value %q", v))
		return
	}
	s.mu.Lock()
	var opts []map[string]json.RawMessage
	_ = json.Unmarshal(s.configs, &opts)
	if opts == nil {
		opts = []map[string]json.RawMessage{}
	}
	for _, o := range opts {
		var id string
		_ = json.Unmarshal(o["id"], &id)
		if id == p.ConfigID && p.Value != nil {
			o["currentValue"] = compact(p.Value)
		}
	}
	s.configs = marshal(opts)
	configs := s.configs
	s.mu.Unlock()
	a.saveMeta(s)
	r.reply(map[string]json.RawMessage{"configOptions": configs})
}

// prompt starts a turn on its own goroutine.
func (a *agent) prompt(r *request) {
	var p struct {
		SessionID string            `json:"sessionId"`
		Prompt    []json.RawMessage `json:"prompt"`
	}
	if err := json.Unmarshal(r.params, &p); err != nil {
		r.fail(codeInvalidParams, "Invalid params: "+err.Error())
		return
	}
	s := a.liveSession(p.SessionID)
	if s == nil {
		r.fail(codeNotFound, "session not found")
		return
	}
	var texts, images []string
	for _, b := range p.Prompt {
		var blk struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			MimeType string `json:"mimeType"`
			Data     string `json:"data"`
		}
		if json.Unmarshal(b, &blk) != nil {
			continue
		}
		switch blk.Type {
		case "text":
			texts = append(texts, blk.Text)
		case "image":
			images = append(images, imageReport(blk.MimeType, blk.Data))
		}
	}
	s.mu.Lock()
	busy := s.turn != nil
	s.mu.Unlock()
	if busy {
		r.fail(codeInvalidRequest, "a prompt turn is already running for this session")
		return
	}

	var steps []step
	inline := false
	if len(texts) > 0 {
		var err error
		steps, inline, err = parseInlineSteps(texts[0])
		if err != nil {
			r.fail(codeInvalidParams, "Invalid params: inline steps: "+err.Error())
			return
		}
	}
	t := a.beginTurn(s, true)
	s.mu.Lock()
	n := s.turns
	s.turns++
	s.mu.Unlock()
	a.saveMeta(s)
	if !inline {
		steps = a.sc.turnSteps(n)
	}
	echo := !inline && steps == nil
	text := strings.Join(texts, "\n")

	go func() {
		for _, b := range p.Prompt {
			a.record(s, append([]byte(`{"sessionUpdate":"user_message_chunk","content":`), append(compact(b), '}')...))
		}
		var res turnResult
		if echo {
			reply := "echo: " + text
			for _, im := range images {
				reply += "\n" + im
			}
			a.sendUpdate(s, textChunk("agent_message_chunk", reply), true)
			res = t.finish()
		} else {
			res = t.run(steps)
		}
		a.endTurn(t)
		if res.err != nil {
			r.failWith(res.err)
			return
		}
		r.reply(struct {
			StopReason string `json:"stopReason"`
		}{res.stopReason})
	}()
}

// logStderr writes text plus a newline to stderr.
func (a *agent) logStderr(text string) {
	a.stderrMu.Lock()
	defer a.stderrMu.Unlock()
	_, _ = os.Stderr.WriteString(text + "\n")
}

func (a *agent) authFileExists() bool {
	if a.sc.AuthFile == "" {
		return false
	}
	_, err := os.Stat(a.sc.AuthFile)
	return err == nil
}

// imageReport describes an image block as the echo reports it: "image
// image/png 68 bytes" (the decoded size; "bad base64" when it is not).
func imageReport(mime, data string) string {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "image " + mime + " bad base64"
	}
	return fmt.Sprintf("image %s %d bytes", mime, len(b))
}
