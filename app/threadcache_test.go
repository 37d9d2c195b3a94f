package app_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"mnote/acp/acptest"
)

// openRaw is sessions.open's thread, as JSON.
func (h *harness) openThreadJSON(id string) []byte {
	h.t.Helper()
	var snap struct {
		Thread json.RawMessage `json:"thread"`
	}
	h.mustCall("sessions.open", map[string]any{"id": id}, &snap)
	var v any // compare decoded: key order and spacing may differ
	if err := json.Unmarshal(snap.Thread, &v); err != nil {
		h.t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return b
}

// A closed session's thread is cached: opening it again (after a restart
// too) gives what replaying its transcript gives; a stale, corrupt or
// missing cache is never used.
func TestThreadCache(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	h.answer(sum.ID, "cached words")
	from := h.rec.Len()
	turn := h.prompt(sum.ID, acptest.Steps(`{"thought":"hmm"}`, `{"toolCall":{"toolCallId":"t1","title":"Read a.md","kind":"read","status":"completed"}}`, `{"message":"second answer"}`))
	h.waitTurnEnded(sum.ID, from, turn)
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)

	cache := h.paths.ThreadCachePath(sum.ID)
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("closing the session cached nothing: %v", err)
	}
	fromCache := h.openThreadJSON(sum.ID)
	if !bytes.Contains(fromCache, []byte("second answer")) || bytes.Contains(fromCache, []byte(`"streaming":true`)) {
		t.Fatalf("cached thread: %s", fromCache)
	}
	// The same as a replay of the transcript.
	if err := os.Remove(cache); err != nil {
		t.Fatal(err)
	}
	replayed := h.openThreadJSON(sum.ID)
	if !bytes.Equal(fromCache, replayed) {
		t.Fatalf("cache and replay differ:\n%s\n%s", fromCache, replayed)
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("a replayed open is cached for the next one: %v", err)
	}

	// A corrupt entry is not used.
	if err := os.WriteFile(cache, []byte("{\"v\":1,\"size\":1}\nnot json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := h.openThreadJSON(sum.ID); !bytes.Equal(got, replayed) {
		t.Fatalf("after corrupting the cache: %s", got)
	}
	// So is a damaged one whose header still matches.
	good := h.openThreadJSON(sum.ID) // rewrites the entry
	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, []byte("second answer"))
	copy(b[i:], "SECOND")
	if err := os.WriteFile(cache, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := h.openThreadJSON(sum.ID); !bytes.Equal(got, good) {
		t.Fatalf("a damaged cache entry was used: %s", got)
	}
	// After a restart and another turn, the cache follows the transcript.
	h.svc.Shutdown()
	h.start()
	if got := h.openThreadJSON(sum.ID); !bytes.Equal(got, replayed) {
		t.Fatalf("after a restart: %s", got)
	}
	h.answer(sum.ID, "third answer")
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	if got := h.openThreadJSON(sum.ID); !bytes.Contains(got, []byte("third answer")) {
		t.Fatalf("a stale cache was used: %s", got)
	}
	// Deleting the session removes its cache entry.
	h.mustCall("sessions.delete", map[string]any{"id": sum.ID}, nil)
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Fatalf("cache of a deleted session: %v", err)
	}
}
