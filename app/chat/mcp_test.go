package chat_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"mnote/acp"
	"mnote/acp/acptest"
	"mnote/app/chat"
	"mnote/store"
)

// memRecorder keeps the records.
type memRecorder struct {
	mu   sync.Mutex
	recs []store.Record
}

func (m *memRecorder) AppendRecord(dir, kind string, data []byte) (store.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := store.Record{Dir: dir, Kind: kind, Data: append([]byte(nil), data...)}
	m.recs = append(m.recs, r)
	return r, nil
}
func (m *memRecorder) Sync() error  { return nil }
func (m *memRecorder) Close() error { return nil }

// The mcpServers given to the agent reach it, but their secrets (the
// notes tools' token, the user's servers' keys and headers) are not kept
// in the transcript's session/new line.
func TestMCPServerSecretsAreNotRecorded(t *testing.T) {
	rec := &memRecorder{}
	s := chat.New(chat.Config{ID: "s1", Workspace: t.TempDir(), Recorder: rec, Observer: &events{}})
	a, err := acp.Start(t.Context(), acp.ProcSpec{Path: acptest.TestAgent(t)}, acp.Options{CancelGrace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	servers := []json.RawMessage{
		json.RawMessage(`{"name":"mnote","command":"/bin/mnote","args":["mcp"],"env":[{"name":"MNOTE_MCP_TOKEN","value":"sekrit-token"}]}`),
		json.RawMessage(`{"type":"http","name":"web","url":"http://127.0.0.1:9/mcp","headers":[{"name":"Authorization","value":"Bearer sekrit-key"}]}`),
	}
	if _, err := s.Bind(t.Context(), a, chat.BindOptions{Runtime: "test", Cwd: t.TempDir(), McpServers: servers}); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var line []byte
	for _, r := range rec.recs {
		if strings.Contains(string(r.Data), "sekrit") {
			t.Errorf("a %s %s record holds a secret: %s", r.Dir, r.Kind, r.Data)
		}
		if r.Dir == store.DirOut && r.Kind == store.KindSessionNew {
			line = r.Data
		}
	}
	var msg struct {
		Params struct {
			McpServers []struct {
				Name    string
				Command string
				URL     string
				Env     []struct{ Name, Value string }
				Headers []struct{ Name, Value string }
			}
		}
	}
	if err := json.Unmarshal(line, &msg); err != nil || len(msg.Params.McpServers) != 2 {
		t.Fatalf("session/new line %s: %v", line, err)
	}
	m, w := msg.Params.McpServers[0], msg.Params.McpServers[1]
	if m.Command != "/bin/mnote" || m.Env[0].Name != "MNOTE_MCP_TOKEN" || m.Env[0].Value != "[redacted]" ||
		w.URL != "http://127.0.0.1:9/mcp" || w.Headers[0].Name != "Authorization" || w.Headers[0].Value != "[redacted]" {
		t.Errorf("recorded servers %+v", msg.Params.McpServers)
	}
}
