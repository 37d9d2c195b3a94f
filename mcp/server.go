package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caller runs a tool in the app (a *Client).
type Caller interface {
	Call(ctx context.Context, tool string, args json.RawMessage) (Result, error)
}

// NewServer is the MCP server of `mnote mcp`: the notes tools, each call
// forwarded to c.
func NewServer(c Caller, version string) *mcpsdk.Server {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "mnote", Title: "mnote notes", Version: version}, &mcpsdk.ServerOptions{
		Instructions: "Tools over the user's folder of Markdown notes, open in mnote. Paths are relative to that folder. edit_note asks the user before it writes.",
	})
	for _, t := range tools {
		switch t.name {
		case ToolSearchNotes:
			add[SearchNotesArgs](s, c, t)
		case ToolReadNote:
			add[ReadNoteArgs](s, c, t)
		case ToolListNotes:
			add[ListNotesArgs](s, c, t)
		case ToolOutline, ToolBacklinks:
			add[PathArgs](s, c, t)
		case ToolSearchSessions:
			add[SearchSessionsArgs](s, c, t)
		case ToolEditNote:
			add[EditNoteArgs](s, c, t)
		default:
			panic("mcp: tool without arguments: " + t.name)
		}
	}
	return s
}

// add registers one tool whose input schema comes from In.
func add[In any](s *mcpsdk.Server, c Caller, t toolInfo) {
	tool := &mcpsdk.Tool{Name: t.name, Description: t.desc}
	if t.name != ToolEditNote {
		tool.Annotations = &mcpsdk.ToolAnnotations{ReadOnlyHint: true}
	}
	mcpsdk.AddTool(s, tool, func(ctx context.Context, _ *mcpsdk.CallToolRequest, in In) (*mcpsdk.CallToolResult, any, error) {
		args, err := json.Marshal(in)
		if err != nil {
			return nil, nil, fmt.Errorf("encode arguments: %w", err)
		}
		res, err := c.Call(ctx, t.name, args)
		if err != nil {
			return nil, nil, err
		}
		return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: res.Text}}, IsError: res.IsError}, nil, nil
	})
}

// Serve runs `mnote mcp`: it connects to the app (socket and token from
// the environment, see Entry) and serves MCP on t until the agent closes
// it.
func Serve(ctx context.Context, t mcpsdk.Transport, socket, token, version string) error {
	if socket == "" || token == "" {
		return fmt.Errorf("mcp: %s and %s must be set (mnote starts this command for its agents)", EnvSocket, EnvToken)
	}
	c, err := Dial(ctx, socket, token)
	if err != nil {
		return err
	}
	defer c.Close()
	return NewServer(c, version).Run(ctx, t)
}
