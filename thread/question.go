package thread

import "encoding/json"

// EntryQuestion is an agent's question to the user (ACP elicitation, form
// mode): what was asked and, once answered, what was answered. It stays
// in the thread where it was asked.
const EntryQuestion = "question"

// Question is a question entry.
type Question struct {
	Message string `json:"message"`
	// Schema is the form's requestedSchema as the agent sent it (its
	// fields' titles label the answer).
	Schema json.RawMessage `json:"schema,omitempty"`
	// Action is accept, decline or cancel; "" while it waits.
	Action string `json:"action,omitempty"`
	// Content is the accepted answer's values, by field name.
	Content json.RawMessage `json:"content,omitempty"`
}

// AskQuestion adds a question entry of the current turn.
func (t *Thread) AskQuestion(message string, schema json.RawMessage) Change {
	e := t.newEntry(EntryQuestion)
	e.question = &Question{Message: message, Schema: cloneRaw(schema)}
	return Change{Op: OpUpsert, EntryID: e.id, Kind: EntryQuestion}
}

// AnswerQuestion records the answer of the question entry id; false when
// there is no such question.
func (t *Thread) AnswerQuestion(id, action string, content json.RawMessage) (Change, bool) {
	i, ok := t.index(id)
	if !ok || t.entries[i].question == nil {
		return Change{}, false
	}
	q := t.entries[i].question
	q.Action, q.Content = action, cloneRaw(content)
	return Change{Op: OpUpsert, EntryID: id, Kind: EntryQuestion}, true
}
