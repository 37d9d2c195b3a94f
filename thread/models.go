package thread

import "encoding/json"

// Model is one of the models an agent offers for a session: a value of its
// config option of category "model" (session/set_config_option), or, from
// agents that still send it, an entry of the legacy "models" field of
// session/new, load and resume (session/set_model, dropped from the
// protocol's SDK but still sent by some agents).
type Model struct {
	ModelID     string `json:"modelId"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// ModelCategory is the category of the config option that picks the
// session's model.
const ModelCategory = "model"

// ModelChoice says how the session's model is changed: through the select
// config option ConfigID when the agent offers one (it supersedes the
// legacy field), else through the legacy session/set_model when the agent
// sent "models" (Legacy). Neither: the agent offers no model choice.
type ModelChoice struct {
	ConfigID string
	Legacy   bool
}

// ModelChoice reports how the session's model is changed.
func (t *Thread) ModelChoice() ModelChoice {
	if o, ok := t.modelOption(); ok {
		return ModelChoice{ConfigID: o.ID}
	}
	return ModelChoice{Legacy: len(t.models) > 0}
}

// SetCurrentModel records the model the agent accepted with the legacy
// session/set_model (no session/update announces it).
func (t *Thread) SetCurrentModel(id string) Change {
	t.currentModel = id
	return Change{Op: OpMeta, Kind: MetaSession}
}

// modelConfigOption is the part of a select config option of category
// "model" that lists models; options are values or groups of values.
type modelConfigOption struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Category     string          `json:"category"`
	CurrentValue json.RawMessage `json:"currentValue"`
	Options      []struct {
		Value       string `json:"value"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Options     []struct {
			Value       string `json:"value"`
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"options"`
	} `json:"options"`
}

// modelOption finds the first select config option of category "model".
// Config options mnote cannot read offer none.
func (t *Thread) modelOption() (modelConfigOption, bool) {
	if len(t.configOptions) == 0 {
		return modelConfigOption{}, false
	}
	var opts []json.RawMessage
	if json.Unmarshal(t.configOptions, &opts) != nil {
		return modelConfigOption{}, false
	}
	for _, raw := range opts {
		var o modelConfigOption
		if json.Unmarshal(raw, &o) == nil && o.Category == ModelCategory && o.Type == "select" && o.ID != "" {
			return o, true
		}
	}
	return modelConfigOption{}, false
}

// effectiveModels returns the session's models and the current one: the
// model config option's values (groups flattened) when there is one, else
// the legacy field's.
func (t *Thread) effectiveModels() ([]Model, string) {
	o, ok := t.modelOption()
	if !ok {
		return cloneModels(t.models), t.currentModel
	}
	var out []Model
	for _, v := range o.Options {
		if v.Options == nil {
			out = append(out, Model{ModelID: v.Value, Name: v.Name, Description: v.Description})
			continue
		}
		for _, g := range v.Options {
			out = append(out, Model{ModelID: g.Value, Name: g.Name, Description: g.Description})
		}
	}
	var cur string
	_ = json.Unmarshal(o.CurrentValue, &cur)
	return out, cur
}

func cloneModels(m []Model) []Model {
	if m == nil {
		return nil
	}
	return append([]Model(nil), m...)
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
