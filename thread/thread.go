package thread

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// Entry kinds.
const (
	EntryUserMessage      = "user_message"
	EntryAssistantMessage = "assistant_message"
	EntryThought          = "thought"
	EntryToolCall         = "tool_call"
	EntryPlan             = "plan"
	EntryRuntime          = "runtime" // the session moved to another agent (AddBinding)
)

// Tool call statuses. The ACP ones (pending, in_progress, completed, failed)
// plus the ones the client decides (awaiting_permission, rejected,
// cancelled).
const (
	StatusPending            = "pending"
	StatusAwaitingPermission = "awaiting_permission"
	StatusInProgress         = "in_progress"
	StatusCompleted          = "completed"
	StatusFailed             = "failed"
	StatusRejected           = "rejected"
	StatusCancelled          = "cancelled"
)

// Change operations.
const (
	OpAppend = "append"
	OpUpsert = "upsert"
	OpMeta   = "meta"
)

// Kinds of "meta" changes: which part of the session state changed.
const (
	MetaUsage         = "usage"
	MetaMode          = "mode"
	MetaConfigOptions = "config_options"
	MetaCommands      = "commands"
	MetaSessionInfo   = "session_info"
	MetaSession       = "session" // ApplySessionResult: modes and config options
)

// Errors.
var (
	// ErrUnknownKind is returned (wrapped, with the kind name) by Apply for
	// an update kind this version does not know. Nothing changed; the
	// caller logs and skips it.
	ErrUnknownKind = errors.New("unknown session update kind")
	// ErrInvalidUpdate is returned (wrapped) for an update that cannot be
	// applied: nil, a tool call without toolCallId, malformed content.
	ErrInvalidUpdate = errors.New("invalid session update")
)

// Change tells a UI what one call changed. See the package documentation.
type Change struct {
	Op      string `json:"op"`
	EntryID string `json:"entryId,omitempty"`
	// Kind is the entry kind for "append" and "upsert", the Meta* constant
	// for "meta".
	Kind string `json:"kind,omitempty"`
	// Delta is the text this change added: for "append", and for the
	// "upsert" that opens a message or thought entry (its first text).
	Delta string `json:"delta,omitempty"`
}

// Entry is one item of the thread, as handed out by the read methods (a
// copy).
type Entry struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Turn counts user prompts: entries before the first prompt are turn 0.
	Turn int `json:"turn"`
	// MessageID is the ACP messageId of the chunks, when the agent sends
	// one.
	MessageID string `json:"messageId,omitempty"`
	// Text is the accumulated text of a message or thought.
	Text string `json:"text,omitempty"`
	// Blocks are the non-text content blocks of a message or thought
	// (images, resources, unknown types), kept raw.
	Blocks []Block `json:"blocks,omitempty"`
	// Streaming is true while chunks may still be appended.
	Streaming bool  `json:"streaming,omitempty"`
	CreatedMs int64 `json:"createdMs,omitempty"`

	ToolCall *ToolCall      `json:"toolCall,omitempty"` // tool_call entries
	Plan     []PlanEntry    `json:"plan,omitempty"`     // plan entries
	Runtime  *RuntimeChange `json:"runtime,omitempty"`  // runtime entries
	Question *Question      `json:"question,omitempty"` // question entries
}

// Block is a non-text content block of a message or thought.
type Block struct {
	Type string `json:"type"`
	// Offset is the byte offset in the entry's Text where the block came,
	// so a UI can interleave text and blocks in wire order.
	Offset int             `json:"offset"`
	Raw    json.RawMessage `json:"raw"`
}

