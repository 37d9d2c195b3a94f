package fakemodel

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Script says what the model does. The zero value answers every request
// with text; set File to have it read and edit a file.
type Script struct {
	// File is the absolute path of the Markdown file a turn reads and edits.
	// Empty: the first "*.md" word of the prompt (made absolute against
	// Dir when relative).
	File string `json:"file,omitempty"`
	// Dir is the folder relative paths are resolved against.
	Dir string `json:"dir,omitempty"`
	// Append is the line the edit appends to the file. Default "hi".
	Append string `json:"append,omitempty"`
	// Answer is the final answer; %s is replaced by the file's name.
	// Default `Done: I added a line "<Append>" to %s.`
	Answer string `json:"answer,omitempty"`
	// SideAnswer answers requests that offer no tools (titles, follow-up
	// suggestions). Default "Add a line to a note".
	SideAnswer string `json:"sideAnswer,omitempty"`
	// StallMarker: a prompt containing it gets a streamed thought and then
	// nothing until the client goes away. Default "[stall]".
	StallMarker string `json:"stallMarker,omitempty"`
	// APIKey, when set, is the only key accepted ("Authorization: Bearer
	// KEY" or "api-key: KEY"); other requests get 401.
	APIKey string `json:"apiKey,omitempty"`
	// Models are listed by /v1/models. Default fake-model,
	// deepseek-v4-flash, deepseek-v4-pro.
	Models []string `json:"models,omitempty"`
	// ChunkBytes is the size of streamed text pieces. Default 24.
	ChunkBytes int `json:"chunkBytes,omitempty"`
	// Notes is the turn over mnote's notes tools (NotesScript), for a
	// prompt containing Notes.Marker.
	Notes NotesScript `json:"notes,omitempty"`
}

func (s *Script) defaults() {
	if s.Append == "" {
		s.Append = "hi"
	}
	if s.Answer == "" {
		s.Answer = `Done: I added a line "` + s.Append + `" to %s.`
	}
	if s.SideAnswer == "" {
		s.SideAnswer = "Add a line to a note"
	}
	if s.StallMarker == "" {
		s.StallMarker = "[stall]"
	}
	if len(s.Models) == 0 {
		s.Models = []string{"fake-model", "deepseek-v4-flash", "deepseek-v4-pro"}
	}
	if s.ChunkBytes <= 0 {
		s.ChunkBytes = 24
	}
	s.Notes.defaults()
}

// chatRequest is the part of a chat completion request the script reads.
type chatRequest struct {
	Model    string    `json:"model"`
	Stream   bool      `json:"stream"`
	Messages []message `json:"messages"`
	Tools    []tool    `json:"tools"`
}

