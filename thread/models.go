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