// ToolCall is the state of one tool call, merged from tool_call,
// tool_call_update and permission requests.
type ToolCall struct {
	ID         string            `json:"id"` // entry id
	ToolCallID string            `json:"toolCallId"`
	Title      string            `json:"title"`
	Kind       string            `json:"kind,omitempty"` // read, edit, execute, ...
	Status     string            `json:"status"`
	Content    []ToolCallContent `json:"content,omitempty"`
	Locations  []Location        `json:"locations,omitempty"`
	RawInput   json.RawMessage   `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage   `json:"rawOutput,omitempty"`
	// Options are the permission options while the call awaits permission.
	Options []PermissionOption `json:"options,omitempty"`
	// Decision is how the permission request was answered: the option kind
	// (allow_once, reject_always, ...) or "cancelled".
	Decision  string `json:"decision,omitempty"`
	StartedMs int64  `json:"startedMs,omitempty"`
	EndedMs   int64  `json:"endedMs,omitempty"`
}

// PermissionOption is one choice of a session/request_permission.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// Command is one of the agent's available slash commands.
type Command struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Input       json.RawMessage `json:"input,omitempty"`
}

// Mode is one of the agent's session modes.
type Mode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Usage is what the agent reported about context and token use.
type Usage struct {
	// Used and Size are the context window use of the last usage_update.
	Used int64 `json:"used"`
	Size int64 `json:"size"`
	// Cost is the session's total cost as the agent last reported it
	// (usage_update's cost is cumulative); TurnCost the current (or
	// last) turn's share of it, when the agent reported a cost in it.
	Cost     *Cost `json:"cost,omitempty"`
	TurnCost *Cost `json:"turnCost,omitempty"`
	// LastTokens is the last token report as sent (inputTokens,
	// outputTokens, totalTokens, thoughtTokens, cachedReadTokens, ...),
	// from a chunk's _meta.usage or a prompt response's usage.
	LastTokens map[string]int64 `json:"lastTokens,omitempty"`
	// TurnTokens sums the reports of the current (or last) turn; a prompt
	// response's usage replaces it as the turn's total.
	TurnTokens map[string]int64 `json:"turnTokens,omitempty"`
	// SessionTokens sums the turns.
	SessionTokens map[string]int64 `json:"sessionTokens,omitempty"`
	// Cache is the prompt-cache use the agent reports (Reasonix's status
	// notification), nil when it reports none.
	Cache *CacheUsage `json:"cache,omitempty"`
}

// Snapshot is the whole state of a thread.
type Snapshot struct {
	Entries       []Entry `json:"entries"`
	Title         string  `json:"title,omitempty"`
	UpdatedAt     string  `json:"updatedAt,omitempty"`
	Usage         Usage   `json:"usage"`
	CurrentModeID string  `json:"currentModeId,omitempty"`
	Modes         []Mode  `json:"modes,omitempty"`
	// CurrentModelID and Models are the agent's models, when it offers
	// them: the values of its "model" config option, else the legacy
	// "models" field (ModelChoice says which).
	CurrentModelID string          `json:"currentModelId,omitempty"`
	Models         []Model         `json:"models,omitempty"`
	ConfigOptions  json.RawMessage `json:"configOptions,omitempty"`
	Commands       []Command       `json:"commands,omitempty"`
	// Plan is the latest plan.
	Plan []PlanEntry `json:"plan,omitempty"`
	Turn int         `json:"turn"`
	// StopReason is the stop reason of the last ended turn, "" while a
	// turn runs.
	StopReason string `json:"stopReason,omitempty"`
	// Terminals are the commands the agent ran in terminals (Snapshot
	// only, not Meta).
	Terminals []Terminal `json:"terminals,omitempty"`
}

// entry is the mutable form of Entry.
type entry struct {
	id        string
	kind      string
	turn      int
	messageID string
	text      []byte
	blocks    []Block
	streaming bool
	createdMs int64
	tool      *ToolCall
	plan      []PlanEntry
	rt        *RuntimeChange
	question  *Question
}

// Thread is one chat session. It is not safe for concurrent use; the owner
// serializes calls.
type Thread struct {
	// Clock stamps entries and tool calls; nil means time.Now. Set it
	// before the first call.
	Clock func() time.Time

	entries []*entry
	byTool  map[string]toolRef // toolCallId → its entry
	open    int                // index of the streaming entry, -1 if none
	planIdx int                // index of the current turn's plan entry, -1 if none
	turn    int

	// The prompt entry AddUserPrompt just added, while a user_message_chunk
	// may still echo it, and how much of its text and blocks was echoed.
	echo                 int
	echoText, echoBlocks int

	title, updatedAt string
	userTitle        bool // SetTitle was called
	usage            Usage
	turnCostBase     *Cost // the session's cost when the turn began (usage.go)
	currentMode      string
	modes            []Mode
	currentModel     string
	models           []Model
	runtime          string // of the latest binding (AddBinding)
	configOptions    json.RawMessage
	commands         []Command
	plan             []PlanEntry
	stopReason       string
	terms            []*terminalState // terminal.go

	// SetForgetDone: forget is on; kept holds the indexes of the entries
	// not forgotten yet (in order).
	forget                       bool
	kept                         []int
	replaying, replayDrop        bool
	replayApplied, replayDropped int
}

// New returns an empty thread.
func New() *Thread {
	return &Thread{byTool: make(map[string]toolRef), open: -1, planIdx: -1, echo: -1}
}

func (t *Thread) nowMs() int64 {
	if t.Clock != nil {
		return t.Clock().UnixMilli()
	}
	return time.Now().UnixMilli()
}

// newEntry appends an entry of the given kind to the current turn, closing
// the streaming entry.
func (t *Thread) newEntry(kind string) *entry {
	t.closeOpen()
	if t.forget {
		t.forgetDone()
	}
	e := &entry{
		id:        entryID(len(t.entries)),
		kind:      kind,
		turn:      t.turn,
		createdMs: t.nowMs(),
	}
	t.entries = append(t.entries, e)
	if t.forget {
		t.kept = append(t.kept, len(t.entries)-1)
	}
	return e
}

// entryID is the id of the entry at index i.
func entryID(i int) string { return "e" + strconv.Itoa(i+1) }

// closeOpen closes the streaming entry, if any, and returns it.
func (t *Thread) closeOpen() *entry {
	if t.open < 0 {
		return nil
	}
	e := t.entries[t.open]
	e.streaming = false
	t.open = -1
	// Streaming grew the text by doubling; a closed entry keeps only what
	// it holds (long sessions are mostly closed entries).
	if t.forget {
		return e // forgotten at the next entry
	}
	if c := cap(e.text); c-len(e.text) > 64 && c-len(e.text) > len(e.text)/8 {
		e.text = append(make([]byte, 0, len(e.text)), e.text...)
	}
	return e
}

// index returns the index of the entry with the given id.
func (t *Thread) index(id string) (int, bool) {
	if len(id) < 2 || id[0] != 'e' {
		return 0, false
	}
	n, err := strconv.Atoi(id[1:])
	if err != nil || n < 1 || n > len(t.entries) || t.entries[n-1] == nil || t.entries[n-1].id != id {
		return 0, false
	}
	return n - 1, true
}

// Len returns the number of entries.
func (t *Thread) Len() int { return len(t.entries) }

// Entries returns a copy of all entries, in order (without the ones a
// thread with SetForgetDone forgot).
func (t *Thread) Entries() []Entry {
	out := make([]Entry, 0, len(t.entries))
	for _, e := range t.entries {
		if e != nil {
			out = append(out, e.export())
		}
	}
	return out
}

// Entry returns a copy of the entry with the given id.
func (t *Thread) Entry(id string) (Entry, bool) {
	i, ok := t.index(id)
	if !ok {
		return Entry{}, false
	}
	return t.entries[i].export(), true
}

// EntryHead returns an entry's turn and at most the first max bytes of
// its text (cut at a character boundary) without copying the rest: for
// an index that keeps only the start of very long messages.
func (t *Thread) EntryHead(id string, max int) (turn int, head string, ok bool) {
	i, ok := t.index(id)
	if !ok {
		return 0, "", false
	}
	e := t.entries[i]
	text := e.text
	if len(text) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	return e.turn, string(text), true
}

// ToolCall returns a copy of the tool call with the given ACP toolCallId.
func (t *Thread) ToolCall(toolCallID string) (ToolCall, bool) {
	ref, ok := t.byTool[toolCallID]
	if !ok || t.entries[ref.i] == nil {
		return ToolCall{}, false
	}
	return cloneTool(t.entries[ref.i].tool), true
}

// Snapshot returns a copy of the whole state.
func (t *Thread) Snapshot() Snapshot {
	s := t.Meta()
	s.Entries = t.Entries()
	s.Terminals = t.Terminals()
	return s
}

// Meta is Snapshot without the entries: the session's state (title,
// usage, modes, config options, commands, plan) at the cost of its size,
// not of the thread's length.
func (t *Thread) Meta() Snapshot {
	models, current := t.effectiveModels()
	return Snapshot{
		Title:          t.title,
		UpdatedAt:      t.updatedAt,
		Usage:          cloneUsage(t.usage),
		CurrentModeID:  t.currentMode,
		Modes:          slices.Clone(t.modes),
		CurrentModelID: current,
		Models:         models,
		ConfigOptions:  cloneRaw(t.configOptions),
		Commands:       cloneCommands(t.commands),
		Plan:           slices.Clone(t.plan),
		Turn:           t.turn,
		StopReason:     t.stopReason,
	}
}

func (e *entry) export() Entry {
	out := Entry{
		ID:        e.id,
		Kind:      e.kind,
		Turn:      e.turn,
		MessageID: e.messageID,
		Text:      string(e.text),
		Streaming: e.streaming,
		CreatedMs: e.createdMs,
		Plan:      slices.Clone(e.plan),
	}
	if len(e.blocks) > 0 {
		out.Blocks = make([]Block, len(e.blocks))
		for i, b := range e.blocks {
			b.Raw = cloneRaw(b.Raw)
			out.Blocks[i] = b
		}
	}
	if e.tool != nil {
		tc := cloneTool(e.tool)
		out.ToolCall = &tc
	}
	if e.rt != nil {
		rc := *e.rt
		out.Runtime = &rc
	}
	if e.question != nil {
		q := *e.question
		q.Schema, q.Content = cloneRaw(q.Schema), cloneRaw(q.Content)
		out.Question = &q
	}
	return out
}

func cloneTool(tc *ToolCall) ToolCall {
	out := *tc
	out.Content = cloneToolContent(tc.Content)
	out.Locations = slices.Clone(tc.Locations)
	for i, l := range out.Locations {
		if l.Line != nil {
			n := *l.Line
			out.Locations[i].Line = &n
		}
	}
	out.RawInput = cloneRaw(tc.RawInput)
	out.RawOutput = cloneRaw(tc.RawOutput)
	out.Options = slices.Clone(tc.Options)
	return out
}

func cloneToolContent(in []ToolCallContent) []ToolCallContent {
	if in == nil {
		return nil
	}
	out := make([]ToolCallContent, len(in))
	for i, c := range in {
		c.Content = cloneRaw(c.Content)
		if c.OldText != nil {
			s := *c.OldText
			c.OldText = &s
		}
		out[i] = c
	}
	return out
}

func cloneCommands(in []Command) []Command {
	if in == nil {
		return nil
	}
	out := make([]Command, len(in))
	for i, c := range in {
		c.Input = cloneRaw(c.Input)
		out[i] = c
	}
	return out
}

func cloneUsage(u Usage) Usage {
	if u.Cost != nil {
		c := *u.Cost
		u.Cost = &c
	}
	if u.TurnCost != nil {
		c := *u.TurnCost
		u.TurnCost = &c
	}
	if u.Cache != nil {
		c := *u.Cache
		c.Turns = slices.Clone(c.Turns)
		u.Cache = &c
	}
	u.LastTokens = maps.Clone(u.LastTokens)
	u.TurnTokens = maps.Clone(u.TurnTokens)
	u.SessionTokens = maps.Clone(u.SessionTokens)
	return u
}

// cloneRaw copies raw JSON; absent stays nil.
func cloneRaw(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return json.RawMessage(slices.Clone([]byte(b)))
}

// isNull reports whether raw JSON is absent or the literal null.
func isNull(b json.RawMessage) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case 'n':
			return true
		default:
			return false
		}
	}
	return true
}
