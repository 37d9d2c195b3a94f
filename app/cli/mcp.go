package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/signal"
	"syscall"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mnote/mcp"
)

// runMCP is `mnote mcp`: the notes tools served over MCP on stdin and
// stdout, each call forwarded to the running mnote that started the agent
// (MNOTE_MCP_SOCKET and MNOTE_MCP_TOKEN, set in the agent's mcpServers
// entry). It is not meant to be run by hand.
func (e *env) runMCP(args []string) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		io.WriteString(e.stderr, "usage: mnote mcp\n\nServes mnote's notes tools over MCP (stdio) to an agent mnote started;\n"+
			"the socket and token come from "+mcp.EnvSocket+" and "+mcp.EnvToken+".\n")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		return e.usageErr("mcp takes no arguments")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t := &mcpsdk.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	err := mcp.Serve(ctx, t, os.Getenv(mcp.EnvSocket), os.Getenv(mcp.EnvToken), Version)
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return e.fail(1, err)
	}
	return exitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
