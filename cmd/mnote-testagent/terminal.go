package main

import (
	"encoding/json"
	"fmt"
)

// terminalStep is {"terminal": {...}}: terminal/create. Name (default "t")
// is how the other terminal steps refer to it; with toolCallId a tool_call
// (kind execute, in_progress) whose content is the terminal is sent after
// it was created.
type terminalStep struct {
	Name            string   `json:"name"`
	Command         string   `json:"command"`
	Args            []string `json:"args,omitempty"`
	Cwd             *string  `json:"cwd,omitempty"`
	Env             []envVar `json:"env,omitempty"`
	OutputByteLimit *int     `json:"outputByteLimit,omitempty"`
	ToolCallID      string   `json:"toolCallId,omitempty"`
}

type envVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// termRef is a created terminal.
type termRef struct {
	id, toolCallID string
}

// terminalStep runs one terminal step and says what came back:
//
//	terminal NAME: created                  terminal/create
//	terminal NAME output: {json}           terminal/output's result
//	terminal NAME exit: {json}             terminal/wait_for_exit's result
//	terminal NAME: killed | released
//	terminal NAME error: CODE MESSAGE      any of them failed
func (t *turn) terminalStep(st *step) {
	s := t.s
	if ts := st.Terminal; ts != nil {
		name := nameOr(ts.Name)
		result, rerr := t.a.call("terminal/create", struct {
			SessionID       string   `json:"sessionId"`
			Command         string   `json:"command"`
			Args            []string `json:"args,omitempty"`
			Cwd             *string  `json:"cwd,omitempty"`
			Env             []envVar `json:"env,omitempty"`
			OutputByteLimit *int     `json:"outputByteLimit,omitempty"`
		}{s.id, ts.Command, ts.Args, ts.Cwd, ts.Env, ts.OutputByteLimit})
		if rerr != nil {
			t.say(fmt.Sprintf("terminal %s error: %d %s", name, rerr.Code, rerr.Message))
			return
		}
		var r struct {
			TerminalID string `json:"terminalId"`
		}
		_ = json.Unmarshal(result, &r)
		s.mu.Lock()
		if s.terms == nil {
			s.terms = map[string]termRef{}
		}
		s.terms[name] = termRef{id: r.TerminalID, toolCallID: ts.ToolCallID}
		s.mu.Unlock()
		if ts.ToolCallID != "" {
			t.send(withKind("tool_call", marshal(struct {
				ToolCallID string `json:"toolCallId"`
				Title      string `json:"title"`
				Kind       string `json:"kind"`
				Status     string `json:"status"`
				Content    any    `json:"content"`
			}{ts.ToolCallID, ts.Command, "execute", "in_progress", []map[string]string{{"type": "terminal", "terminalId": r.TerminalID}}})))
		}
		t.say("terminal " + name + ": created")
		return
	}
	var method, name string
	switch {
	case st.TerminalOutput != nil:
		method, name = "terminal/output", *st.TerminalOutput
	case st.TerminalWait != nil:
		method, name = "terminal/wait_for_exit", *st.TerminalWait
	case st.TerminalKill != nil:
		method, name = "terminal/kill", *st.TerminalKill
	default:
		method, name = "terminal/release", *st.TerminalRelease
	}
	name = nameOr(name)
	s.mu.Lock()
	ref, ok := s.terms[name]
	s.mu.Unlock()
	if !ok {
		ref.id = name // not created by a step: the name is the id
	}
	result, rerr := t.a.call(method, struct {
		SessionID  string `json:"sessionId"`
		TerminalID string `json:"terminalId"`
	}{s.id, ref.id})
	if rerr != nil {
		t.say(fmt.Sprintf("terminal %s error: %d %s", name, rerr.Code, rerr.Message))
		return
	}
	switch method {
	case "terminal/output":
		t.say("terminal " + name + " output: " + string(result))
	case "terminal/wait_for_exit":
		if ref.toolCallID != "" {
			var r struct {
				ExitCode *int `json:"exitCode"`
			}
			_ = json.Unmarshal(result, &r)
			status := "failed"
			if r.ExitCode != nil && *r.ExitCode == 0 {
				status = "completed"
			}
			t.send(withKind("tool_call_update", marshal(struct {
				ToolCallID string `json:"toolCallId"`
				Status     string `json:"status"`
			}{ref.toolCallID, status})))
		}
		t.say("terminal " + name + " exit: " + string(result))
	case "terminal/kill":
		t.say("terminal " + name + ": killed")
	default:
		s.mu.Lock()
		delete(s.terms, name)
		s.mu.Unlock()
		t.say("terminal " + name + ": released")
	}
}

func nameOr(name string) string {
	if name == "" {
		return "t"
	}
	return name
}
