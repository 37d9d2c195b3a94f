// Package acp runs agents that speak the Agent Client Protocol (JSON-RPC 2.0,
// one JSON object per line on the agent's stdin and stdout) and talks to them.
//
// It owns everything about agent processes: spawning them in their own session
// (package procguard: nothing of it outlives mnote, even a killed one) with
// stderr captured, stopping them gracefully (session/cancel, close
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
//   - an agent→client request is dispatched (and recorded) on the reader
//     goroutine, in wire order, after every line before it was handled; it
//     then runs on its own goroutine, so a permission dialog never stalls
//     other sessions of the same process. A session's permission requests
//     run one at a time, in the order they arrived (the user is asked the
//     first one first); its fs/* requests are not held behind them.
//   - lines up to MaxLine (64 MiB by default) are delivered; a longer one is
//     skipped with a clear error and the connection carries on.
//   - malformed lines, unknown methods and unknown update kinds are reported
//     raw to the session (so the transcript keeps them) and never misread.
//   - every write has a deadline; an agent that stops reading is killed.
//   - stderr is always drained: its tail is kept in memory and it is logged
//     to a rotated, size-capped file set (ProcSpec.LogFile) by a writer of
//     its own that drops the oldest unwritten bytes rather than wait.
//   - session/request_permission and elicitation/create (form mode) wait
//     in one queue per session, asked one at a time in arrival order; a
//     turn's cancel, the session's close or the agent's $/cancel_request
//     for one answers it as cancelled (outcome "cancelled", action
//     "cancel"). An accepted elicitation is checked against its schema
//     before it is sent (ValidateContent).
//   - a call mnote gives up on (its context ends) is withdrawn with
//     $/cancel_request; the late answer is still recorded.
//   - fs/* requests go to the session's FileSystem (confinement is its
//     owner's: mnote's is the workspace package); a session without one
//     refuses them all. There is no fallback confinement here.
//   - terminal/* requests (terminal.go; offered in initialize, with
//     auth.terminal) run the command in a pseudo-terminal, in a session and
//     process group of its own, in a folder beneath the session's cwd,
//     opened by the session's FS when it opens folders (DirOpener: the
//     workspace's, with the rules and denied folders of fs/*), else through
//     os.Root (no "..", no symlink out); refused and reported otherwise. It
//     runs with the agent's environment plus the request's.
//     Output keeps the last outputByteLimit bytes (default
//     DefaultTerminalOutput), cut at a character boundary; exits report the
//     code or the signal name. Kill SIGKILLs the command's process group;
//     release and the session's end SIGKILL the command's whole session
//     (and the descendants of its processes) and wait until none of it
//     runs; a child that left the session (setsid) and its parent is out
//     of reach, but never makes release hang. A session without a
//     TerminalConfig refuses them all.
package acp
