package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// scenario drives the whole agent process. Field names are the JSON keys of
// the scenario file; unknown keys are rejected so typos fail loudly.
type scenario struct {
	AgentInfo          json.RawMessage   `json:"agentInfo"`
	ProtocolVersion    int               `json:"protocolVersion"`
	PromptCapabilities json.RawMessage   `json:"promptCapabilities"`
	InitializeDelayMs  int               `json:"initializeDelayMs"`
	SessionNewDelayMs  int               `json:"sessionNewDelayMs"`
	LoadSession        bool              `json:"loadSession"`
	Resume             bool              `json:"resume"`
	Fork               bool              `json:"fork"`
	Close              bool              `json:"close"`  // lifecycle.go
	Delete             bool              `json:"delete"` // lifecycle.go
	Logout             bool              `json:"logout"` // lifecycle.go
	AddDirectories     bool              `json:"additionalDirectories"`
	AuthMethods        json.RawMessage   `json:"authMethods"`
	AuthRequired       bool              `json:"authRequired"`
	AuthFile           string            `json:"authFile"`
	SessionNewResult   json.RawMessage   `json:"sessionNewResult"`
	Models             string            `json:"models"` // models.go
	IgnoreCancel       bool              `json:"ignoreCancel"`
	ExitOnStdinClose   bool              `json:"exitOnStdinClose"`
	IgnoreSigterm      bool              `json:"ignoreSigterm"`
	StopReadingAfter   string            `json:"stopReadingAfter"`
	StderrAtStart      string            `json:"stderrAtStart"`
	Turns              []json.RawMessage `json:"turns"`
	Load               json.RawMessage   `json:"load"`

	// Parsed forms, filled by finish.
	turns      [][]step
	load       []step
	newResult  map[string]json.RawMessage
	newModeID  string
	newConfigs json.RawMessage
}

// defaultScenario returns the scenario used when no file or JSON is given.
func defaultScenario() *scenario {
	return &scenario{
		ProtocolVersion:  1,
		LoadSession:      true,
		ExitOnStdinClose: true,
	}
}

// loadScenario builds the scenario: defaults, then the file (if any), then
// the inline JSON (if any) overlaid on top, then models (if not "").
func loadScenario(file, inline, models string) (*scenario, error) {
	sc := defaultScenario()
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("read scenario: %w", err)
		}
		if err := decodeStrict(data, sc); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", file, err)
		}
	}
	if inline != "" {
		if err := decodeStrict([]byte(inline), sc); err != nil {
			return nil, fmt.Errorf("scenario json: %w", err)
		}
	}
	if models != "" {
		sc.Models = models
	}
	if err := sc.finish(); err != nil {
		return nil, err
	}
	return sc, nil
}

// finish validates the raw fields and fills the parsed forms.
func (sc *scenario) finish() error {
	sc.AgentInfo = compactOr(sc.AgentInfo, `{"name":"mnote-testagent","title":"mnote test agent","version":"0.1.0"}`)
	sc.PromptCapabilities = compactOr(sc.PromptCapabilities, `{"image":true,"audio":true,"embeddedContext":true}`)
	sc.AuthMethods = compactOr(sc.AuthMethods, `[]`)
	sc.turns = nil
	for i, raw := range sc.Turns {
		steps, err := parseStepList(raw)
		if err != nil {
			return fmt.Errorf("turns[%d]: %w", i, err)
		}
		sc.turns = append(sc.turns, steps)
	}
	if len(bytes.TrimSpace(sc.Load)) > 0 && string(bytes.TrimSpace(sc.Load)) != "null" {
		steps, err := parseStepList(sc.Load)
		if err != nil {
			return fmt.Errorf("load: %w", err)
		}
		sc.load = steps
	}
	sc.newResult = map[string]json.RawMessage{}
	if r := bytes.TrimSpace(sc.SessionNewResult); len(r) > 0 && string(r) != "null" {
		if err := json.Unmarshal(r, &sc.newResult); err != nil {
			return fmt.Errorf("sessionNewResult: %w", err)
		}
		for k, v := range sc.newResult {
			sc.newResult[k] = compact(v)
		}
	}
	if modes, ok := sc.newResult["modes"]; ok {
		var m struct {
			CurrentModeID string `json:"currentModeId"`
		}
		_ = json.Unmarshal(modes, &m)
		sc.newModeID = m.CurrentModeID
	}
	if err := sc.addModels(); err != nil {
		return err
	}
	sc.newConfigs = sc.newResult["configOptions"]
	return nil
}

// turnSteps returns the scripted steps for turn n, or nil for the echo turn.
func (sc *scenario) turnSteps(n int) []step {
	if len(sc.turns) == 0 {
		return nil
	}
	if n >= len(sc.turns) {
		n = len(sc.turns) - 1
	}
	return sc.turns[n]
}

