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
