// Package acp runs agents that speak the Agent Client Protocol (JSON-RPC 2.0,
// one JSON object per line on the agent's stdin and stdout) and talks to them.
//
// It owns everything about agent processes: spawning them in their own process
// group with stderr captured, stopping them gracefully (session/cancel, close
// stdin, SIGTERM, SIGKILL) and detecting their exit at once; the JSON-RPC
// connection; and the handlers for agent→client requests (permission, fs).
//
// The connection is written here on top of the types of
// github.com/coder/acp-go-sdk rather than using that SDK's connection, whose
// notification queue closes the connection under load, caps lines at 10 MiB
// and reorders requests ahead of updates. The guarantees this package keeps:
//
//   - session/update lines are decoded and handed to the session's handler on
//     the reader goroutine, one at a time, in wire order. A slow handler slows
//     the agent through the pipe (backpressure); nothing is queued or dropped.
//   - an agent→client request is dispatched only after every line before it
//     was handled, then runs on its own goroutine so a permission dialog never
//     stalls other sessions of the same process.
//   - lines up to MaxLine (64 MiB by default) are delivered; a longer one is
//     skipped with a clear error and the connection carries on.
//   - malformed lines, unknown methods and unknown update kinds are reported
//     raw to the session (so the transcript keeps them) and never misread.
//   - every write has a deadline; an agent that stops reading is killed.
//   - stderr is always drained: its tail is kept in memory and it is logged
//     to a rotated, size-capped file set (ProcSpec.LogFile) by a writer of
//     its own that drops the oldest unwritten bytes rather than wait.
//   - fs/* requests go to the session's FileSystem (confinement is its
//     owner's: mnote's is the workspace package); a session without one
//     refuses them all. There is no fallback confinement here.
package acp
