package thread

import (
	"encoding/json"
	"fmt"
	"strings"
)

// applyToolCall creates or merges a tool call from a tool_call or
// tool_call_update (or the toolCall of a permission request).
func (t *Thread) applyToolCall(u *Update) (Change, error) {
	if u.ToolCallID == "" {
		return Change{}, fmt.Errorf("thread: %s without toolCallId: %w", u.SessionUpdate, ErrInvalidUpdate)
	}
	// Decode everything before changing anything. Absent and null fields
	// leave the call's as they are.
	var content []ToolCallContent
	hasContent := !isNull(u.Content)
	if hasContent {
		if err := decodeList(u.Content, &content); err != nil {
			return Change{}, fmt.Errorf("thread: %s %s content: %w", u.SessionUpdate, u.ToolCallID, err)
		}
		if content == nil {
			content = []ToolCallContent{} // present and empty: cleared
		}
	}
	var locations []Location
	hasLocations := !isNull(u.Locations)
	if hasLocations {
		if err := decodeList(u.Locations, &locations); err != nil {
			return Change{}, fmt.Errorf("thread: %s %s locations: %w", u.SessionUpdate, u.ToolCallID, err)
		}
	}

	tc := t.toolCall(u.ToolCallID)
	if u.Title != nil && *u.Title != "" {
		tc.Title = *u.Title
	}
	if u.Kind != nil && *u.Kind != "" {
		tc.Kind = *u.Kind
	}
	if u.Status != nil {
		t.setStatus(tc, *u.Status)
	}
	if hasContent {
		tc.Content = content
	}
	if hasLocations {
		tc.Locations = locations
	}
	if !isNull(u.RawInput) {
		tc.RawInput = cloneRaw(u.RawInput)
	}
	if !isNull(u.RawOutput) {
		tc.RawOutput = cloneRaw(u.RawOutput)
	}
	return Change{Op: OpUpsert, EntryID: tc.ID, Kind: EntryToolCall}, nil
}

// toolCall returns the tool call with the given id, creating it (pending)
// when it is new. An id last seen in an earlier turn makes a new call:
// agents number their calls afresh when they restart (Reasonix's
// permission "gate-1" comes back in every process), and a new turn's call
// must not rewrite an old turn's card.
func (t *Thread) toolCall(id string) *ToolCall {
	if ref, ok := t.byTool[id]; ok && ref.turn == t.turn {
		return t.callAt(id)
	}
	e := t.newEntry(EntryToolCall)
	e.tool = &ToolCall{ID: e.id, ToolCallID: id, Status: StatusPending, StartedMs: e.createdMs}
	t.byTool[id] = toolRef{i: len(t.entries) - 1, turn: t.turn}
	return e.tool
}

// setStatus applies a status the agent sent. A call awaiting permission
// stays so until the request is answered, and a rejected one is not turned
// into failed or cancelled by the agent's follow-up.
func (t *Thread) setStatus(tc *ToolCall, status string) {
	switch {
	case status == "":
		return
	case tc.Status == StatusAwaitingPermission && (status == StatusPending || status == StatusInProgress):
		return
	case tc.Status == StatusRejected && (status == StatusFailed || status == StatusCancelled):
		return
	}
	tc.Status = status
	if isFinal(status) {
		if tc.EndedMs == 0 {
			tc.EndedMs = t.nowMs()
		}
		tc.Options = nil
	} else {
		tc.EndedMs = 0
	}
}

func isFinal(status string) bool {
	switch status {
	case StatusCompleted, StatusFailed, StatusRejected, StatusCancelled:
		return true
	}
	return false
}

