package chat_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
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

// syncLog is a real transcript that logs what the session asks of it:
// "+kind" for each record, "sync" and "flush".
type syncLog struct {
	*store.Writer
	mu  sync.Mutex
	log []string
}

func (l *syncLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log = append(l.log, s)
}

func (l *syncLog) AppendRecord(dir, kind string, data []byte) (store.Record, error) {
	l.add("+" + kind)
	return l.Writer.AppendRecord(dir, kind, data)
}

func (l *syncLog) Sync() error  { l.add("sync"); return l.Writer.Sync() }
func (l *syncLog) Flush() error { l.add("flush"); return l.Writer.Flush() }

// after reports whether record kind is followed by a sync before any
// other record, every time it appears (and it does appear).
func (l *syncLog) syncedAfter(kind string) (bool, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := false
	for i, s := range l.log {
		if s != "+"+kind {
			continue
		}
		seen = true
		synced := false
		for _, next := range l.log[i+1:] {
			if next == "sync" {
				synced = true
				break
			}
			if strings.HasPrefix(next, "+") {
				break
			}
		}
		if !synced {
			return false, append([]string(nil), l.log...)
		}
	}
	return seen, append([]string(nil), l.log...)
}

type allowAll struct{}

func (allowAll) RequestPermission(context.Context, *acp.PermissionRequest) (acp.PermissionDecision, error) {
	return acp.PermissionDecision{OptionID: "allow"}, nil
}

// The durability promise (store's package doc): the transcript is synced
// at every turn end and right after a permission decision is recorded,
// before the turn's result or the decision goes anywhere.
func TestTurnEndAndPermissionSync(t *testing.T) {
	w, err := store.CreateTranscript(filepath.Join(t.TempDir(), "s1.jsonl"), store.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &syncLog{Writer: w}
	s := chat.New(chat.Config{ID: "s1", Workspace: t.TempDir(), Recorder: rec, Observer: &events{}, Broker: allowAll{}})
	defer s.Close()
	a, err := acp.Start(t.Context(), acp.ProcSpec{Path: acptest.TestAgent(t)}, acp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	if _, err := s.Bind(t.Context(), a, chat.BindOptions{Runtime: "test", Cwd: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	for turn := range 2 {
		res, err := s.Prompt(t.Context(), chat.TextPrompt(acptest.Steps(`{"message":"before"}`, `{"permission":{}}`, `{"message":"after"}`)))
		if err != nil || res.StopReason != acp.StopEndTurn {
			t.Fatalf("turn %d: %v %+v", turn+1, err, res)
		}
		// Checked before Close, which syncs too.
		if ok, log := rec.syncedAfter("turn_ended"); !ok {
			t.Fatalf("turn %d: the turn end was not synced before Prompt returned: %v", turn+1, log)
		}
		if ok, log := rec.syncedAfter("permission_decided"); !ok {
			t.Fatalf("turn %d: the permission decision was not synced: %v", turn+1, log)
		}
	}
}
