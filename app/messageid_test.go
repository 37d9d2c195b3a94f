package app_test

import (
	"testing"

	"mnote/thread"
)

// ACP's messageId keeps two messages apart even when the agent sends
// them back to back: each is an entry of its own, with its id, live and
// after reopening.
func TestMessageIDsSplitMessages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	chunk := func(id, text string) string {
		return `{"update":{"sessionUpdate":"agent_message_chunk","messageId":"` + id + `","content":{"type":"text","text":"` + text + `"}}}`
	}
	h.turnDone(sum.ID, chunk("11111111-1111-4111-8111-111111111111", "first "), chunk("11111111-1111-4111-8111-111111111111", "message"),
		chunk("22222222-2222-4222-8222-222222222222", "second message"))
	check := func(when string, entries []thread.Entry) {
		t.Helper()
		var got []thread.Entry
		for _, e := range entries {
			if e.Kind == thread.EntryAssistantMessage {
				got = append(got, e)
			}
		}
		if len(got) != 2 || got[0].Text != "first message" || got[1].Text != "second message" ||
			got[0].MessageID != "11111111-1111-4111-8111-111111111111" || got[1].MessageID != "22222222-2222-4222-8222-222222222222" {
			t.Fatalf("%s: assistant entries %+v", when, got)
		}
	}
	check("live", h.open(sum.ID).Thread.Entries)
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	h.start() // a restart: the thread is rebuilt from the transcript
	check("reopened", h.open(sum.ID).Thread.Entries)
}
