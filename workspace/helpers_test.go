package workspace_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"mnote/acp/acptest"
	"mnote/workspace"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if bigDir != "" {
		os.RemoveAll(bigDir)
	}
	acptest.Cleanup()
	os.Exit(code)
}

// open opens a fresh workspace in a temp folder, closed at cleanup.
func open(t testing.TB, opts workspace.Options) (*workspace.Workspace, string) {
	t.Helper()
	return openDir(t, t.TempDir(), opts)
}

func openDir(t testing.TB, dir string, opts workspace.Options) (*workspace.Workspace, string) {
	t.Helper()
	if opts.TrashDir == "" {
		opts.TrashDir = filepath.Join(t.TempDir(), "Trash")
	}
	w, err := workspace.Open(dir, opts)
	if err != nil {
		t.Fatalf("open workspace: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	return w, w.Dir()
}

// write creates a file (and its folders) directly on disk, as another
// program would.
func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// collector keeps the events a workspace delivers.
type collector struct {
	mu     sync.Mutex
	events []workspace.Event
	signal chan struct{}
}

func collect(w *workspace.Workspace) *collector {
	c := &collector{signal: make(chan struct{}, 1)}
	w.Subscribe(func(e workspace.Event) {
		c.mu.Lock()
		c.events = append(c.events, e)
		c.mu.Unlock()
		select {
		case c.signal <- struct{}{}:
		default:
		}
	})
	return c
}

// waitFor waits (at most 10 s, a hang guard, not a speed check) until
// pred holds for the events seen so far, and returns them.
func (c *collector) waitFor(t testing.TB, what string, pred func([]workspace.Event) bool) []workspace.Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		evs := slices.Clone(c.events)
		c.mu.Unlock()
		if pred(evs) {
			return evs
		}
		select {
		case <-c.signal:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; events: %s", what, describe(evs))
		}
	}
}

// reset forgets the events seen so far.
func (c *collector) reset() {
	c.mu.Lock()
	c.events = nil
	c.mu.Unlock()
}

// waitChange waits for a change of path with op.
func (c *collector) waitChange(t testing.TB, path string, op workspace.Op) []workspace.Event {
	t.Helper()
	return c.waitFor(t, string(op)+" "+path, func(evs []workspace.Event) bool {
		return hasChange(evs, path, op)
	})
}

// waitBuffer waits for a buffer event of kind on path.
func (c *collector) waitBuffer(t testing.TB, path string, kind workspace.BufferEventKind) workspace.BufferEvent {
	t.Helper()
	var found workspace.BufferEvent
	c.waitFor(t, string(kind)+" buffer "+path, func(evs []workspace.Event) bool {
		for _, e := range evs {
			for _, b := range e.Buffers {
				if b.Kind == kind && b.Buffer.Path == path {
					found = b
					return true
				}
			}
		}
		return false
	})
	return found
}

func hasChange(evs []workspace.Event, path string, op workspace.Op) bool {
	for _, e := range evs {
		for _, c := range e.Changes {
			if c.Path == path && c.Op == op {
				return true
			}
		}
	}
	return false
}

// changes flattens the changes of events into "op path" strings.
func changes(evs []workspace.Event) []string {
	var out []string
	for _, e := range evs {
		for _, c := range e.Changes {
			s := string(c.Op) + " " + c.Path
			if c.From != "" {
				s += " from " + c.From
			}
			out = append(out, s)
		}
	}
	return out
}

func describe(evs []workspace.Event) string {
	var sb strings.Builder
	for _, e := range evs {
		sb.WriteString("[")
		for _, c := range e.Changes {
			sb.WriteString(" " + string(c.Op) + ":" + c.Path)
			if c.From != "" {
				sb.WriteString("<-" + c.From)
			}
		}
		for _, b := range e.Buffers {
			sb.WriteString(" buffer-" + string(b.Kind) + ":" + b.Buffer.Path)
		}
		if e.Rescan {
			sb.WriteString(" rescan")
		}
		sb.WriteString(" ]")
	}
	return sb.String()
}

func ptr[T any](v T) *T { return &v }
