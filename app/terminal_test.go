package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"mnote/acp/acptest"
	"mnote/app"
)

// The page sees an agent's terminal live (its state and output as events)
// and in the snapshot, stops it with sessions.killTerminal, and finds it
// again in a session rebuilt from the transcript.
func TestTerminalEventsStopAndReplay(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sum := h.create("test")
	from := h.rec.Len()
	turn := h.prompt(sum.ID, acptest.Steps(
		`{"terminal":{"command":"sh","args":["-c","printf '\\033[1mbold\\033[0m\\n'; sleep 100"],"toolCallId":"run-1"}}`,
		`{"terminalWait":"t"}`, `{"terminalRelease":"t"}`))
	_, ev := h.waitEvent(sum.ID, from, app.EvTerminal, nil)
	var started app.TerminalPayload
	if err := json.Unmarshal(ev.Payload, &started); err != nil || started.Command != "sh" || started.Cwd != h.ws || started.Exited {
		t.Fatalf("terminal event %s", ev.Payload)
	}
	h.waitEvent(sum.ID, from, app.EvTerminalOutput, func(p json.RawMessage) bool { return strings.Contains(string(p), `bold`) })
	snap := h.open(sum.ID)
	if len(snap.Thread.Terminals) != 1 || !strings.Contains(snap.Thread.Terminals[0].Output, "\x1b[1mbold") {
		t.Fatalf("snapshot terminals %+v", snap.Thread.Terminals)
	}
	if e := h.call("sessions.killTerminal", map[string]any{"id": sum.ID, "terminalId": "term-nope"}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("unknown terminal: %v", e)
	}
	h.mustCall("sessions.killTerminal", map[string]any{"id": sum.ID, "terminalId": started.TerminalID}, nil)
	if tp := h.waitTurnEnded(sum.ID, from, turn); tp.StopReason != "end_turn" {
		t.Fatalf("turn %+v", tp)
	}
	h.waitEvent(sum.ID, from, app.EvTerminal, func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"signal":"SIGKILL"`) && strings.Contains(string(p), `"released":true`)
	})
	// The output is not sent again with the state.
	for _, te := range h.threadEvents(sum.ID) {
		if te.Type == app.EvTerminal && strings.Contains(string(te.Payload), `"output"`) {
			t.Fatalf("a terminal event carries output: %s", te.Payload)
		}
	}
	h.mustCall("sessions.close", map[string]any{"id": sum.ID}, nil)
	h.start() // a restart: the session comes from its transcript
	snap = h.open(sum.ID)
	if ts := snap.Thread.Terminals; len(ts) != 1 || !strings.Contains(ts[0].Output, "bold") || ts[0].Signal != "SIGKILL" || !ts[0].Released {
		t.Fatalf("terminals after a restart %+v", ts)
	}
	if e := h.call("sessions.killTerminal", map[string]any{"id": "01nosuchsession", "terminalId": "x"}, nil); codeOf(e) != app.CodeNotFound {
		t.Fatalf("session not running: %v", e)
	}
}
