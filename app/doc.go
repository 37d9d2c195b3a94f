// Package app is the bridge between the UI and mnote's Go services, the
// same in the Wails window and in `mnote serve` (the UI in a browser); its
// contract is API.md in this folder.
//
// Services holds the services (agents, sessions, permissions) and the
// live sessions; Services.Invoke dispatches one call by method name.
// Bridge is the one struct bound into the window: its only exported method
// is Call(method, argsJSON), so the window and the browser share one code
// path and one error shape (*Error). A call's context is the request's in
// `mnote serve` and the services' lifetime in the window (Wails gives bound
// methods none); Shutdown ends the latter. Methods lists the dispatch
// table; tests check it against API.md, and the Go structs against the
// UI's frontend/src/api/types/ (re-exported by types.ts).
//
// Events go out through an Emitter: the link to the window (app/cli), Hub (a
// WebSocket fan-out) in `mnote serve`, Recorder in tests. Each live
// session has one event goroutine that coalesces streamed text and sends
// structural changes at once, in order, numbered by a per-session seq.
//
// Agent processes are pooled (pool.go): the sessions of one agent (same
// command, environment and folder) share a process, up to
// Config.SessionsPerAgent (default 8; 1 gives each session its own). A
// process no session uses stops after Config.AgentIdle (5 min), at most
// Config.MaxAgents (6) run at once (idle ones are stopped to make room,
// else the call fails busy), and all of them stop on Shutdown.
//
// Every agent session gets mnote's notes tools over MCP (mcp.go, package
// mcp): its mcpServers hold `mnote mcp` with the session's own token for
// the services' socket, then the user's config.json context_servers. The
// tools run against that session's folder through its confined agent file
// system; edit_note asks permission through the same broker as the
// agent's requests and writes like fs/write_text_file (buffers,
// file_written record, the turn's checkpoint). Config.MCPCommand names
// the binary (default: this executable).
//
// Agents' questions (ACP elicitation, elicitation.go) wait like
// permission requests, one at a time per session; elicitations.answer
// checks an accepted answer against the question's schema and refuses one
// that does not fit, so only fitting values reach the agent. A cancelled
// turn, a closed session or the agent's $/cancel_request answers a waiting
// one "cancel". agents.listSessions and sessions.import (import.go) bring
// an agent's own session in through session/load as a new session,
// recorded like any other; an import that cannot load leaves nothing.
package app
