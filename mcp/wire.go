package mcp

import (
	"encoding/json"
)

// Environment variables of `mnote mcp`, set by Entry.
const (
	EnvSocket = "MNOTE_MCP_SOCKET"
	EnvToken  = "MNOTE_MCP_TOKEN"
)

// maxLine bounds one line of the channel (an edit's content is inside it).
const maxLine = 16 << 20

type hello struct {
	Token string `json:"token"`
}

type helloReply struct {
	OK    bool   `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`
}

type request struct {
	ID   uint64          `json:"id"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

type response struct {
	ID      uint64 `json:"id"`
	Text    string `json:"text,omitempty"`
	IsError bool   `json:"isError,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Result is what a tool answers: text for the model; IsError marks a
// failure the model should see (a missing note, a refused path, a
// rejected edit) rather than a broken channel.
type Result struct {
	Text    string
	IsError bool
}

// Errorf is a Result with IsError set.
func Errorf(text string) Result { return Result{Text: text, IsError: true} }

// Entry is the ACP mcpServers entry (stdio) that starts `command mcp`
// connected to socket with token.
func Entry(name, command, socket, token string) json.RawMessage {
	type env struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	b, _ := json.Marshal(struct {
		Name    string   `json:"name"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Env     []env    `json:"env"`
	}{name, command, []string{"mcp"}, []env{{EnvSocket, socket}, {EnvToken, token}}})
	return b
}
