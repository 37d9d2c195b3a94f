package thread

// Forgetting done entries (SetForgetDone) and looking tool calls up.

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
	t.kept = insertSorted(t.kept, ref.i)
	return e.tool
}

func insertSorted(s []int, v int) []int {
	at := len(s)
	for at > 0 && s[at-1] > v {
		at--
	}
	s = append(s, 0)
	copy(s[at+1:], s[at:])
	s[at] = v
	return s
}
