// Command mcpecho is a user's MCP server for mnote's tests: over stdio it
// offers one tool, env_sha256, that answers the SHA-256 of an environment
// variable's value (never the value) or "unset".
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type args struct {
	Name string `json:"name"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpecho", Version: "0.1.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "env_sha256", Description: "SHA-256 of an environment variable"},
		func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
			v, ok := os.LookupEnv(a.Name)
			text := "unset"
			if ok {
				sum := sha256.Sum256([]byte(v))
				text = hex.EncodeToString(sum[:])
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
