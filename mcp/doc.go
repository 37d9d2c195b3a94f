// Package mcp is mnote's notes tools offered to agents over the Model
// Context Protocol (MCP), in two halves joined by a private channel:
//
//   - Host runs inside the app. It listens on a unix socket (mode 0600, in
//     a folder of mode 0700) and gives every live agent session a random
//     token (Register). A connection must present a registered token in
//     its first line, compared in constant time; anything else is refused
//     and the connection closed. The token names the session: every call
//     on that connection runs against that session's Handler, so an agent
//     can never act for another session. Unregister revokes the token and
//     ends its connections. There is no TCP port.
//   - Serve runs in `mnote mcp`, the process an agent starts from the
//     mcpServers entry mnote gives it (Entry: the running mnote binary,
//     the socket and token in its environment, never in argv). It speaks
//     MCP over stdio with the official Go SDK and forwards every tool call
//     over the socket; it holds no state and reads no files itself.
//
// The channel is one JSON object per line: the hello {"token"} answered
// {"ok":true} or {"error"}, then requests {"id","tool","args"} answered
// {"id","text","isError"} or {"id","error"} in any order (calls run
// concurrently; edit_note may wait for the user's permission).
//
// What a client can make the host hold is bounded (Limits, conn.go): the
// connections open, those still to present a token (closed after
// HelloTimeout) and each token's; the calls each connection runs (the
// host reads no more of its requests meanwhile); and the bytes in flight,
// one budget for all connections that each call holds from its request to
// its answer sent, so that however many calls arrive, only as many run as
// their answers fit. An answer over the channel's line is an error that
// says to ask for less; a client that does not take its answers is
// closed. Refused connections are logged at most once a minute, with the
// count of those not logged.
//
// The tools (Names; their arguments are the *Args types) take
// workspace-relative paths; the Handler resolves them through the
// session's confined agent file system, so the tools reach exactly what
// fs/read_text_file and fs/write_text_file reach.
package mcp
