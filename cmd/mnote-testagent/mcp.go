package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpCallStep is {"mcpCall": {...}}: start (once per session and server)
// the stdio MCP server named server among the session's mcpServers with
// the official Go SDK's client, call tool with args, and say
// "mcp <tool>: <text>", "mcp <tool> error: <text>" (a tool error) or
// "mcp <tool> failed: <err>". env overrides variables of the entry (a
// wrong token, say); such a call uses a connection of its own.
type mcpCallStep struct {
	Server string            `json:"server"`
	Tool   string            `json:"tool"`
	Args   json.RawMessage   `json:"args"`
	Env    map[string]string `json:"env,omitempty"`
}

// mcpServer is one ACP stdio mcpServers entry.
type mcpServer struct {
	Name    string   `json:"name"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Env     []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"env"`
}

// setMCPServers keeps the mcpServers of a session/new, load or resume.
func (s *session) setMCPServers(params json.RawMessage) {
	var p struct {
		McpServers []mcpServer `json:"mcpServers"`
	}
	_ = json.Unmarshal(params, &p)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mcpServers = p.McpServers
}

// mcpTimeout bounds one mcpCall (the start of the server included).
const mcpTimeout = 60 * time.Second

func (t *turn) mcpCall(st *mcpCallStep) {
	res, err := t.s.callMCP(st)
	switch {
	case err != nil:
		t.say(fmt.Sprintf("mcp %s failed: %v", st.Tool, err))
	case res.IsError:
		t.say(fmt.Sprintf("mcp %s error: %s", st.Tool, mcpText(res)))
	default:
		t.say(fmt.Sprintf("mcp %s: %s", st.Tool, mcpText(res)))
	}
}

func mcpText(res *mcpsdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (s *session) callMCP(st *mcpCallStep) (*mcpsdk.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), mcpTimeout)
	defer cancel()
	cs, fresh, err := s.mcpSession(ctx, st)
	if err != nil {
		return nil, err
	}
	if fresh {
		defer cs.Close()
	}
	var args any = map[string]any{}
	if len(st.Args) > 0 {
		args = st.Args
	}
	return cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: st.Tool, Arguments: args})
}

// mcpSession is the session's client of the server, started on first use;
// fresh says it is a one-off (env overrides) the caller closes.
func (s *session) mcpSession(ctx context.Context, st *mcpCallStep) (*mcpsdk.ClientSession, bool, error) {
	s.mu.Lock()
	var srv *mcpServer
	for i := range s.mcpServers {
		if s.mcpServers[i].Name == st.Server {
			srv = &s.mcpServers[i]
		}
	}
	cached := s.mcpClients[st.Server]
	s.mu.Unlock()
	if srv == nil {
		return nil, false, fmt.Errorf("the client sent no mcpServers entry %q", st.Server)
	}
	if cached != nil && len(st.Env) == 0 {
		return cached, false, nil
	}
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env = os.Environ()
	for _, e := range srv.Env {
		if v, ok := st.Env[e.Name]; ok {
			cmd.Env = append(cmd.Env, e.Name+"="+v)
			continue
		}
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.Stderr = os.Stderr
	c := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "mnote-testagent", Version: "0.1.0"}, nil)
	cs, err := c.Connect(ctx, &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, false, fmt.Errorf("start %s: %w", srv.Name, err)
	}
	if len(st.Env) > 0 {
		return cs, true, nil
	}
	s.mu.Lock()
	if s.mcpClients == nil {
		s.mcpClients = map[string]*mcpsdk.ClientSession{}
	}
	s.mcpClients[st.Server] = cs
	s.mu.Unlock()
	return cs, false, nil
}
