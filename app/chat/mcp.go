package chat

import (
	"bytes"
	"encoding/json"

	"mnote/store"
	"mnote/thread"
)

// This file holds what the notes tools (package mcp, offered to the
// agent through mcpServers) need of a session: their tool calls shown in
// the thread, and their secrets kept out of the transcript.

// ToolCallDone ends a tool call mnote itself ran for the agent (an
// edit_note shown with a permission request): status is completed or
// failed. It is recorded (store.ToolCallDoneRecord) and shown.
func (s *Session) ToolCallDone(toolCallID, status, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := map[string]any{"turn": s.turn, "toolCallId": toolCallID, "status": status}
	if message != "" {
		rec["message"] = message
	}
	s.recordApp(store.KindToolCallDone, rec)
	s.sync()
	st := status
	u := &thread.Update{SessionUpdate: thread.KindToolCallUpdate, ToolCallID: toolCallID, Status: &st}
	ch, err := s.th.Apply(u)
	if err != nil {
		s.log.Debug("tool call status not applied", "err", err)
		return
	}
	if s.obs != nil {
		s.obs.Event(&Event{Type: EvUpdate, Update: u, Change: ch})
	}
}

// MCPRecord records a notes tool call the agent made (tool, arguments
// without the content written, how it ended) in the transcript.
func (s *Session) MCPRecord(tool string, args json.RawMessage, isError bool, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := map[string]any{"turn": s.turn, "tool": tool, "args": args, "isError": isError}
	if message != "" {
		rec["message"] = message
	}
	s.recordApp("mcp_call", rec)
}

// redactedValue replaces secrets in recorded lines.
const redactedValue = "[redacted]"

// redactMCPSecrets blanks the env values and header values of the
// mcpServers in a session/new, session/load or session/resume request:
// they hold the notes tools' session token and the user's servers' keys,
// which the transcript (exported, shared) must not keep. Other lines, and
// lines it cannot read, are returned as they are.
func redactMCPSecrets(line []byte) []byte {
	if !bytes.Contains(line, []byte(`"mcpServers"`)) {
		return line
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil {
		return line
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil {
		return line
	}
	var servers []map[string]json.RawMessage
	if json.Unmarshal(params["mcpServers"], &servers) != nil || len(servers) == 0 {
		return line
	}
	for _, srv := range servers {
		for _, key := range []string{"env", "headers"} {
			var vars []map[string]json.RawMessage
			if json.Unmarshal(srv[key], &vars) != nil {
				continue
			}
			for _, v := range vars {
				if _, ok := v["value"]; ok {
					v["value"] = json.RawMessage(`"` + redactedValue + `"`)
				}
			}
			srv[key], _ = json.Marshal(vars)
		}
	}
	var err error
	if params["mcpServers"], err = json.Marshal(servers); err != nil {
		return line
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return line
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return out
}
