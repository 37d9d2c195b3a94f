package shared_test

import (
	"testing"

	"mnote/app"
	"mnote/app/shared"
	"mnote/cloudsync/cloudsynctest"
	"mnote/collab/client"
	"mnote/store"
)

// A member added before their first device: what was written before the
// owner wrapped the epoch's key for that device is recorded as entries
// that could not be opened, and opens in place once the key comes (the
// owner's next turn gives it) — in the window, and in the transcript read
// again from disk: none lost, none twice, in order.
func TestEntriesOpenOnceTheKeyComes(t *testing.T) {
	cp := cloudsynctest.New(t)
	ada := newHome(t, cp.URL, cp.AddUser("ada"))
	caiToken := cp.AddUser("cai")
	var sum app.SessionSummary
	ada.must("sessions.create", map[string]any{"agent": "test"}, &sum)
	id := sum.ID
	ada.must("shared.share", map[string]any{"id": id}, nil)
	ada.must("shared.add", map[string]any{"id": id, "account": "cai", "role": "viewer"}, nil)
	if p := ada.prompt(id, "写在蔡有设备之前"); p["stopReason"] != "end_turn" {
		t.Fatalf("ada's turn: %v", p)
	}

	cai := newHome(t, cp.URL, caiToken)
	var st state
	cai.must("shared.state", map[string]any{"id": id}, &st)
	before := len(st.Entries)
	if before == 0 {
		t.Fatal("cai's window shows nothing of the log")
	}
	for _, e := range st.Entries {
		if e.Unreadable != client.UnreadableNoKey {
			t.Fatalf("cai opened an entry before he had a key: %+v", e)
		}
	}

	from := cai.rec.Len()
	if p := ada.prompt(id, "之后"); p["stopReason"] != "end_turn" {
		t.Fatalf("ada's next turn: %v", p)
	}
	cai.sharedEvent(from, func(e shared.Event) bool {
		return e.SessionID == id && e.Type == shared.EvEntry && e.Entry.Kind == "prompt" && e.Entry.Unreadable == ""
	})
	// The window opens the session again (a pull): the earlier entries
	// come opened, and the page is told of each.
	from = cai.rec.Len()
	st = state{}
	cai.must("shared.state", map[string]any{"id": id}, &st)
	check := func(where string, es []shared.Entry) {
		t.Helper()
		var prompts []string
		for i, e := range es {
			if e.Unreadable != "" {
				t.Fatalf("%s: entry %d still not opened: %+v", where, e.Seq, e)
			}
			if i > 0 && e.Seq != es[i-1].Seq+1 {
				t.Fatalf("%s: seq %d after %d", where, e.Seq, es[i-1].Seq)
			}
			if e.Kind == "prompt" {
				prompts = append(prompts, e.Entry.Text)
			}
		}
		if len(es) <= before || len(prompts) != 2 || prompts[0] != "写在蔡有设备之前" || prompts[1] != "之后" {
			t.Fatalf("%s: %d entries, prompts %q", where, len(es), prompts)
		}
	}
	check("the window", st.Entries)
	ev := cai.sharedEvent(from, func(e shared.Event) bool {
		return e.SessionID == id && e.Type == shared.EvEntry && e.Entry.Seq == 1
	})
	if ev.Entry.Unreadable != "" || ev.Entry.Entry.Text != "写在蔡有设备之前" {
		t.Fatalf("the page was told %+v", ev.Entry)
	}
	recs, err := store.ReadSharedEntries(cai.paths.TranscriptPath(id))
	if err != nil {
		t.Fatal(err)
	}
	check("the transcript", client.FromRecords(recs))
	// Opening again records nothing more.
	n := len(recs)
	st = state{}
	cai.must("shared.state", map[string]any{"id": id}, &st)
	if recs, _ = store.ReadSharedEntries(cai.paths.TranscriptPath(id)); len(recs) != n {
		t.Fatalf("%d entries after opening again, %d before", len(recs), n)
	}
}
