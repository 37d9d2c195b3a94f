package thread

import "slices"

// Forgetting done entries (SetForgetDone) and looking tool calls up.

// ForgetKeepsHead bounds the text a thread that forgets (SetForgetDone)
// keeps of an agent message's or thought's first chunk.
const ForgetKeepsHead = 1 << 20

// SetForgetDone makes the thread forget every entry once it is done and
// the next entry began: closed messages and thoughts, tool calls in a
// final status, the plan of an earlier turn, runtime changes. For a
// client that only streams (mnote prompt) or only counts (an index
// rebuild): the transcript keeps every word, and a session of any length
// then holds a few entries, not all of them. Entry ids, Len and the
// merging of late tool call updates work as before; Entries, Snapshot and
// Entry leave the forgotten entries out, and the agent's messages and
// thoughts keep only the text of their first chunk, at most
// ForgetKeepsHead bytes of it (EntryHead of a new entry works; their
// blocks' offsets count only that text). A tool call forgotten and
// updated late comes back with its id and final status only. Entries the
// thread holds already are forgotten too, at the next entry, once done.
func (t *Thread) SetForgetDone() {
	if t.forget {
		return
	}
	t.forget = true
	for i, e := range t.entries {
		if e != nil {
			t.kept = append(t.kept, i)
		}
	}
}

// toolRef is where a toolCallId's call is: its entry's index, and its
// turn, which outlive the entry in a thread that forgets; and once it is
// forgotten, its final status and permission decision.
type toolRef struct {
	i, turn          int
	status, decision string
}

// forgetDone forgets the kept entries that are done, as a new entry
// begins (the streaming one was just closed, and the prompt can no longer
// be echoed): everything but the turn's plan and tool calls that may
// still change.
func (t *Thread) forgetDone() {
	kept := t.kept[:0]
	for _, i := range t.kept {
		e := t.entries[i]
		if i == t.planIdx || (e.tool != nil && !isFinal(e.tool.Status)) {
			kept = append(kept, i)
			continue
		}
		if e.tool != nil {
			ref := t.byTool[e.tool.ToolCallID]
			if ref.i == i {
				ref.status, ref.decision = e.tool.Status, e.tool.Decision
				t.byTool[e.tool.ToolCallID] = ref
			}
		}
		t.entries[i] = nil
	}
	t.kept = kept
}

// forgetTurn drops the tool call ids of earlier turns (a call id seen
// again in a new turn makes a new call anyway).
func (t *Thread) forgetTurn() {
	for id, ref := range t.byTool {
		if ref.turn < t.turn && t.entries[ref.i] == nil {
			delete(t.byTool, id)
		}
	}
}

// callAt returns the tool call toolCallID's ref points to. A call the
// thread forgot comes back for an update that comes late, with its id and
// the final status and decision it had (the rest of it is gone).
func (t *Thread) callAt(toolCallID string) *ToolCall {
	ref := t.byTool[toolCallID]
	if e := t.entries[ref.i]; e != nil {
		return e.tool
	}
	e := &entry{id: entryID(ref.i), kind: EntryToolCall, turn: ref.turn, createdMs: t.nowMs()}
	e.tool = &ToolCall{ID: e.id, ToolCallID: toolCallID, Status: ref.status, Decision: ref.decision, StartedMs: e.createdMs}
	t.entries[ref.i] = e
	at, _ := slices.BinarySearch(t.kept, ref.i)
	t.kept = slices.Insert(t.kept, at, ref.i)
	return e.tool
}