// PermissionRequested records a session/request_permission: it creates or
// merges the tool call from the request's toolCall (same shape as a
// tool_call_update) and marks it awaiting_permission with the options.
func (t *Thread) PermissionRequested(toolCall json.RawMessage, options json.RawMessage) (Change, error) {
	var u Update
	if err := decodeUpdateObject(toolCall, &u); err != nil {
		return Change{}, fmt.Errorf("thread: permission toolCall: %w: %w", ErrInvalidUpdate, err)
	}
	var opts []PermissionOption
	if err := decodeList(options, &opts); err != nil {
		return Change{}, fmt.Errorf("thread: permission options: %w", err)
	}
	u.SessionUpdate = KindToolCallUpdate
	u.Status = nil // the request's status is the agent's view; the call now waits
	ch, err := t.applyToolCall(&u)
	if err != nil {
		return Change{}, fmt.Errorf("thread: permission: %w", err)
	}
	tc := t.callAt(u.ToolCallID)
	tc.Status = StatusAwaitingPermission
	tc.Options = opts
	tc.Decision = ""
	tc.EndedMs = 0
	return ch, nil
}

// PermissionResolved records the answer to a permission request: outcome
// is "selected" (optionKind allow_once, allow_always, reject_once,
// reject_always) or "cancelled". A rejected call becomes rejected, a
// cancelled one cancelled, an allowed one in_progress. Unknown ids change
// nothing.
func (t *Thread) PermissionResolved(toolCallID string, outcome string, optionKind string) Change {
	ref, ok := t.byTool[toolCallID]
	if !ok || t.entries[ref.i] == nil {
		return Change{} // unknown, or done and forgotten (SetForgetDone)
	}
	tc := t.entries[ref.i].tool
	tc.Options = nil
	switch {
	case outcome == "cancelled":
		tc.Decision = "cancelled"
		if !isFinal(tc.Status) {
			t.setStatus(tc, StatusCancelled)
		}
	case strings.HasPrefix(optionKind, "reject"):
		tc.Decision = optionKind
		if !isFinal(tc.Status) {
			t.setStatus(tc, StatusRejected)
		}
	default:
		tc.Decision = optionKind
		if tc.Status == StatusAwaitingPermission {
			tc.Status = StatusInProgress
		}
	}
	return Change{Op: OpUpsert, EntryID: tc.ID, Kind: EntryToolCall}
}

// EndTurn closes the turn with the session/prompt stop reason (use "error"
// when the prompt failed). The streaming entry is closed; when the turn was
// cancelled, tool calls still pending, in progress or awaiting permission
// become cancelled, and failed on "error". It returns one change per entry
// it changed.
func (t *Thread) EndTurn(stopReason string) []Change {
	var changes []Change
	if e := t.closeOpen(); e != nil {
		changes = append(changes, Change{Op: OpUpsert, EntryID: e.id, Kind: e.kind})
	}
	t.stopReason = stopReason
	var final string
	switch stopReason {
	case "cancelled":
		final = StatusCancelled
	case "error":
		final = StatusFailed
	default:
		return changes
	}
	for _, e := range t.entries {
		if e == nil || e.tool == nil || isFinal(e.tool.Status) {
			continue
		}
		e.tool.Options = nil
		t.setStatus(e.tool, final)
		changes = append(changes, Change{Op: OpUpsert, EntryID: e.id, Kind: EntryToolCall})
	}
	return changes
}

// BeginReplay starts an ACP session/load replay. If the thread already has
// entries (rebuilt from mnote's transcript), replayed entry updates are
// counted and dropped until EndReplay; otherwise they build the thread.
func (t *Thread) BeginReplay() {
	t.replaying = true
	t.replayDrop = len(t.entries) > 0
	t.replayApplied, t.replayDropped = 0, 0
}

// EndReplay ends the replay and returns how many updates were applied and
// dropped. The streaming entry is closed without a change: the caller
// re-reads Snapshot after a load.
func (t *Thread) EndReplay() (applied, dropped int) {
	applied, dropped = t.replayApplied, t.replayDropped
	if t.replaying {
		t.closeOpen()
	}
	t.replaying, t.replayDrop = false, false
	t.replayApplied, t.replayDropped = 0, 0
	return applied, dropped
}
