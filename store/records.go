package store

import (
	"encoding/json"

	"mnote/thread"
)

// Record directions.
const (
	DirIn  = "in"  // agent → client
	DirOut = "out" // client → agent
	DirApp = "app" // mnote's own records
)

// Kinds of "in" and "out" records besides the JSON-RPC method names.
const (
	KindResponse  = "response"  // a JSON-RPC response
	KindMalformed = "malformed" // a line that is not a JSON object; data is a JSON string
)

// ACP methods the index and LoadThread look at.
const (
	KindSessionUpdate     = "session/update"
	KindRequestPermission = "session/request_permission"
	KindSessionPrompt     = "session/prompt"
	KindSessionNew        = "session/new"
	KindSessionLoad       = "session/load"
	KindSessionResume     = "session/resume"
	KindSessionFork       = "session/fork"
)

// Kinds of "app" records; their data are the types below.
const (
	KindSession           = "session"            // SessionRecord, first record of every file
	KindRuntimeBound      = "runtime_bound"      // RuntimeBoundRecord
	KindRuntimeStatus     = "runtime_status"     // RuntimeStatusRecord
	KindTurnStarted       = "turn_started"       // TurnStartedRecord
	KindPrompt            = "prompt"             // PromptRecord
	KindPermissionAsked   = "permission_asked"   // PermissionAskedRecord
	KindPermissionDecided = "permission_decided" // PermissionDecidedRecord
	KindFileWritten       = "file_written"       // FileWrittenRecord
	KindTurnEnded         = "turn_ended"         // TurnEndedRecord
	KindError             = "error"              // ErrorRecord
	KindTitle             = "title"              // TitleRecord
	KindReplay            = "replay"             // ReplayRecord
	KindToolCallDone      = "tool_call_done"     // ToolCallDoneRecord
	// An agent's question (elicitation/create) and its answer, both
	// QuestionRecord.
	KindElicitationAsked    = "elicitation_asked"
	KindElicitationAnswered = "elicitation_answered"
	// A terminal the agent ran (ACP terminal/*); all four are TerminalRecord.
	KindTerminalStarted  = "terminal_started"
	KindTerminalOutput   = "terminal_output"
	KindTerminalExited   = "terminal_exited"
	KindTerminalReleased = "terminal_released"
)

// SessionRecord is the data of the first record of a transcript.
type SessionRecord struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Workspace string `json:"workspace"`
	CreatedMs int64  `json:"createdMs"`
	// ForkedFrom is set on a session made by editing and resending a
	// prompt of another (app/fork.go).
	ForkedFrom *ForkRef `json:"forkedFrom,omitempty"`
}

// ForkRef names the session and the turn a fork was made from: the fork
// holds that session's turns before Turn.
type ForkRef struct {
	SessionID string `json:"sessionId"`
	Turn      int    `json:"turn"`
}

// Values of RuntimeBoundRecord.How.
const (
	HowNew         = "new"
	HowLoad        = "load"
	HowResume      = "resume"
	HowNewFallback = "new_fallback"
)

// RuntimeBoundRecord says the session is now served by an agent session.
type RuntimeBoundRecord struct {
	Binding        int    `json:"binding"`
	Runtime        string `json:"runtime"`
	Command        string `json:"command"`
	AgentSessionID string `json:"agentSessionId"`
	How            string `json:"how"`
	Note           string `json:"note,omitempty"`
}

// RuntimeStatusRecord is a change of a binding's agent process.
type RuntimeStatusRecord struct {
	Binding    int    `json:"binding"`
	Status     string `json:"status"` // ready, exited, failed, needs_auth
	ExitCode   *int   `json:"exitCode,omitempty"`
	StderrTail string `json:"stderrTail,omitempty"`
}

// TurnStartedRecord opens turn Turn (1, 2, ...).
type TurnStartedRecord struct {
	Turn int `json:"turn"`
}

// PromptRecord is the user's prompt of a turn.
type PromptRecord struct {
	Turn   int                   `json:"turn"`
	Blocks []thread.ContentBlock `json:"blocks"`
	Text   string                `json:"text"`
}