// step is one scripted action. Exactly one action field is set; chunk, mix
// and progressFile are modifiers.
type step struct {
	Message        *string         `json:"message"`
	Thought        *string         `json:"thought"`
	UserMessage    *string         `json:"userMessage"`
	Chunk          int             `json:"chunk"`
	ToolCall       json.RawMessage `json:"toolCall"`
	ToolCallUpdate json.RawMessage `json:"toolCallUpdate"`
	Plan           json.RawMessage `json:"plan"`
	Usage          json.RawMessage `json:"usage"`
	Update         json.RawMessage `json:"update"`
	Notify         *methodCall     `json:"notify"`
	Raw            *string         `json:"raw"`
	HugeMessage    *int64          `json:"hugeMessage"`
	Flood          *int            `json:"flood"`
	Mix            string          `json:"mix"`
	ProgressFile   string          `json:"progressFile"`
	Permission     *permissionStep `json:"permission"`
	Elicit         *elicitStep     `json:"elicit"` // elicit.go
	ReadFile       *readFileStep   `json:"readFile"`
	WriteFile      *writeFileStep  `json:"writeFile"`
	Request        *methodCall     `json:"request"`
	SleepMs        *int            `json:"sleepMs"`
	Stderr         *string         `json:"stderr"`
	Crash          *int            `json:"crash"`
	WaitForCancel  *bool           `json:"waitForCancel"`
	Stop           *string         `json:"stop"`
	Error          *rpcError       `json:"error"`
	Title          *string         `json:"title"`
	EnvSha256      *string         `json:"envSha256"`
	MCPCall        *mcpCallStep    `json:"mcpCall"` // mcp.go
	// Terminals (terminal.go).
	Terminal        *terminalStep `json:"terminal"`
	TerminalOutput  *string       `json:"terminalOutput"`
	TerminalWait    *string       `json:"terminalWait"`
	TerminalKill    *string       `json:"terminalKill"`
	TerminalRelease *string       `json:"terminalRelease"`
}

type methodCall struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type permissionStep struct {
	ToolCall json.RawMessage `json:"toolCall"`
	Options  json.RawMessage `json:"options"`
	Withdraw bool            `json:"withdraw"` // $/cancel_request right after it
}

type readFileStep struct {
	Path  string `json:"path"`
	Line  *int   `json:"line,omitempty"`
	Limit *int   `json:"limit,omitempty"`
}

type writeFileStep struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// maxHuge caps hugeMessage so a typo cannot eat the machine.
const maxHuge = 1 << 30

// actions lists the names of the action keys that are set.
func (s *step) actions() []string {
	var a []string
	add := func(set bool, name string) {
		if set {
			a = append(a, name)
		}
	}
	add(s.Message != nil, "message")
	add(s.Thought != nil, "thought")
	add(s.UserMessage != nil, "userMessage")
	add(s.ToolCall != nil, "toolCall")
	add(s.ToolCallUpdate != nil, "toolCallUpdate")
	add(s.Plan != nil, "plan")
	add(s.Usage != nil, "usage")
	add(s.Update != nil, "update")
	add(s.Notify != nil, "notify")
	add(s.Raw != nil, "raw")
	add(s.HugeMessage != nil, "hugeMessage")
	add(s.Flood != nil, "flood")
	add(s.Permission != nil, "permission")
	add(s.Elicit != nil, "elicit")
	add(s.ReadFile != nil, "readFile")
	add(s.WriteFile != nil, "writeFile")
	add(s.Request != nil, "request")
	add(s.SleepMs != nil, "sleepMs")
	add(s.Stderr != nil, "stderr")
	add(s.Crash != nil, "crash")
	add(s.WaitForCancel != nil, "waitForCancel")
	add(s.Stop != nil, "stop")
	add(s.Error != nil, "error")
	add(s.Title != nil, "title")
	add(s.EnvSha256 != nil, "envSha256")
	add(s.MCPCall != nil, "mcpCall")
	add(s.Terminal != nil, "terminal")
	add(s.TerminalOutput != nil, "terminalOutput")
	add(s.TerminalWait != nil, "terminalWait")
	add(s.TerminalKill != nil, "terminalKill")
	add(s.TerminalRelease != nil, "terminalRelease")
	return a
}

