package registry_test

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"mnote/acp"
	"mnote/acp/acptest"
	"mnote/acp/registry"
	"mnote/thread"
)

func TestMain(m *testing.M) { acptest.Main(m) }

// text collects an agent's message chunks.
type text struct {
	mu sync.Mutex
	b  strings.Builder
}

func (r *text) Line(acp.Dir, string, []byte)                 {}
func (r *text) Notification(string, json.RawMessage, []byte) {}
func (r *text) Bad(error, []byte)                            {}
func (r *text) Update(u *thread.Update, _ []byte) {
	if u.SessionUpdate != thread.KindAgentMessageChunk {
		return
	}
	var b thread.ContentBlock
	if json.Unmarshal(u.Content, &b) == nil {
		r.mu.Lock()
		r.b.WriteString(b.Text)
		r.mu.Unlock()
	}
}

// TestInstalledAgentRunsASession installs the test agent from a registry
// served on loopback (index, then its archive for this platform) and
// talks ACP with what was installed.
func TestInstalledAgentRunsASession(t *testing.T) {
	bin, err := os.ReadFile(acptest.TestAgent(t))
	if err != nil {
		t.Fatal(err)
	}
	plat := registry.ThisPlatform()
	if plat == "" {
		t.Skip("the registry lists no binaries for this platform")
	}
	tgz := tarGz(t, []entry{{name: "mnote-testagent/", typ: '5', mode: 0o755}, {name: "mnote-testagent/testagent", body: string(bin), mode: 0o755}})
	index := `{"version":"1.0.0","agents":[{"id":"test-agent","name":"Test Agent","version":"0.1.0","description":"mnote's test agent",
		"license":"MIT","distribution":{"binary":{"` + plat + `":{"archive":"./test-agent-0.1.0.tar.gz","cmd":"./mnote-testagent/testagent"}}}}]}`
	srv, _ := serve(t, map[string][]byte{"/registry.json": []byte(index), "/test-agent-0.1.0.tar.gz": tgz})
	src := &registry.Source{URL: srv.URL + "/registry.json", Dir: t.TempDir()}
	l, err := src.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	a, ok := l.Find("test-agent")
	if !ok {
		t.Fatalf("not listed: %+v", l)
	}
	in := &registry.Installer{Root: t.TempDir()}
	res, err := in.Install(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := acp.Start(t.Context(), acp.ProcSpec{Path: res.Command, Args: res.Args, Dir: t.TempDir()}, acp.Options{StopGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Stop()
	rec := &text{}
	s, err := ag.NewSession(t.Context(), acp.SessionConfig{Cwd: t.TempDir(), Handler: rec})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(t.Context(), []thread.ContentBlock{{Type: "text", Text: acptest.Steps(`{"message":"hello from the registry"}`)}}); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !strings.Contains(rec.b.String(), "hello from the registry") {
		t.Errorf("the agent said %q", rec.b.String())
	}
}
