package cloudsync_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"mnote/acp"
	"mnote/acp/acptest"
	"mnote/app"
	"mnote/app/chat"
	"mnote/cloudsync"
	"mnote/store"
	"mnote/thread"
	"mnote/workspace"
)

// machine is mnote's data on one machine: the store's paths and index, a
// workspace, and the sync client built as the app builds it.
type machine struct {
	t     testing.TB
	paths store.Paths
	ix    *store.Index
	ws    string
	agent string
	sync  *cloudsync.Syncer
}

func newMachine(t testing.TB, opts cloudsync.Options) *machine {
	t.Helper()
	home := t.TempDir()
	m := &machine{t: t, ws: t.TempDir(), agent: acptest.TestAgent(t),
		paths: store.Paths{ConfigFile: filepath.Join(home, "config.json"), DataDir: filepath.Join(home, "data"),
			DB: filepath.Join(home, "data", "mnote.db"), Transcripts: filepath.Join(home, "data", "transcripts"),
			Trash: filepath.Join(home, "data", "trash"), LogDir: filepath.Join(home, "logs"), StateDir: filepath.Join(home, "state")}}
	if err := m.paths.Ensure(); err != nil {
		t.Fatal(err)
	}
	ix, err := store.OpenIndex(context.Background(), m.paths.DB)
	if err != nil {
		t.Fatal(err)
	}
	m.ix = ix
	t.Cleanup(func() { ix.Close() })
	opts.Paths, opts.Sessions = m.paths, ix
	if m.sync, err = cloudsync.Open(opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.sync.Close() })
	return m
}

// session runs one session of the test agent through app/chat, one turn
// per prompt, as the app does; after each turn the session's record is
// handed to the sync client (the app's hook). It returns the session id.
func (m *machine) session(ctx context.Context, prompts ...string) string {
	t := m.t
	t.Helper()
	id := strings.ToLower(ulid.Make().String())
	path := m.paths.TranscriptPath(id)
	w, err := store.CreateTranscript(path, store.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	th := thread.New()
	x := m.ix.NewSharedIndexer(id, th)
	x.SetPath(path)
	s := chat.New(chat.Config{ID: id, Workspace: m.ws, Recorder: w, Indexer: x, Thread: th, Observer: nopObserver{}})
	if err := s.Start(chat.TitleFromPrompt(prompts[0])); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := acp.Start(ctx, acp.ProcSpec{Path: m.agent, Dir: m.ws}, acp.Options{CancelGrace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	// The agent's fs/* requests are served as the app serves them: the
	// workspace's confined file system, recorded in the transcript.
	ws, err := workspace.Open(m.ws, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := s.Bind(ctx, a, chat.BindOptions{Runtime: "test-agent", Cwd: m.ws, FS: app.SessionFS(ws, s)}); err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts {
		res, err := s.Prompt(ctx, chat.TextPrompt(p))
		if err != nil || res.StopReason != acp.StopEndTurn {
			t.Fatalf("turn: %+v %v", res, err)
		}
		if err := x.Flush(); err != nil {
			t.Fatal(err)
		}
		m.changed(ctx, id)
	}
	return id
}

// changed hands a session's current metadata to the sync client.
func (m *machine) changed(ctx context.Context, id string) {
	m.t.Helper()
	row, err := m.ix.GetSession(ctx, id)
	if err != nil {
		m.t.Fatal(err)
	}
	if err := m.sync.Enqueue(ctx, cloudsync.MetaFromRow(row)); err != nil {
		m.t.Fatal(err)
	}
}

type nopObserver struct{}

func (nopObserver) Event(*chat.Event) {}

// canarySteps is a turn of the test agent that puts the canary in every
// place content can be: the prompt itself, a thought, the answer, a tool
// call's title, location, input and output, a file it reads and one it
// writes, a plan.
func canarySteps(ws, canary string) string {
	r := strings.NewReplacer("WS", ws, "CANARY", canary)
	return r.Replace(acptest.Steps(
		`{"thought":"pondering CANARY deeply"}`,
		`{"message":"The answer is CANARY.","chunk":7}`,
		`{"toolCall":{"toolCallId":"t1","title":"Read CANARY notes","kind":"read","status":"in_progress","locations":[{"path":"WS/secret-CANARY.md","line":1}],"rawInput":{"query":"CANARY"}}}`,
		`{"readFile":{"path":"WS/secret-CANARY.md"}}`,
		`{"toolCallUpdate":{"toolCallId":"t1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"tool output CANARY"}}],"rawOutput":{"out":"CANARY"}}}`,
		`{"writeFile":{"path":"WS/out-CANARY.md","content":"file body CANARY"}}`,
		`{"plan":[{"content":"step CANARY","priority":"high","status":"pending"}]}`,
	))
}

// seedCanaryFile writes the file canarySteps reads.
func seedCanaryFile(t testing.TB, ws, canary string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws, "secret-"+canary+".md"), []byte("file contents "+canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
