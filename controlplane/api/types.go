package api

import "time"

// SessionRecord is the metadata of one session, as synced: ids, runtime,
// counts, times, status and (only when the user allows it) the title —
// never message text, tool input or output, file contents or local paths.
type SessionRecord struct {
	// ID is 1–64 characters of [A-Za-z0-9_-].
	ID string `json:"id"`
	// Version is > 0; the server keeps the highest version it was sent.
	Version int64 `json:"version"`
	// Runtime names the agent (a label, e.g. "claude-code").
	Runtime string `json:"runtime"`
	// WorkspaceID is a hex hash of the workspace, never a path.
	WorkspaceID string `json:"workspaceId"`
	// Title is present only when the user allows titles to be synced.
	Title string `json:"title,omitempty"`
	// Status is one of StatusIdle, StatusRunning, StatusError, StatusEnded.
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Turns     int       `json:"turns"`
	Messages  int       `json:"messages"`
	ToolCalls int       `json:"toolCalls"`
	// CopiedFrom is set by the server on a session made by copying a
	// share: the share's id. The server ignores it in a PUT body.
	CopiedFrom string `json:"copiedFrom,omitempty"`
}

// Session statuses.
const (
	StatusIdle    = "idle"
	StatusRunning = "running"
	StatusError   = "error"
	StatusEnded   = "ended"
)

// SessionPage is one page of GET /v1/sessions. NextCursor is empty on the
// last page.
type SessionPage struct {
	Sessions   []SessionRecord `json:"sessions"`
	NextCursor string          `json:"nextCursor"`
}

// ShareSnapshot is what a share shows: already redacted by the client.
// The server stores it exactly as sent.
type ShareSnapshot struct {
	Title     string       `json:"title"`
	Runtime   string       `json:"runtime"`
	CreatedAt time.Time    `json:"createdAt"`
	Entries   []ShareEntry `json:"entries"`
	// StrictBreaks: the texts' single line breaks join their lines (the
	// sharer's setting); otherwise each shows as a line break.
	StrictBreaks bool `json:"strictBreaks,omitempty"`
}

// ShareEntry is one entry of a shared thread.
type ShareEntry struct {
	// Kind is one of the Entry* constants.
	Kind string `json:"kind"`
	// Text is Markdown.
	Text string `json:"text"`
	// Title, ToolKind and Status describe a tool call; Title and Status an
	// agent's question too (what was asked; accept, decline, cancel, or ""
	// while it waited), its Text the answer ("- field: value" lines).
	Title    string `json:"title,omitempty"`
	ToolKind string `json:"toolKind,omitempty"`
	Status   string `json:"status,omitempty"`
}

// Share entry kinds.
const (
	EntryUser      = "user"
	EntryAssistant = "assistant"
	EntryThought   = "thought"
	EntryTool      = "tool"
	EntryQuestion  = "question"
	EntryPlan      = "plan"
)

// CreateShareRequest is the body of POST /v1/shares. ExpiresAt is
// optional (zero: the share lasts until it is revoked).
type CreateShareRequest struct {
	SessionID string        `json:"sessionId"`
	Snapshot  ShareSnapshot `json:"snapshot"`
	ExpiresAt time.Time     `json:"expiresAt,omitzero"`
}

// Share is a published, read-only snapshot of a session. Token is the
// unguessable part of URL (<base>/s/<token>); ID names the share in the
// API and is not a secret. Token and URL come only in the answer to
// POST /v1/shares: the control plane keeps the token's hash alone, so
// GET /v1/shares lists neither, and the client keeps the URL itself.
type Share struct {
	ID        string    `json:"id"`
	Token     string    `json:"token,omitempty"`
	URL       string    `json:"url,omitempty"`
	SessionID string    `json:"sessionId"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// ShareList is the body of GET /v1/shares.
type ShareList struct {
	Shares []Share `json:"shares"`
}

// CopyResult is the body of POST /v1/shares/{token}/copy: a new session
// owned by the caller (version 1, CopiedFrom = the share's id) and the
// share's snapshot.
type CopyResult struct {
	Session  SessionRecord `json:"session"`
	Snapshot ShareSnapshot `json:"snapshot"`
}

// Me is the body of GET /v1/me.
type Me struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ErrorBody is the body of every error response. Session is set on 409
// stale: the record the server holds.
type ErrorBody struct {
	Error   ErrorDetail    `json:"error"`
	Session *SessionRecord `json:"session,omitempty"`
	// Head is set on 409 conflict: the shared log's head.
	Head *int64 `json:"head,omitempty"`
}

// ErrorDetail is the "error" member of an error response.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}