// PermissionAskedRecord is a session/request_permission shown to the user
// (or answered by a rule).
type PermissionAskedRecord struct {
	Turn       int             `json:"turn"`
	RequestID  json.RawMessage `json:"requestId"`
	ToolCallID string          `json:"toolCallId"`
	Title      string          `json:"title"`
	Kind       string          `json:"kind"`
	Options    json.RawMessage `json:"options"`
}

// QuestionRecord is an agent's question shown to the user (asked: its
// message and form schema) or its answer (answered: the action, who
// answered and the accepted values). Entry is the thread entry that shows
// it, so a question and its answer meet again when the thread is rebuilt.
type QuestionRecord struct {
	Turn       int             `json:"turn"`
	Entry      string          `json:"entry,omitempty"`
	Message    string          `json:"message,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Schema     json.RawMessage `json:"schema,omitempty"`
	Action     string          `json:"action,omitempty"`
	By         string          `json:"by,omitempty"` // user, nobody, cancel
	Content    json.RawMessage `json:"content,omitempty"`
}

// PermissionDecidedRecord is the answer to a permission request.
type PermissionDecidedRecord struct {
	Turn       int             `json:"turn"`
	RequestID  json.RawMessage `json:"requestId"`
	ToolCallID string          `json:"toolCallId"`
	Outcome    string          `json:"outcome"` // selected, cancelled
	OptionID   string          `json:"optionId"`
	OptionKind string          `json:"optionKind"`
	By         string          `json:"by"` // user, rule, auto, cancel
}

// FileWrittenRecord is an agent's write to a workspace file.
type FileWrittenRecord struct {
	Turn         int    `json:"turn"`
	Path         string `json:"path"`
	BeforeSha256 string `json:"beforeSha256"`
	AfterSha256  string `json:"afterSha256"`
	Bytes        int64  `json:"bytes"`
}

// TurnEndedRecord closes a turn.
type TurnEndedRecord struct {
	Turn       int    `json:"turn"`
	StopReason string `json:"stopReason"`
	Error      string `json:"error,omitempty"`
	// Usage is {used,size,cost,inputTokens,outputTokens,...}.
	Usage   json.RawMessage `json:"usage,omitempty"`
	Updates int             `json:"updates"`
}

// ErrorRecord is an error shown to the user.
type ErrorRecord struct {
	Turn    int    `json:"turn,omitempty"`
	Message string `json:"message"`
}

// ToolCallDoneRecord ends a tool call mnote ran for the agent (a notes
// tool's edit_note, shown with its permission request): completed or
// failed.
type ToolCallDoneRecord struct {
	Turn       int    `json:"turn"`
	ToolCallID string `json:"toolCallId"`
	Status     string `json:"status"`
	Message    string `json:"message,omitempty"`
}

// TitleRecord renames the session. Guess marks mnote's title from the
// first prompt, which a title the agent sends replaces; without it the user
// named the session and the agent's titles no longer apply.
type TitleRecord struct {
	Title string `json:"title"`
	Guess bool   `json:"guess,omitempty"`
}

// TerminalRecord is one event of a terminal: started (command, args,
// cwd, outputByteLimit), output (data, as the command wrote it), exited
// (exitCode or signal; dropped: output bytes not recorded) or released.
type TerminalRecord struct {
	Turn            int      `json:"turn,omitempty"`
	TerminalID      string   `json:"terminalId"`
	Command         string   `json:"command,omitempty"`
	Args            []string `json:"args,omitempty"`
	Cwd             string   `json:"cwd,omitempty"`
	OutputByteLimit int      `json:"outputByteLimit,omitempty"`
	Data            string   `json:"data,omitempty"`
	ExitCode        *int     `json:"exitCode,omitempty"`
	Signal          string   `json:"signal,omitempty"`
	Dropped         int64    `json:"dropped,omitempty"`
}

// ReplayRecord brackets the session/update lines of an ACP session/load
// replay.
type ReplayRecord struct {
	Phase   string `json:"phase"` // begin, end
	Dropped int    `json:"dropped,omitempty"`
}