type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []toolCall      `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// text returns a message's text: a string, or the text parts of a list,
// without the parts an agent adds that are not the person's words (Qwen's
// and OpenCode's <system-reminder> blocks).
func (m *message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		if isReminder(s) {
			return ""
		}
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Text != "" && !isReminder(p.Text) {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Steps of a turn, as logged in Request.Step.
const (
	StepRead   = "read"
	StepEdit   = "edit"
	StepAnswer = "answer"
	StepSide   = "side"
	StepStall  = "stall"
	StepDenied = "unauthorized"
	StepError  = "error"
)

// reply is what the model says to one request.
type reply struct {
	step      string
	reasoning string
	text      string
	call      *toolCall
	seen      string // the tool result the request carried (notes turns)
}

// tool call ids end with the step they belong to, so the next request
// (which carries the call back) says where the turn is. The middle part is
// unique per server and request: agents keep ids across restarts, and two
// processes of one session must not reuse one.
var ourCallID = regexp.MustCompile(`^call_fm[0-9a-z]+_(read|edit|` + suffixSearch + `|` + suffixEdit + `|` + suffixFind + `)$`)

// decide picks the reply to req; id is the tool call id to use (ending
// with _read or _edit).
func (s *Script) decide(req *chatRequest, id string) (reply, error) {
	if len(req.Tools) == 0 {
		return reply{step: StepSide, text: s.SideAnswer}, nil
	}
	prompt, last := s.turnState(req.Messages)
	if strings.Contains(prompt, s.StallMarker) {
		return reply{step: StepStall, reasoning: "Thinking about it for a long while…"}, nil
	}
	if strings.Contains(prompt, s.Notes.Marker) {
		return s.decideNotes(req, id, last), nil
	}
	path, err := s.file(prompt)
	if err != nil {
		return reply{step: StepError, text: err.Error()}, nil
	}
	name := s.display(path)
	switch last {
	case "":
		t, args, err := pickRead(req.Tools, path)
		if err != nil {
			return reply{step: StepError, text: err.Error()}, nil
		}
		return reply{step: StepRead,
			reasoning: fmt.Sprintf("The user wants a line added. First I will read %s.", name),
			call:      newCall(id+"_"+StepRead, t, args)}, nil
	case StepRead:
		before, err := os.ReadFile(path)
		if err != nil {
			return reply{step: StepError, text: fmt.Sprintf("I could not see %s: %v", name, err)}, nil
		}
		after := appendLine(string(before), s.Append)
		t, args, err := pickEdit(req.Tools, path, string(before), after)
		if err != nil {
			return reply{step: StepError, text: err.Error()}, nil
		}
		return reply{step: StepEdit,
			reasoning: fmt.Sprintf("Now append the line %q.", s.Append),
			call:      newCall(id+"_"+StepEdit, t, args)}, nil
	default:
		return reply{step: StepAnswer, reasoning: "The edit succeeded.", text: fmt.Sprintf(s.Answer, name)}, nil
	}
}

// turnState finds the user's prompt of the current turn and the step of
// the model's last tool call after it ("" when there is none).
func (s *Script) turnState(msgs []message) (prompt, last string) {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		switch m.Role {
		case "assistant":
			if last != "" {
				continue
			}
			for _, c := range slices.Backward(m.ToolCalls) {
				if sm := ourCallID.FindStringSubmatch(c.ID); sm != nil {
					last = sm[1]
					break
				}
			}
		case "user":
			t := m.text()
			if strings.TrimSpace(t) == "" {
				continue
			}
			return t, last
		}
	}
	return "", last
}

// isReminder reports text an agent adds to a user message that is not the
// person's prompt.
func isReminder(t string) bool {
	return strings.HasPrefix(strings.TrimSpace(t), "<system-reminder>")
}

var mdWord = regexp.MustCompile(`[^\s'"` + "`" + `]+\.md\b`)

func (s *Script) file(prompt string) (string, error) {
	p := s.File
	if p == "" {
		p = mdWord.FindString(prompt)
	}
	if p == "" {
		return "", fmt.Errorf("fakemodel: no file to edit: set Script.File or name a .md file in the prompt")
	}
	if !strings.HasPrefix(p, "/") {
		if s.Dir == "" {
			return "", fmt.Errorf("fakemodel: %s is relative and Script.Dir is not set", p)
		}
		p = strings.TrimSuffix(s.Dir, "/") + "/" + p
	}
	return p, nil
}

// display is the file's name as the model writes it: relative to Dir when
// inside it.
func (s *Script) display(path string) string {
	if s.Dir != "" {
		if rel, ok := strings.CutPrefix(path, strings.TrimSuffix(s.Dir, "/")+"/"); ok {
			return rel
		}
	}
	return path
}

func appendLine(before, line string) string {
	if before != "" && !strings.HasSuffix(before, "\n") {
		before += "\n"
	}
	return before + line + "\n"
}

func newCall(id string, t *tool, args map[string]any) *toolCall {
	b, _ := json.Marshal(args)
	c := &toolCall{ID: id, Type: "function"}
	c.Function.Name = t.Function.Name
	c.Function.Arguments = string(b)
	return c
}

// schema is the part of a JSON schema used to fill arguments.
type schema struct {
	Properties map[string]struct {
		Type json.RawMessage `json:"type"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func (t *tool) schema() schema {
	var s schema
	_ = json.Unmarshal(t.Function.Parameters, &s)
	return s
}

// norm lower-cases a name and drops separators: file_path, filePath and
// file-path all become filepath.
func norm(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ':
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

func isPathParam(name string) bool {
	n := norm(name)
	return n == "path" || n == "file" || n == "filename" || strings.HasSuffix(n, "path")
}

// byName finds the tool whose normalized name is the first of names that
// matches, then one whose name contains hint, that satisfies ok.
func byName(tools []tool, names []string, hint string, ok func(*tool) bool) *tool {
	for _, want := range names {
		for i := range tools {
			if norm(tools[i].Function.Name) == want && ok(&tools[i]) {
				return &tools[i]
			}
		}
	}
	for i := range tools {
		n := norm(tools[i].Function.Name)
		if strings.Contains(n, hint) && !strings.Contains(n, "many") && ok(&tools[i]) {
			return &tools[i]
		}
	}
	return nil
}

func pathParam(s schema) string {
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		if isPathParam(k) {
			return k
		}
	}
	return ""
}

func toolNames(tools []tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Function.Name
	}
	return out
}

// pickRead finds the read tool and its arguments for path.
func pickRead(tools []tool, path string) (*tool, map[string]any, error) {
	t := byName(tools, []string{"readfile", "read", "view", "readtextfile"}, "read", func(t *tool) bool { return pathParam(t.schema()) != "" })
	if t == nil {
		return nil, nil, fmt.Errorf("fakemodel: the agent offers no read tool with a path argument (tools: %v)", toolNames(tools))
	}
	return t, map[string]any{pathParam(t.schema()): path}, nil
}

// pickEdit finds an edit tool (old and new text) or else a write tool
// (whole content) and its arguments.
func pickEdit(tools []tool, path, before, after string) (*tool, map[string]any, error) {
	editParams := func(s schema) (old, new string) {
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			if string(s.Properties[k].Type) == `"boolean"` {
				continue
			}
			n := norm(k)
			switch {
			case old == "" && (strings.Contains(n, "old") || strings.Contains(n, "search") || strings.Contains(n, "find") || strings.Contains(n, "original")):
				old = k
			case new == "" && (strings.Contains(n, "new") || n == "replace" || n == "replacement" || strings.Contains(n, "updated")):
				new = k
			}
		}
		return old, new
	}
	edit := byName(tools, []string{"edit", "editfile", "replace", "strreplace", "searchreplace"}, "edit", func(t *tool) bool {
		s := t.schema()
		o, n := editParams(s)
		return pathParam(s) != "" && o != "" && n != ""
	})
	if edit != nil && before != "" {
		s := edit.schema()
		o, n := editParams(s)
		return edit, map[string]any{pathParam(s): path, o: before, n: after}, nil
	}
	contentParam := func(s schema) string {
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			switch norm(k) {
			case "content", "contents", "text", "newcontent", "filecontent":
				return k
			}
		}
		return ""
	}
	write := byName(tools, []string{"writefile", "write", "createfile", "writetextfile"}, "write", func(t *tool) bool {
		s := t.schema()
		return pathParam(s) != "" && contentParam(s) != ""
	})
	if write == nil {
		return nil, nil, fmt.Errorf("fakemodel: the agent offers no edit or write tool (tools: %v)", toolNames(tools))
	}
	s := write.schema()
	return write, map[string]any{pathParam(s): path, contentParam(s): after}, nil
}
