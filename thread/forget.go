package thread

// Forgetting done entries (SetForgetDone) and looking tool calls up.

// toolRef is where a toolCallId's call is: its entry's index, and its
// turn, which outlives the entry in a thread that forgets.
type toolRef struct {
	i, turn int
}

// forgetDone forgets the kept entries that are done: everything but the
// streaming entry, the prompt a chunk may still echo, the turn's plan and
// tool calls that may still change.
func (t *Thread) forgetDone() {
	kept := t.kept[:0]
	for _, i := range t.kept {
		if e := t.entries[i]; i == t.open || i == t.echo || i == t.planIdx || (e.tool != nil && !isFinal(e.tool.Status)) {
			kept = append(kept, i)
			continue
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

// callAt returns the tool call of the entry at index i. A call the thread
// forgot comes back (with its id, pending) for an update that comes late.
func (t *Thread) callAt(i int) *ToolCall {
	if e := t.entries[i]; e != nil {
		return e.tool
	}
	e := &entry{id: entryID(i), kind: EntryToolCall, turn: t.turn, createdMs: t.nowMs()}
	e.tool = &ToolCall{ID: e.id, Status: StatusPending, StartedMs: e.createdMs}
	t.entries[i] = e
	t.kept = insertSorted(t.kept, i)
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
