package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// session is one ACP session held by this process.
type session struct {
	id string

	// mu guards the fields below.
	mu       sync.Mutex
	cwd      string
	title    string
	turns    int // turns started so far (persisted, so load continues it)
	permSeq  int
	floodSeq int
	modeID   string
	modelID  string // the legacy session/set_model's choice
	configs  json.RawMessage
	created  int64
	turn     *turn // the running prompt turn, if any

	mcpServers []mcpServer                      // of the last session/new, load or resume
	mcpClients map[string]*mcpsdk.ClientSession // started by mcpCall steps
	// terms maps the names of terminal steps to the client's terminal
	// ids and the tool calls that show them.
	terms map[string]termRef

	// sendMu orders session/update lines on stdout with their records in the
	// state file.
	sendMu sync.Mutex
	state  *os.File
	stateW *bufio.Writer
}

// sessionMeta is the <state>/<id>.meta.json file.
type sessionMeta struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	Turns     int    `json:"turns"`
	Created   int64  `json:"created"`
	// The session's model and config options, so that load and resume
	// in another process report what set_model and set_config_option chose.
	ModelID string          `json:"modelId,omitempty"`
	Configs json.RawMessage `json:"configOptions,omitempty"`
}

// newSessionID returns "ta-" plus 16 random hex digits.
func newSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "ta-" + hex.EncodeToString(b[:])
}

// validSessionID rejects ids that could escape the state dir.
func validSessionID(id string) bool {
	return id != "" && !strings.ContainsAny(id, `/\`) && id != "." && id != ".."
}

func (a *agent) statePath(id, ext string) string {
	return filepath.Join(a.stateDir, id+ext)
}

// createSession registers a fresh session and creates its state files.
func (a *agent) createSession(cwd string) (*session, error) {
	s := &session{
		id:      newSessionID(),
		cwd:     cwd,
		modeID:  a.sc.newModeID,
		configs: a.sc.newConfigs,
		created: time.Now().UnixNano(),
	}
	if err := a.openState(s); err != nil {
		return nil, err
	}
	a.saveMeta(s)
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return s, nil
}

// findSession returns a session of this process, or one restored from the
// state dir (for session/load and session/resume in a new process).
func (a *agent) findSession(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.sessions[id]; ok {
		return s
	}
	if a.stateDir == "" || !validSessionID(id) {
		return nil
	}
	if _, err := os.Stat(a.statePath(id, ".jsonl")); err != nil {
		return nil
	}
	s := &session{id: id, modeID: a.sc.newModeID, configs: a.sc.newConfigs, created: time.Now().UnixNano()}
	if data, err := os.ReadFile(a.statePath(id, ".meta.json")); err == nil {
		var m sessionMeta
		if err := json.Unmarshal(data, &m); err == nil {
			s.cwd, s.title, s.turns, s.created = m.Cwd, m.Title, m.Turns, m.Created
			s.modelID = m.ModelID
			if m.Configs != nil {
				s.configs = m.Configs
			}
		}
	}
	if err := a.openState(s); err != nil {
		slog.Error("open state", "session", id, "err", err)
		return nil
	}
	a.sessions[id] = s
	return s
}

// liveSession returns a session known to this process (no state lookup).
func (a *agent) liveSession(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// openState opens the session's jsonl file for appending.
func (a *agent) openState(s *session) error {
	if a.stateDir == "" {
		return nil
	}
	f, err := os.OpenFile(a.statePath(s.id, ".jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	s.state = f
	s.stateW = bufio.NewWriterSize(f, 256<<10)
	return nil
}

// saveMeta writes the session's meta file (tmp + rename).
func (a *agent) saveMeta(s *session) {
	if a.stateDir == "" {
		return
	}
	s.mu.Lock()
	m := sessionMeta{SessionID: s.id, Cwd: s.cwd, Title: s.title, Turns: s.turns, Created: s.created, ModelID: s.modelID, Configs: s.configs}
	s.mu.Unlock()
	if err := writeFileAtomic(a.statePath(s.id, ".meta.json"), marshal(m)); err != nil {
		slog.Error("save session meta", "session", s.id, "err", err)
	}
}

// writeFileAtomic writes data to path via a temporary file and rename.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// sendUpdate writes one session/update notification and, when record is
// set, appends the update object to the state file.
func (a *agent) sendUpdate(s *session, update []byte, record bool) {
	line := updatePrefix(s.id)
	line = append(line, update...)
	line = append(line, updateSuffix...)
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	a.out.write(line, true)
	if record {
		a.recordLocked(s, update, true)
	}
}

// record appends update to the state file without sending it.
func (a *agent) record(s *session, update []byte) {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	a.recordLocked(s, update, true)
}

// recordLocked appends one or more newline-free update objects; a single
// update gets its newline added. The caller holds s.sendMu.
func (a *agent) recordLocked(s *session, data []byte, addNewline bool) {
	if s.stateW == nil {
		return
	}
	_, err := s.stateW.Write(data)
	if err == nil && addNewline {
		err = s.stateW.WriteByte('\n')
	}
	if err == nil {
		err = s.stateW.Flush()
	}
	if err != nil {
		slog.Error("write state", "session", s.id, "err", err)
	}
}

// replay sends every saved update of s as session/update notifications,
// buffered, flushing once at the end.
func (a *agent) replay(s *session) error {
	if a.stateDir == "" {
		return nil
	}
	f, err := os.Open(a.statePath(s.id, ".jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	prefix := updatePrefix(s.id)
	br := bufio.NewReaderSize(f, 1<<20)
	batch := make([]byte, 0, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if len(line) > 0 {
			batch = append(batch, prefix...)
			batch = append(batch, line...)
			batch = append(batch, updateSuffix...)
			if len(batch) >= 1<<20 {
				a.out.write(batch, false)
				batch = batch[:0]
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read state: %w", err)
		}
	}
	a.out.write(batch, true)
	return nil
}

// listedSession is one entry of the session/list result.
type listedSession struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
}

// listSessions returns the sessions of the state dir, or of this process
// when there is none, oldest first, optionally filtered by cwd.
func (a *agent) listSessions(cwd string) []listedSession {
	var metas []sessionMeta
	if a.stateDir != "" {
		files, _ := filepath.Glob(filepath.Join(a.stateDir, "*.meta.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			var m sessionMeta
			if json.Unmarshal(data, &m) == nil && m.SessionID != "" {
				metas = append(metas, m)
			}
		}
	} else {
		a.mu.Lock()
		for _, s := range a.sessions {
			s.mu.Lock()
			metas = append(metas, sessionMeta{SessionID: s.id, Cwd: s.cwd, Title: s.title, Created: s.created})
			s.mu.Unlock()
		}
		a.mu.Unlock()
	}
	sort.Slice(metas, func(i, j int) bool {
		if metas[i].Created != metas[j].Created {
			return metas[i].Created < metas[j].Created
		}
		return metas[i].SessionID < metas[j].SessionID
	})
	out := []listedSession{}
	for _, m := range metas {
		if cwd != "" && m.Cwd != cwd {
			continue
		}
		out = append(out, listedSession{SessionID: m.SessionID, Cwd: m.Cwd, Title: m.Title})
	}
	return out
}
