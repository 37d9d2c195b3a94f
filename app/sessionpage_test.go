package app_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
)

// pageOf is one sessions.open call with limit and before: the entries'
// ids and texts, how many come before them, and the thread's other
// fields (decoded, to compare).
type pageOf struct {
	ids, texts []string
	earlier    int
	rest       map[string]any
}

func (h *harness) openPage(id string, limit int, before string) pageOf {
	h.t.Helper()
	args := map[string]any{"id": id, "limit": limit}
	if before != "" {
		args["before"] = before
	}
	var snap struct {
		Earlier int                        `json:"earlier"`
		Thread  map[string]json.RawMessage `json:"thread"`
	}
	h.mustCall("sessions.open", args, &snap)
	var entries []struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(snap.Thread["entries"], &entries); err != nil {
		h.t.Fatalf("entries of a page: %v", err)
	}
	delete(snap.Thread, "entries")
	p := pageOf{earlier: snap.Earlier, rest: map[string]any{}}
	for _, e := range entries {
		p.ids = append(p.ids, e.ID)
		p.texts = append(p.texts, e.Text)
	}
	for k, v := range snap.Thread {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			h.t.Fatalf("thread field %s: %v", k, err)
		}
		p.rest[k] = x
	}
	return p
}

// readAll opens the session as the page does: the last tail entries,
// then the earlier ones limit at a time until none is left.
func (h *harness) readAll(id string, tail, limit int) pageOf {
	h.t.Helper()
	all := h.openPage(id, tail, "")
	for steps := 0; all.earlier > 0; steps++ {
		if steps > 1000 {
			h.t.Fatal("paging does not end")
		}
		p := h.openPage(id, limit, all.ids[0])
		if len(p.ids) == 0 || len(p.ids) > limit || p.earlier+len(p.ids) != all.earlier {
			h.t.Fatalf("a page of %d before %s with %d earlier, after %d earlier", len(p.ids), all.ids[0], p.earlier, all.earlier)
		}
		all.ids = append(p.ids, all.ids...)
		all.texts = append(p.texts, all.texts...)
		all.earlier = p.earlier
	}
	return all
}

// sessions.open with limit and before gives a long session a slice at a
// time — live and, after it closed, from the thread cache and from its
// transcript — and the slices put together are the whole thread;
// without them nothing changes; a bad limit or an unknown entry is
// refused.
func TestSessionsOpenInSlices(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	steps := []string{}
	for i := range 60 {
		steps = append(steps, fmt.Sprintf(`{"message":"answer %d"}`, i),
			fmt.Sprintf(`{"toolCall":{"toolCallId":"t%d","title":"Read %d","kind":"read","status":"completed"}}`, i, i))
	}
	from := h.rec.Len()
	turn := h.prompt(sum.ID, acptest.Steps(steps...))
	h.waitTurnEnded(sum.ID, from, turn)

	whole := func() pageOf {
		t.Helper()
		snap := h.open(sum.ID)
		p := pageOf{}
		for _, e := range snap.Thread.Entries {
			p.ids = append(p.ids, e.ID)
			p.texts = append(p.texts, e.Text)
		}
		if snap.Earlier != 0 {
			t.Fatalf("an open without limit has %d earlier", snap.Earlier)
		}
		return p
	}
	check := func(what string) {
		t.Helper()
		w := whole()
		if len(w.ids) < 121 { // the prompt, 60 answers, 60 tool calls
			t.Fatalf("%s: %d entries", what, len(w.ids))
		}
		for _, sizes := range [][2]int{{10, 25}, {1, 7}, {500, 500}, {len(w.ids) - 1, 1}} {
			got := h.readAll(sum.ID, sizes[0], sizes[1])
			if !slices.Equal(got.ids, w.ids) || !slices.Equal(got.texts, w.texts) {
				t.Fatalf("%s: slices of %v put together:\n%v\nthe whole:\n%v", what, sizes, got.ids, w.ids)
			}
		}
		tail := h.openPage(sum.ID, 5, "")
		if want := w.ids[len(w.ids)-5:]; !slices.Equal(tail.ids, want) || tail.earlier != len(w.ids)-5 {
			t.Fatalf("%s: the last 5: %v (%d earlier), want %v", what, tail.ids, tail.earlier, want)
		}
		if tail.rest["turn"] != float64(turn) || tail.rest["usage"] == nil {
			t.Fatalf("%s: a slice's thread lost its other fields: %v", what, tail.rest)
		}
		// before alone: everything before that entry.
		mid := w.ids[40]
		p := h.openPage(sum.ID, 0, mid)
		if !slices.Equal(p.ids, w.ids[:40]) || p.earlier != 0 {
			t.Fatalf("%s: before %s: %v", what, mid, p.ids)
		}
		if p := h.openPage(sum.ID, 3, w.ids[0]); len(p.ids) != 0 || p.earlier != 0 {
			t.Fatalf("%s: before the first entry: %v", what, p.ids)
		}
		for _, args := range []map[string]any{
			{"id": sum.ID, "limit": -1},
			{"id": sum.ID, "limit": 5, "before": "e999999"},
			{"id": sum.ID, "limit": 5, "before": "nosuch"},
			{"id": sum.ID, "limit": 5, "before": "e"},
			{"id": sum.ID, "limit": 5, "before": `e1"`},
			{"id": sum.ID, "limit": "5"},
			{"id": sum.ID, "before": string(make([]byte, 100))},
		} {
			if e := h.call("sessions.open", args, nil); codeOf(e) != app.CodeBadRequest {
				t.Fatalf("%s: %v: %s, want bad_request", what, args, codeOf(e))
			}
		}
	}

	check("live")
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	check("closed, from the thread cache")
	if err := os.Remove(h.paths.ThreadCachePath(sum.ID)); err != nil {
		t.Fatal(err)
	}
	h.svc.Shutdown()
	h.start()
	check("after a restart, replayed from the transcript")

	// The transcript grows (another turn): a slice asked for then follows it.
	old := whole()
	h.openPage(sum.ID, 5, "") // kept taken apart
	h.answer(sum.ID, "one more")
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	got := h.readAll(sum.ID, 5, 50)
	if len(got.ids) <= len(old.ids) || got.texts[len(got.texts)-1] != "one more" {
		t.Fatalf("after another turn: %d entries (before %d), last %q", len(got.ids), len(old.ids), got.texts[len(got.texts)-1])
	}
}
