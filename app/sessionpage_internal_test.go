package app

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// A thread's JSON taken apart and put together again is the same
// thread, whatever its entries' texts hold (brackets, quotes, escapes);
// JSON not in Go's order is decoded first; broken JSON is refused.
func TestSplitThreadJSON(t *testing.T) {
	t.Parallel()
	tricky := []string{`]`, `}`, `"`, `\`, `\"]},{`, "line\nbreak", `{"entries":[`, "中文"}
	type entry struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	var es []entry
	for i, s := range tricky {
		es = append(es, entry{ID: "e" + string(rune('1'+i)), Text: s})
	}
	canon, err := json.Marshal(map[string]any{"entries": es, "turn": 3, "title": `a "title"`})
	if err != nil {
		t.Fatal(err)
	}
	// Go's map keys are sorted: "entries" comes first, as for thread.Snapshot.
	for _, raw := range []string{
		string(canon),
		`{"entries":[],"turn":1,"usage":{"used":0,"size":0}}`,
		`{"entries":null,"turn":1,"usage":{"used":0,"size":0}}`,
		` {"turn":1, "entries":[{"id":"e1","kind":"thought","turn":1,"text":"x"}],"usage":{"used":0,"size":0}}`, // decoded first
	} {
		st, err := splitThreadJSON([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var want, got map[string]any
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		whole := st.encode(0, len(st.entries))
		if err := json.Unmarshal(whole, &got); err != nil {
			t.Fatalf("%s put together: %v: %s", raw, err, whole)
		}
		if w, g := must(json.Marshal(want)), must(json.Marshal(got)); !slices.Equal(w, g) && !(want["entries"] == nil && len(got["entries"].([]any)) == 0) {
			t.Fatalf("put together:\n%s\nwant\n%s", g, w)
		}
	}
	st, err := splitThreadJSON(canon)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.entries) != len(tricky) {
		t.Fatalf("%d entries, want %d", len(st.entries), len(tricky))
	}
	for i := range tricky {
		var e entry
		if err := json.Unmarshal(st.encode(i, i+1), &struct {
			Entries []*entry `json:"entries"`
		}{[]*entry{&e}}); err != nil || e.Text != tricky[i] || st.id(i) != es[i].ID {
			t.Fatalf("entry %d: %+v %v (id %q)", i, e, err, st.id(i))
		}
	}
	for _, bad := range []string{
		``, `[]`, `{"entries":[`, `{"entries":[{"id":"e1"`, `{"entries":[{"id":"e1"}`,
		`{"entries":[{"id":"e1"}]`, `{"entries":[{"id":"e1"}],`, `{"entries":[{"id":"e1\"}]}`, `{"entries":[1,2]}x`,
		`{"entries":[{"id":"e1"}] ,"turn":1}x`,
	} {
		if _, err := splitThreadJSON([]byte(bad)); err == nil {
			t.Errorf("%q was taken apart", bad)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// A thread taken apart for its slices is let go when no slice is asked of
// it for a while (its tab closed while its earlier entries loaded); a
// slice asked meanwhile keeps it, and an older while never drops a newer
// thread.
func TestThreadPagesLetGoWhenIdle(t *testing.T) {
	t.Parallel()
	p := &threadPages{idleAfter: 30 * time.Millisecond}
	kept := func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.split != nil
	}
	first := &splitThread{}
	p.mu.Lock()
	p.id, p.split = "s1", first
	p.touchLocked()
	p.mu.Unlock()
	// A newer thread in its place before the first's while is over.
	p.mu.Lock()
	p.id, p.split = "s2", &splitThread{}
	p.idleAfter = time.Hour
	p.touchLocked()
	p.mu.Unlock()
	time.Sleep(100 * time.Millisecond)
	if !kept() {
		t.Fatal("the newer thread was dropped by the older one's while")
	}
	p.mu.Lock()
	p.idleAfter = 30 * time.Millisecond
	p.touchLocked()
	p.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for kept() {
		if time.Now().After(deadline) {
			t.Fatal("an idle thread is still kept")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.mu.Lock()
	p.dropLocked()
	p.mu.Unlock()
}
