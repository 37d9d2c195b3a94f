package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mnote/mcp"
)

// echo answers every call with its name, its tool and its arguments.
type echo struct{ name string }

func (e echo) CallTool(_ context.Context, tool string, args json.RawMessage) (mcp.Result, error) {
	return mcp.Result{Text: e.name + " " + tool + " " + string(args)}, nil
}

// blocker says it started, waits for the call's context to end and
// reports it.
type blocker struct{ started, ended chan error }

func (b blocker) CallTool(ctx context.Context, _ string, _ json.RawMessage) (mcp.Result, error) {
	b.started <- nil
	<-ctx.Done()
	b.ended <- ctx.Err()
	return mcp.Result{}, ctx.Err()
}

func listen(t *testing.T) *mcp.Host {
	t.Helper()
	h, err := mcp.Listen(filepath.Join(t.TempDir(), "s"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func register(t *testing.T, h *mcp.Host, hd mcp.Handler) string {
	t.Helper()
	tok, err := h.Register(hd)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// The socket is private (0600 in a 0700 folder); a token the host did not
// give, or one revoked, is refused; each token reaches its own session's
// handler only, whatever the calls say.
func TestHostTokens(t *testing.T) {
	h := listen(t)
	st, err := os.Stat(h.Socket())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 || st.Mode().Type() != os.ModeSocket {
		t.Errorf("socket mode %v", st.Mode())
	}
	if dst, err := os.Stat(filepath.Dir(h.Socket())); err != nil || dst.Mode().Perm() != 0o700 {
		t.Errorf("socket folder: %v %v", dst.Mode(), err)
	}
	a := register(t, h, echo{"A"})
	b := register(t, h, echo{"B"})
	if a == b || len(a) != 64 {
		t.Fatalf("tokens %q %q", a, b)
	}
	ctx := t.Context()
	for _, bad := range []string{"", "x", strings.Repeat("0", 64), a[:63], a + "0", strings.ToUpper(a)} {
		if c, err := mcp.Dial(ctx, h.Socket(), bad); !errors.Is(err, mcp.ErrRefused) {
			if c != nil {
				c.Close()
			}
			t.Errorf("token %q: %v, want refused", bad, err)
		}
	}
	ca, err := mcp.Dial(ctx, h.Socket(), a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	cb, err := mcp.Dial(ctx, h.Socket(), b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	for c, want := range map[*mcp.Client]string{ca: "A", cb: "B"} {
		// Arguments naming the other session change nothing: the
		// connection's token decides.
		res, err := c.Call(ctx, mcp.ToolReadNote, json.RawMessage(`{"session":"A","token":"`+b+`"}`))
		if err != nil || !strings.HasPrefix(res.Text, want+" read_note ") {
			t.Errorf("session %s answered %q, %v", want, res.Text, err)
		}
	}
	h.Unregister(a)
	if _, err := ca.Call(ctx, mcp.ToolReadNote, nil); err == nil {
		t.Error("a call on a revoked token's connection ran")
	}
	if _, err := mcp.Dial(ctx, h.Socket(), a); !errors.Is(err, mcp.ErrRefused) {
		t.Errorf("a revoked token: %v", err)
	}
	if res, err := cb.Call(ctx, mcp.ToolSearchNotes, nil); err != nil || !strings.HasPrefix(res.Text, "B search_notes") {
		t.Errorf("session B after A's revocation: %q %v", res.Text, err)
	}
}

// A connection that sends no hello, or garbage, gets nothing and is
// closed; a client that goes away ends its running calls.
func TestHostClosesBadConnections(t *testing.T) {
	h := listen(t)
	started, ended := make(chan error, 1), make(chan error, 1)
	tok := register(t, h, blocker{started, ended})
	conn, err := net.Dial("unix", h.Socket())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("{\"id\":1,\"tool\":\"read_note\"}\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256)
	n, _ := conn.Read(buf)
	if !strings.Contains(string(buf[:n]), "refused") {
		t.Errorf("a request without a hello got %q", buf[:n])
	}
	if _, err := conn.Read(buf); err == nil {
		t.Error("the connection stayed open")
	}
	conn.Close()

	c, err := mcp.Dial(t.Context(), h.Socket(), tok)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() { _, _ = c.Call(ctx, mcp.ToolEditNote, nil) }()
	<-started // the call is running in the handler: closing the client ends it
	c.Close()
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the running call ended with %v", err)
	}
}

// Entry is the ACP stdio mcpServers entry, the secret in env only.
func TestEntry(t *testing.T) {
	var e struct {
		Name, Command string
		Args          []string
		Env           []struct{ Name, Value string }
	}
	if err := json.Unmarshal(mcp.Entry("mnote", "/bin/mnote", "/s.sock", "tok"), &e); err != nil {
		t.Fatal(err)
	}
	if e.Name != "mnote" || e.Command != "/bin/mnote" || len(e.Args) != 1 || e.Args[0] != "mcp" || len(e.Env) != 2 ||
		e.Env[0].Name != mcp.EnvSocket || e.Env[0].Value != "/s.sock" || e.Env[1].Name != mcp.EnvToken || e.Env[1].Value != "tok" {
		t.Errorf("entry %+v", e)
	}
}

// recorder keeps the calls forwarded to it.
type recorder struct{ calls chan string }

func (r recorder) Call(_ context.Context, tool string, args json.RawMessage) (mcp.Result, error) {
	r.calls <- tool + " " + string(args)
	if tool == mcp.ToolEditNote {
		return mcp.Errorf("rejected"), nil
	}
	return mcp.Result{Text: "ok"}, nil
}

// `mnote mcp`'s server offers the tools with their schemas and forwards
// each call with its arguments as given; a tool's error reaches the model
// as a tool error.
func TestServerForwardsCalls(t *testing.T) {
	rec := recorder{make(chan string, 4)}
	st, ct := mcpsdk.NewInMemoryTransports()
	ctx := t.Context()
	ss, err := mcp.NewServer(rec, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		schema, _ := json.Marshal(tl.InputSchema)
		if tl.Name == mcp.ToolEditNote && (!strings.Contains(string(schema), `"content"`) || tl.Annotations != nil && tl.Annotations.ReadOnlyHint) {
			t.Errorf("edit_note: %s %+v", schema, tl.Annotations)
		}
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(mcp.Names()))
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: mcp.ToolSearchNotes, Arguments: map[string]any{"query": "cache", "limit": 3}})
	if err != nil || res.IsError {
		t.Fatalf("search_notes: %v %+v", err, res)
	}
	if got := <-rec.calls; got != `search_notes {"query":"cache","limit":3}` {
		t.Errorf("forwarded %s", got)
	}
	res, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: mcp.ToolEditNote, Arguments: map[string]any{"path": "a.md", "content": "x"}})
	if err != nil || !res.IsError || res.Content[0].(*mcpsdk.TextContent).Text != "rejected" {
		t.Fatalf("edit_note: %v %+v", err, res)
	}
	<-rec.calls
	// Arguments that do not fit the schema never reach mnote.
	if res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: mcp.ToolReadNote, Arguments: map[string]any{"path": 7}}); err == nil && !res.IsError {
		t.Errorf("a bad argument was accepted: %+v", res)
	}
	select {
	case got := <-rec.calls:
		t.Errorf("forwarded %s", got)
	default:
	}
}
