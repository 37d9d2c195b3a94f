package acp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"mnote/acp"
	"mnote/acp/acptest"
	"mnote/thread"
)

func TestMain(m *testing.M) { acptest.Main(m) }

// recorder is a SessionHandler that keeps what it sees.
type recorder struct {
	mu      sync.Mutex
	kinds   map[string]int
	text    strings.Builder
	n       int
	lines   []string // dir kind, for non-update lines
	bad     []string
	badErrs []error
	delay   time.Duration
	onN     func(n int)
}

func newRecorder() *recorder { return &recorder{kinds: map[string]int{}} }

func (r *recorder) Update(u *thread.Update, line []byte) {
	if r.delay > 0 {
		time.Sleep(r.delay)
	}
	r.mu.Lock()
	r.n++
	n := r.n
	r.kinds[u.SessionUpdate]++
	if u.SessionUpdate == thread.KindAgentMessageChunk && len(u.Content) > 0 {
		var b thread.ContentBlock
		if json.Unmarshal(u.Content, &b) == nil {
			r.text.WriteString(b.Text)
		}
	}
	f := r.onN
	r.mu.Unlock()
	if f != nil {
		f(n)
	}
}

func (r *recorder) Line(dir acp.Dir, kind string, line []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, string(dir)+" "+kind)
}

func (r *recorder) Notification(method string, _ json.RawMessage, _ []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, "in "+method)
}

func (r *recorder) Bad(err error, line []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bad = append(r.bad, string(line))
	r.badErrs = append(r.badErrs, err)
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

func (r *recorder) Text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.text.String()
}

// brokerFunc adapts a function to acp.PermissionBroker.
type brokerFunc func(ctx context.Context, req *acp.PermissionRequest) (acp.PermissionDecision, error)

func (f brokerFunc) RequestPermission(ctx context.Context, req *acp.PermissionRequest) (acp.PermissionDecision, error) {
	return f(ctx, req)
}

// startAgent starts the test agent with a scenario (JSON, may be "").
func startAgent(t *testing.T, scenario string, opts acp.Options, extraArgs ...string) *acp.Agent {
	t.Helper()
	args := extraArgs
	if scenario != "" {
		args = append(acptest.Scenario(scenario), args...)
	}
	a, err := acp.Start(t.Context(), acp.ProcSpec{Path: acptest.TestAgent(t), Args: args, Dir: t.TempDir()}, opts)
	if err != nil {
		t.Fatalf("start test agent: %v", err)
	}
	t.Cleanup(a.Stop)
	return a
}

func newSession(t *testing.T, a *acp.Agent, h acp.SessionHandler, b acp.PermissionBroker) (*acp.Session, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := a.NewSession(t.Context(), acp.SessionConfig{Cwd: dir, Handler: h, Broker: b})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return s, dir
}

func prompt(t *testing.T, s *acp.Session, text string) *acp.PromptResult {
	t.Helper()
	res, err := s.Prompt(t.Context(), []thread.ContentBlock{{Type: "text", Text: text}})
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	return res
}

func textPrompt(text string) []thread.ContentBlock {
	return []thread.ContentBlock{{Type: "text", Text: text}}
}