// validate checks the step shape and normalises raw JSON to single lines.
func (s *step) validate() error {
	acts := s.actions()
	if len(acts) != 1 {
		return fmt.Errorf("a step needs exactly one action key, got %v", acts)
	}
	act := acts[0]
	if s.Chunk != 0 && act != "message" && act != "thought" && act != "userMessage" {
		return fmt.Errorf("chunk only applies to message, thought and userMessage")
	}
	if s.Chunk < 0 {
		return fmt.Errorf("chunk must be >= 0")
	}
	if (s.Mix != "" || s.ProgressFile != "") && act != "flood" {
		return fmt.Errorf("mix and progressFile only apply to flood")
	}
	switch act {
	case "toolCall", "toolCallUpdate", "usage", "update":
		raw := map[string]json.RawMessage{"toolCall": s.ToolCall, "toolCallUpdate": s.ToolCallUpdate,
			"usage": s.Usage, "update": s.Update}[act]
		if !isObject(raw) {
			return fmt.Errorf("%s must be a JSON object", act)
		}
		s.ToolCall, s.ToolCallUpdate, s.Usage, s.Update =
			compactNil(s.ToolCall), compactNil(s.ToolCallUpdate), compactNil(s.Usage), compactNil(s.Update)
	case "plan":
		if t := bytes.TrimSpace(s.Plan); len(t) == 0 || t[0] != '[' {
			return fmt.Errorf("plan must be a JSON array of entries")
		}
		s.Plan = compact(s.Plan)
	case "notify", "request":
		mc := s.Notify
		if mc == nil {
			mc = s.Request
		}
		if mc.Method == "" {
			return fmt.Errorf("%s needs a method", act)
		}
		mc.Params = compactNil(mc.Params)
	case "hugeMessage":
		if *s.HugeMessage < 0 || *s.HugeMessage > maxHuge {
			return fmt.Errorf("hugeMessage must be between 0 and %d", maxHuge)
		}
	case "flood":
		if *s.Flood < 0 {
			return fmt.Errorf("flood must be >= 0")
		}
		if s.Mix != "" && s.Mix != "chunks" && s.Mix != "bench" {
			return fmt.Errorf("mix must be \"chunks\" or \"bench\", got %q", s.Mix)
		}
	case "permission":
		s.Permission.ToolCall = compactNil(s.Permission.ToolCall)
		s.Permission.Options = compactNil(s.Permission.Options)
		if s.Permission.ToolCall != nil && !isObject(s.Permission.ToolCall) {
			return fmt.Errorf("permission.toolCall must be a JSON object")
		}
	case "sleepMs":
		if *s.SleepMs < 0 {
			return fmt.Errorf("sleepMs must be >= 0")
		}
	case "terminal":
		if s.Terminal.Command == "" {
			return fmt.Errorf("terminal needs a command")
		}
	case "stop":
		if *s.Stop == "" {
			return fmt.Errorf("stop needs a stop reason")
		}
	case "error":
		s.Error.Data = compactNil(s.Error.Data)
	case "mcpCall":
		if s.MCPCall.Server == "" || s.MCPCall.Tool == "" {
			return fmt.Errorf("mcpCall needs a server and a tool")
		}
		s.MCPCall.Args = compactNil(s.MCPCall.Args)
	}
	return nil
}

// parseStepList parses a JSON array of steps.
func parseStepList(raw []byte) ([]step, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("steps must be a JSON array: %w", err)
	}
	steps := make([]step, 0, len(items))
	for i, it := range items {
		var st step
		if err := decodeStrict(it, &st); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		if err := st.validate(); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// parseInlineSteps interprets a prompt text as a script. ok is false when the
// text is not a script (it does not start with '[' or '{').
func parseInlineSteps(text string) (steps []step, ok bool, err error) {
	t := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(t, "["):
		steps, err = parseStepList([]byte(t))
		return steps, true, err
	case strings.HasPrefix(t, "{"):
		var obj struct {
			Steps json.RawMessage `json:"steps"`
		}
		if err := decodeStrict([]byte(t), &obj); err != nil {
			return nil, true, err
		}
		if obj.Steps == nil {
			return nil, true, errors.New(`inline object needs a "steps" array`)
		}
		steps, err = parseStepList(obj.Steps)
		return steps, true, err
	}
	return nil, false, nil
}

// decodeStrict unmarshals one JSON value, rejecting unknown fields and
// trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// compact returns raw on one line; invalid JSON is returned unchanged.
func compact(raw []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// compactNil is compact that keeps nil (absent) values nil.
func compactNil(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	return compact(raw)
}

// compactOr compacts raw, or returns def when raw is absent or null.
func compactOr(raw json.RawMessage, def string) json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return json.RawMessage(def)
	}
	return compact(raw)
}

// isObject reports whether raw is a JSON object.
func isObject(raw []byte) bool {
	t := bytes.TrimSpace(raw)
	return len(t) >= 2 && t[0] == '{' && json.Valid(t)
}
