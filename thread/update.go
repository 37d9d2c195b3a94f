package thread

import "encoding/json"

// Update kinds as they appear in the sessionUpdate field of an ACP
// session/update notification.
const (
	KindUserMessageChunk        = "user_message_chunk"
	KindAgentMessageChunk       = "agent_message_chunk"
	KindAgentThoughtChunk       = "agent_thought_chunk"
	KindToolCall                = "tool_call"
	KindToolCallUpdate          = "tool_call_update"
	KindPlan                    = "plan"
	KindAvailableCommandsUpdate = "available_commands_update"
	KindCurrentModeUpdate       = "current_mode_update"
	KindConfigOptionUpdate      = "config_option_update"
	KindSessionInfoUpdate       = "session_info_update"
	KindUsageUpdate             = "usage_update"
)

// Update is the "update" object of an ACP session/update notification,
// decoded in one pass. It mirrors the wire format (schema version 1) so the
// ACP reader can decode straight into it; fields that differ in shape between
// kinds (content is one block for chunks and a list for tool calls) stay raw
// and are decoded on demand.
//
// Pointer fields distinguish "absent" from "empty", which matters for
// tool_call_update where only the fields present change the call.
type Update struct {
	SessionUpdate string `json:"sessionUpdate"`

	// Message and thought chunks: a ContentBlock. Tool calls: a list of
	// ToolCallContent.
	Content   json.RawMessage `json:"content,omitempty"`
	MessageID *string         `json:"messageId,omitempty"`

	// tool_call, tool_call_update.
	ToolCallID string          `json:"toolCallId,omitempty"`
	Title      *string         `json:"title,omitempty"`
	Kind       *string         `json:"kind,omitempty"`
	Status     *string         `json:"status,omitempty"`
	Locations  json.RawMessage `json:"locations,omitempty"`
	RawInput   json.RawMessage `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage `json:"rawOutput,omitempty"`

	// plan.
	Entries json.RawMessage `json:"entries,omitempty"`

	// available_commands_update.
	AvailableCommands json.RawMessage `json:"availableCommands,omitempty"`

	// current_mode_update.
	CurrentModeID *string `json:"currentModeId,omitempty"`

	// config_option_update.
	ConfigOptions json.RawMessage `json:"configOptions,omitempty"`

	// session_info_update (title above).
	UpdatedAt *string `json:"updatedAt,omitempty"`

	// usage_update.
	Used *int64 `json:"used,omitempty"`
	Size *int64 `json:"size,omitempty"`
	Cost *Cost  `json:"cost,omitempty"`

	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Cost is the money spent so far, when the agent reports it.
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// ContentBlock is an ACP content block. Only the fields the thread shows are
// decoded; the raw block is kept for anything else (images, resources, and
// types this version does not know).
type ContentBlock struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	MimeType string          `json:"mimeType,omitempty"`
	URI      string          `json:"uri,omitempty"`
	Name     string          `json:"name,omitempty"`
	Resource json.RawMessage `json:"resource,omitempty"`
	// Data is an image block's base64 bytes, as sent to the agent; Hash
	// (hex SHA-256 of the bytes) names the copy kept beside the
	// transcript, which records the block with Hash in place of Data
	// (images.go).
	Data string `json:"data,omitempty"`
	Hash string `json:"hash,omitempty"`
}

// ToolCallContent is one item of a tool call's content: a content block, a
// diff, or a terminal.
type ToolCallContent struct {
	Type       string          `json:"type"`
	Content    json.RawMessage `json:"content,omitempty"` // type "content": a ContentBlock
	Path       string          `json:"path,omitempty"`    // type "diff"
	OldText    *string         `json:"oldText,omitempty"`
	NewText    string          `json:"newText,omitempty"`
	TerminalID string          `json:"terminalId,omitempty"` // type "terminal"
}

// Location is a file a tool call touches.
type Location struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// PlanEntry is one item of the agent's plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority,omitempty"`
	Status   string `json:"status,omitempty"`
}
