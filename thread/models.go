package thread

// Model is one of the models an agent offers for a session (the unstable
// session/set_model; newer agents offer a "model" config option instead).
type Model struct {
	ModelID     string `json:"modelId"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// SetCurrentModel records the model the agent accepted with
// session/set_model (no session/update announces it).
func (t *Thread) SetCurrentModel(id string) Change {
	t.currentModel = id
	return Change{Op: OpMeta, Kind: MetaSession}
}

// RuntimeChange is a runtime entry: from here on the session talks to
// another agent, or to the same agent in a new conversation that does not
// see the earlier turns.
type RuntimeChange struct {
	Runtime  string `json:"runtime"`
	Previous string `json:"previous,omitempty"`
	How      string `json:"how"` // new, load, resume, new_fallback
	Note     string `json:"note,omitempty"`
}

// AddBinding notes that the session is now bound to runtime. The first
// binding, and one that continues the same agent's conversation (load,
// resume), add nothing; another agent, or a new conversation in place of
// the earlier one, add a runtime entry (ok true).
func (t *Thread) AddBinding(runtime, how, note string) (Change, bool) {
	prev := t.runtime
	t.runtime = runtime
	if prev == "" || (prev == runtime && how != "new" && how != "new_fallback") {
		return Change{}, false
	}
	e := t.newEntry(EntryRuntime)
	e.rt = &RuntimeChange{Runtime: runtime, Previous: prev, How: how, Note: note}
	return Change{Op: OpUpsert, EntryID: e.id, Kind: EntryRuntime}, true
}

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
// updated late comes back with its id and final status only. Entries the thread holds already
// are forgotten too, at the next entry, once done.
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
