package fakemodel

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// NotesScript is a turn over mnote's notes tools (the MCP server mnote
// offers every agent): a prompt containing Marker goes
//
//  1. a call of the agent's search_notes tool (whatever prefix the agent
//     gives MCP tools: mcp__mnote__search_notes, mnote_search_notes, …)
//     with Query;
//  2. a call of its edit_note tool replacing the section under Heading
//     with Content, in the first note the search answered (the path is
//     read from the tool result in the request, so the edit happens only
//     when the search result reached the model);
//  3. the answer.
//
// An agent that keeps MCP tools out of the declared tools calls them
// through a proxy tool, by a name it gives the model: Qwen Code's
// tool_call, with the name its tool_search answers (asked again, half a
// second apart, while the agent is still starting the server); Reasonix's
// use_capability (action "call"), with the capability id its route in the
// prompt names or its search (action "search") answers.
//
// Request.ToolResult logs the tool result each step saw.
type NotesScript struct {
	// Marker selects the notes turn. Default "[notes]".
	Marker string `json:"marker,omitempty"`
	// Query is search_notes' query. Default "缓存".
	Query string `json:"query,omitempty"`
	// Heading is the section edit_note replaces. Default Query.
	Heading string `json:"heading,omitempty"`
	// Content is the section's new text. Default "## <Heading>\nupdated\n".
	Content string `json:"content,omitempty"`
	// Answer is the final answer; %s is the note's path. Default
	// `Done: I rewrote the section "<Heading>" of %s.`
	Answer string `json:"answer,omitempty"`
}

func (n *NotesScript) defaults() {
	if n.Marker == "" {
		n.Marker = "[notes]"
	}
	if n.Query == "" {
		n.Query = "缓存"
	}
	if n.Heading == "" {
		n.Heading = n.Query
	}
	if n.Content == "" {
		n.Content = "## " + n.Heading + "\nupdated\n"
	}
	if n.Answer == "" {
		n.Answer = `Done: I rewrote the section "` + n.Heading + `" of %s.`
	}
}

// Steps of a notes turn, as logged in Request.Step.
const (
	StepSearchNotes = "search_notes"
	StepEditNote    = "edit_note"
	StepFindTools   = "tool_search"
)

// call id suffixes of the notes steps (see ourCallID).
const (
	suffixSearch = "nsearch"
	suffixEdit   = "nedit"
	suffixFind   = "nfind"
)

// maxFinds bounds the look-ups (findTools) of one turn.
const maxFinds = 20

// hitPath finds the first "PATH.md:LINE:" of a search_notes result (the
// shape mnote answers, one hit a line).
var hitPath = regexp.MustCompile(`([^\s"'\\:\[\]{}]+\.md):([0-9]+):`)

// decideNotes is decide for a notes turn; last is the step (call id
// suffix) of the model's last call in the turn. Where the turn is comes
// from the tool results in it: none yet (search), a search result (edit),
// an edit result (answer).
func (s *Script) decideNotes(req *chatRequest, id, last string) reply {
	n := &s.Notes
	turn := turnMessages(req.Messages)
	result := ""
	if last != "" {
		result = lastResult(turn, last)
	}
	searched, edited := hasResult(turn, suffixSearch), hasResult(turn, suffixEdit)
	switch {
	case edited:
		path := ""
		if m := hitPath.FindStringSubmatch(unquote(lastResult(turn, suffixSearch))); m != nil {
			path = m[1]
		}
		return reply{step: StepAnswer, seen: result, reasoning: "The note is updated.", text: fmt.Sprintf(n.Answer, path)}
	case searched:
		found := lastResult(turn, suffixSearch)
		m := hitPath.FindStringSubmatch(unquote(found))
		if m == nil {
			return reply{step: StepError, seen: result,
				text: fmt.Sprintf("fakemodel: the search_notes result named no note (it was %q)", cut(found, 300))}
		}
		t, args, ok := notesCall(req.Tools, turn, "editnote", map[string]any{"path": m[1], "heading": n.Heading, "content": n.Content})
		if !ok {
			return s.findTools(req.Tools, turn, id, last, result, "edit")
		}
		return reply{step: StepEditNote, seen: result,
			reasoning: fmt.Sprintf("%s mentions it (line %s); I will rewrite its section %q.", m[1], m[2], n.Heading),
			call:      newCall(id+"_"+suffixEdit, t, args)}
	default:
		t, args, ok := notesCall(req.Tools, turn, "searchnotes", map[string]any{"query": n.Query})
		if !ok {
			return s.findTools(req.Tools, turn, id, last, result, "search")
		}
		return reply{step: StepSearchNotes, seen: result,
			reasoning: fmt.Sprintf("I will search the notes for %q.", n.Query),
			call:      newCall(id+"_"+suffixSearch, t, args)}
	}
}

