// Package thread is the domain model of one chat session with an agent.
//
// A Thread applies ACP session/update notifications (decoded into Update by
// the ACP reader), the client's own prompts and the permission round trips to
// an ordered list of entries: user messages, assistant messages, thoughts,
// tool calls and plans. Entries are addressed by stable ids ("e1", "e2", ...),
// never by index; tool calls can also be looked up by their ACP toolCallId.
//
// Every mutating method returns the Change(s) it made so a UI can patch its
// copy without re-reading the thread:
//
//   - Op "upsert": the entry EntryID was created or changed; read it with
//     Thread.Entry. Creating an entry closes the entry that was streaming
//     before it (if any), without a separate change.
//   - Op "append": Delta is the text appended to the streaming entry EntryID.
//   - Op "meta": session state (Kind names it: usage, mode, ...) changed;
//     read it with Thread.Snapshot.
//   - Op "": nothing changed.
//
// Streaming rules: consecutive chunks of the same kind append to the open
// entry; a chunk whose messageId differs from the open entry's starts a new
// one; any new entry in between (a tool call, a plan, another kind of chunk)
// closes it. Updates to existing tool calls, usage and other session state do
// not close it. Empty text chunks add nothing (Qwen sends them to carry token
// counts in _meta.usage, which are kept as usage).
//
// Tool calls are merged by toolCallId: fields present in a tool_call_update
// replace the call's (content and locations are replaced whole, per the
// spec); absent fields are kept. A tool_call_update or permission request
// for an unknown id creates the call, and so does one for an id last used
// in an earlier turn (agents restart their numbering).
//
// Replay (ACP session/load): between BeginReplay and EndReplay, updates that
// would create or change entries are dropped when the thread already had
// entries (it was rebuilt from mnote's own transcript), and build the thread
// normally when it was empty (a session created outside mnote). Session
// state updates (commands, mode, config options, session info, usage_update)
// replace whole values and cannot duplicate anything, so they are always
// applied.
//
// Agent notifications other than session/update that carry session state
// go through ApplyNotification: Reasonix's _reasonix.io/session/status_update
// gives the prompt-cache figures of the turn and the session (Usage.Cache),
// which replace the previous ones and are cleared for the turn when a new
// turn starts.
//
// Terminals (ACP terminal/create) are kept beside the entries, by terminal
// id: the command, its folder, its output (the last MaxTerminalOutput
// bytes, cut at a character boundary), its exit and whether it was
// released. Tool calls show them through content of type "terminal". Their
// changes have Op "terminal" (EntryID is the terminal id, Delta the output
// added); Snapshot lists them, Meta does not.
//
// A Thread is not safe for concurrent use; its owner serializes calls. What
// the read methods return are deep copies that may be handed to another
// goroutine. Raw JSON kept on entries must be treated as read-only.
//
// The hot path (text chunks) decodes {"type":"text","text":...} blocks with
// a small allocation-light scanner and falls back to encoding/json for
// anything else.
package thread
