package projection

import (
	"path"
	"strings"

	"mnote/thread"
)

// Entry kinds of the projection.
const (
	KindPrompt  = "prompt"
	KindAnswer  = "answer"
	KindThought = "thought"
	KindTool    = "tool"
	KindPlan    = "plan"
	KindComment = "comment"
)

// Entry is one entry of the shared projection: the plaintext that is
// sealed for the members' devices.
type Entry struct {
	Kind string `json:"kind"`
	Turn int    `json:"turn,omitempty"`
	// Text is a prompt's typed text, an answer's, a thought's or a
	// comment's text.
	Text string `json:"text,omitempty"`
	// Mentions are the names (base names, no folders) of the notes a
	// prompt mentions.
	Mentions []string `json:"mentions,omitempty"`
	Tool     *Tool    `json:"tool,omitempty"`
	Plan     []Item   `json:"plan,omitempty"`
}

// Tool is what members see of a tool call.
type Tool struct {
	ToolCallID string `json:"toolCallId"`
	Title      string `json:"title"`
	Kind       string `json:"kind,omitempty"`
	Status     string `json:"status"`
	// Summary is the redacted summary the actor chose to share, if any.
	Summary string `json:"summary,omitempty"`
}

// Item is one item of a plan.
type Item struct {
	Content string `json:"content"`
	Status  string `json:"status,omitempty"`
}

// Options say what the actor shares beyond the projection's minimum.
type Options struct {
	// Thoughts puts the agent's thoughts in.
	Thoughts bool
	// Summary returns the redacted summary the actor shares of a tool
	// call, or "" to share none.
	Summary func(tc *thread.ToolCall) string
	// Clean is applied to every text that leaves the machine (titles,
	// answers, plan items): the caller's redactor of secrets and local
	// paths. Nil leaves texts as they are.
	Clean func(string) string
}

func (o Options) clean(s string) string {
	if o.Clean == nil {
		return s
	}
	return o.Clean(s)
}

// Prompt is the projection of a prompt: the text the actor typed and the
// names of the notes it mentions (paths relative to the actor's folder or
// absolute; only the base name is kept).
func Prompt(turn int, typed string, mentions []string) Entry {
	e := Entry{Kind: KindPrompt, Turn: turn, Text: typed}
	for _, m := range mentions {
		m = strings.TrimRight(strings.ReplaceAll(m, `\`, "/"), "/")
		if n := path.Base(m); n != "" && n != "." && n != "/" {
			e.Mentions = append(e.Mentions, n)
		}
	}
	return e
}

// Comment is the projection of a member's comment.
func Comment(text string) Entry { return Entry{Kind: KindComment, Text: text} }

// FromThread projects one entry of the actor's thread. It reports false
// for entries that are not projected: user messages (a prompt is
// projected from what was typed, see Prompt), thoughts unless
// o.Thoughts, runtime changes and agent questions (they are the actor's
// own), and empty messages.
func FromThread(e thread.Entry, o Options) (Entry, bool) {
	switch e.Kind {
	case thread.EntryAssistantMessage:
		if strings.TrimSpace(e.Text) == "" {
			return Entry{}, false
		}
		return Entry{Kind: KindAnswer, Turn: e.Turn, Text: o.clean(e.Text)}, true
	case thread.EntryThought:
		if !o.Thoughts || strings.TrimSpace(e.Text) == "" {
			return Entry{}, false
		}
		return Entry{Kind: KindThought, Turn: e.Turn, Text: o.clean(e.Text)}, true
	case thread.EntryToolCall:
		tc := e.ToolCall
		if tc == nil {
			return Entry{}, false
		}
		t := &Tool{ToolCallID: tc.ToolCallID, Title: o.clean(tc.Title), Kind: tc.Kind, Status: tc.Status}
		if o.Summary != nil {
			t.Summary = o.clean(o.Summary(tc))
		}
		return Entry{Kind: KindTool, Turn: e.Turn, Tool: t}, true
	case thread.EntryPlan:
		out := Entry{Kind: KindPlan, Turn: e.Turn, Plan: make([]Item, 0, len(e.Plan))}
		for _, p := range e.Plan {
			out.Plan = append(out.Plan, Item{Content: o.clean(p.Content), Status: p.Status})
		}
		return out, true
	}
	return Entry{}, false
}

// Thread projects an actor's entries in order (FromThread for each).
func Thread(entries []thread.Entry, o Options) []Entry {
	var out []Entry
	for _, e := range entries {
		if p, ok := FromThread(e, o); ok {
			out = append(out, p)
		}
	}
	return out
}
