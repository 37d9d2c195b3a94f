package chat_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mnote/acp"
	"mnote/acp/acptest"
	"mnote/app/chat"
	"mnote/store"
	"mnote/thread"
)

func TestMain(m *testing.M) { acptest.Main(m) }

// failingRecorder is a transcript whose disk fills up after n records.
type failingRecorder struct {
	mu    sync.Mutex
	n     int
	kinds []string
}

func (f *failingRecorder) AppendRecord(dir, kind string, data []byte) (store.Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.kinds) >= f.n {
		return store.Record{}, fmt.Errorf("store: write transcript /data/s.jsonl: %w", syscall.ENOSPC)
	}
	f.kinds = append(f.kinds, dir+" "+kind)
	return store.Record{Dir: dir, Kind: kind, Data: data}, nil
}
func (f *failingRecorder) Sync() error  { return nil }
func (f *failingRecorder) Close() error { return nil }

type events struct {
	mu  sync.Mutex
	evs []string
}

func (e *events) Event(ev *chat.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.evs = append(e.evs, ev.Type)
}

// A transcript that cannot be written stops the turn with an error naming
// the file; the session does not go on in memory.
func TestWriteFailureStopsTheTurn(t *testing.T) {
	rec := &failingRecorder{n: 40}
	s := chat.New(chat.Config{ID: "s1", Workspace: t.TempDir(), Recorder: rec, Observer: &events{}})
	a, err := acp.Start(t.Context(), acp.ProcSpec{Path: acptest.TestAgent(t)}, acp.Options{CancelGrace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	if _, err := s.Bind(t.Context(), a, chat.BindOptions{Runtime: "test", Cwd: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := s.Prompt(t.Context(), chat.TextPrompt(acptest.Steps(`{"message":"x","chunk":1}`, `{"sleepMs":50}`, `{"flood":100000}`, `{"waitForCancel":true}`)))
	if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "/data/s.jsonl") {
		t.Fatalf("turn error: %v (%+v)", err, res)
	}
	if res == nil || res.StopReason != acp.StopCancelled {
		t.Fatalf("the agent's turn was not cancelled: %+v", res)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatalf("took %s", time.Since(start))
	}
	// The next turn refuses to start.
	if _, err := s.Prompt(t.Context(), chat.TextPrompt("more")); err == nil {
		t.Fatal("a session with a failed transcript took another turn")
	}
	var n int
	s.Thread(func(th *thread.Thread) { n = th.Len() })
	if n == 0 {
		t.Fatal("thread empty")
	}
}