// notesCall is the tool and arguments calling mnote's tool want
// ("searchnotes") with args: the tool itself when the agent declares it,
// else the agent's proxy for tools it does not declare, by the name the
// turn's messages gave (Qwen Code's tool_call {name, arguments}, with a
// name its tool_search answered; Reasonix's use_capability {action:
// "call", capability_id, arguments}, with an id its route in the prompt
// or a search named).
func notesCall(tools []tool, turn []message, want string, args map[string]any) (*tool, map[string]any, bool) {
	if t := mcpTool(tools, want); t != nil {
		return t, args, true
	}
	proxy, pattern := byExactName(tools, "toolcall"), toolWord
	if proxy == nil {
		proxy, pattern = byExactName(tools, "usecapability"), capabilityID
	}
	if proxy == nil {
		return nil, nil, false
	}
	for _, m := range turn {
		if m.Role != "tool" && m.Role != "user" {
			continue
		}
		for _, name := range pattern.FindAllString(unquote(m.text()), -1) {
			n := norm(name)
			if !strings.HasSuffix(n, want) || !strings.Contains(n, "mnote") {
				continue
			}
			if pattern == capabilityID {
				return proxy, map[string]any{"action": "call", "capability_id": name, "arguments": args}, true
			}
			return proxy, map[string]any{"name": name, "arguments": args}, true
		}
	}
	return nil, nil, false
}

// toolWord is a tool name in a tool_search result; capabilityID a
// Reasonix capability id of an MCP tool (mcp-tool:SERVER/TOOL).
var (
	toolWord     = regexp.MustCompile(`[A-Za-z0-9_.-]+`)
	capabilityID = regexp.MustCompile(`mcp-tool:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+`)
)

// findTools looks mnote's tool up through the agent's proxy (tool_search,
// or use_capability's search), again while it answers none: the agent may
// still be starting the server.
func (s *Script) findTools(tools []tool, turn []message, id, last, result, what string) reply {
	var t *tool
	var args map[string]any
	switch {
	case byExactName(tools, "toolsearch") != nil && byExactName(tools, "toolcall") != nil:
		t, args = byExactName(tools, "toolsearch"), map[string]any{"query": "mnote notes search edit", "max_results": 10}
	case byExactName(tools, "usecapability") != nil:
		t, args = byExactName(tools, "usecapability"), map[string]any{"action": "search", "query": "mnote " + what + " note", "limit": 8}
	default:
		return reply{step: StepError, seen: result, text: fmt.Sprintf("fakemodel: the agent offers no %s_notes tool (tools: %v)", what, toolNames(tools))}
	}
	finds := 0
	for _, m := range turn {
		if m.Role == "tool" && strings.HasSuffix(m.ToolCallID, "_"+suffixFind) {
			finds++
		}
	}
	if finds >= maxFinds {
		return reply{step: StepError, seen: result, text: fmt.Sprintf("fakemodel: %s found no mnote tool to %s in %d tries (last: %q)", t.Function.Name, what, finds, cut(result, 300))}
	}
	if last == suffixFind {
		time.Sleep(500 * time.Millisecond)
	}
	return reply{step: StepFindTools, seen: result,
		reasoning: "The notes tools are not loaded yet; I will look them up.",
		call:      newCall(id+"_"+suffixFind, t, args)}
}

func hasResult(turn []message, suffix string) bool {
	for _, m := range turn {
		if m.Role == "tool" && strings.HasSuffix(m.ToolCallID, "_"+suffix) {
			return true
		}
	}
	return false
}

// byExactName is the tool whose normalized name is want.
func byExactName(tools []tool, want string) *tool {
	for i := range tools {
		if norm(tools[i].Function.Name) == want {
			return &tools[i]
		}
	}
	return nil
}

// turnMessages are the messages of the current turn, from its prompt on.
func turnMessages(msgs []message) []message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && strings.TrimSpace(msgs[i].text()) != "" {
			return msgs[i:]
		}
	}
	return msgs
}

// lastResult is the result the agent sent back for the turn's last call
// of the step with suffix.
func lastResult(msgs []message, suffix string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "tool" && strings.HasSuffix(msgs[i].ToolCallID, "_"+suffix) {
			return msgs[i].text()
		}
	}
	return ""
}

// unquote undoes one level of JSON string encoding, for agents that send
// a tool result as the JSON of its content (so "\n" and "\u7f13" come as
// escapes); other text is returned as it is.
func unquote(s string) string {
	t := strings.TrimSpace(s)
	var out strings.Builder
	out.WriteString(s)
	// A JSON document (an object or a list of content parts): add every
	// string found in it.
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") || strings.HasPrefix(t, `"`) {
		var v any
		if json.Unmarshal([]byte(t), &v) == nil {
			collectStrings(v, &out)
		}
	}
	return out.String()
}

func collectStrings(v any, out *strings.Builder) {
	switch x := v.(type) {
	case string:
		out.WriteByte('\n')
		out.WriteString(x)
		// A string that is itself JSON (a result wrapped twice).
		if t := strings.TrimSpace(x); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			var w any
			if json.Unmarshal([]byte(t), &w) == nil {
				collectStrings(w, out)
			}
		}
	case []any:
		for _, e := range x {
			collectStrings(e, out)
		}
	case map[string]any:
		for _, e := range x {
			collectStrings(e, out)
		}
	}
}

// mcpTool finds the agent's tool for mnote's MCP tool whose normalized
// name is want ("searchnotes"): named exactly so, or ending with it after
// the agent's prefix; a name naming mnote wins.
func mcpTool(tools []tool, want string) *tool {
	var found *tool
	for i := range tools {
		n := norm(tools[i].Function.Name)
		if n != want && !strings.HasSuffix(n, want) {
			continue
		}
		if strings.Contains(n, "mnote") {
			return &tools[i]
		}
		if found == nil {
			found = &tools[i]
		}
	}
	return found
}
