// Command mnote-testagent is a scriptable Agent Client Protocol (ACP) agent
// for integration tests of mnote's ACP client.
//
// It speaks JSON-RPC 2.0 over stdin/stdout, one JSON object per line, ACP
// schema version 1, and does exactly what a scenario tells it. Output is
// deterministic apart from session ids ("ta-" + 16 random hex digits).
//
// Usage:
//
//	mnote-testagent [--scenario FILE] [--scenario-json JSON] [--state DIR]
//
// MNOTE_TESTAGENT_SCENARIO (a scenario file) and MNOTE_TESTAGENT_STATE (a
// state directory) are used when the corresponding flag is absent. When both
// a file and inline JSON are given, the JSON keys are overlaid on the file's.
// MNOTE_TESTAGENT_DEBUG=1 enables debug diagnostics (log/slog) on stderr.
// Without a scenario every turn echoes the prompt text back as one
// agent_message_chunk "echo: <text>" (text blocks joined by "\n"), then a
// line "image <mimeType> <N> bytes" for each image block (N: the size of
// its decoded data).
//
// # Scenario
//
// A JSON object; unknown keys are rejected. Defaults in parentheses.
//
//	agentInfo           raw object for initialize (mnote-testagent / mnote test agent / 0.1.0)
//	protocolVersion     int (1)
//	promptCapabilities  raw object ({"image":true,"audio":true,"embeddedContext":true})
//	initializeDelayMs   sleep before answering initialize (0)
//	sessionNewDelayMs   sleep before answering session/new (0)
//	loadSession         advertise and serve session/load (true)
//	resume              advertise sessionCapabilities.resume and serve session/resume (false)
//	fork                advertise sessionCapabilities.fork and serve session/fork: a
//	                    new session with the forked one's history (its state file
//	                    copied) and turn counter (false)
//	close               advertise sessionCapabilities.close and serve session/close:
//	                    the running turn is cancelled and the session forgotten
//	                    by the process (its state stays for session/load) (false)
//	delete              advertise sessionCapabilities.delete and serve
//	                    session/delete: the session and its state files are
//	                    removed (false)
//	logout              advertise agentCapabilities.auth.logout and serve logout:
//	                    the login is forgotten and authFile removed (false)
//	                    (close, delete and logout calls are noted on stderr and
//	                    appended to <state>/calls.log, lifecycle.go)
//	authMethods         raw array echoed by initialize ([])
//	authRequired        session/new, session/load and session/resume fail with
//	                    -32000 "Authentication required" until authenticate (false)
//	authFile            authenticate (with one of authMethods' ids, else -32602)
//	                    writes this file; while it exists no login is needed,
//	                    in any process ("")
//	sessionNewResult    raw object merged into the session/new result (modes,
//	                    configOptions, models); load/resume answer with its
//	                    modes, configOptions and models
//	models              offer the models "fast" and "deep" in one of the two
//	                    shapes agents use (models.go): "config", a select
//	                    config option of category "model", or "legacy", the
//	                    "models" field and session/set_model ("": neither);
//	                    flag -models overrides it
//	ignoreCancel        ignore session/cancel (false)
//	additionalDirectories  offer sessionCapabilities.additionalDirectories (false)
//	exitOnStdinClose    exit 0 on stdin EOF; false keeps running (true)
//	ignoreSigterm       ignore SIGTERM and SIGINT (false)
//	stopReadingAfter    method name: after answering it, read no more input ("")
//	stderrAtStart       text written to stderr at start, newline added ("")
//	turns               array of step arrays: turn N of a session runs turns[N],
//	                    or the last one when N >= len(turns)
//	load                steps run by session/load before the replay
//
// A prompt whose first text block starts (after trimming) with '[' is a
// step array for that turn; one starting with '{' is {"steps": [...]}.
// Invalid inline steps answer session/prompt with -32602.
//
// # Steps
//
// Each step is an object with exactly one action key:
//
//	{"message": "t", "chunk": N}     agent_message_chunk(s); chunk splits into
//	                                 pieces of at most N bytes, UTF-8 safe
//	{"thought": "t", "chunk": N}     agent_thought_chunk(s)
//	{"userMessage": "t", "chunk": N} user_message_chunk(s)
//	{"toolCall": {...}}              tool_call; the object's fields follow "sessionUpdate"
//	{"toolCallUpdate": {...}}        tool_call_update, likewise
//	{"plan": [entries]}              plan
//	{"usage": {...}}                 usage_update
//	{"update": {...}}                the raw update object
//	{"title": "t"}                   session_info_update (also the session/list title)
//	{"notify": {"method", "params"}} any notification ("$sessionId" as a value
//	                                 in params is the session's id)
//	{"raw": "text"}                  text + "\n" written verbatim to stdout
//	{"hugeMessage": N}               one agent_message_chunk of N 'x' bytes
//	{"flood": N, "mix": "chunks"|"bench", "progressFile": "path"}
//	                                 N pre-encoded updates; see flood.go
//	{"permission": {"toolCall", "options"}}
//	                                 session/request_permission, then
//	                                 "permission: selected <id>" or
//	                                 "permission: cancelled" (ends the turn,
//	                                 stopReason cancelled) or
//	                                 "permission error: <code> <message>"
//	                                 (withdraw: true sends $/cancel_request for
//	                                 it right after it)
//	{"elicit": {"message", "requestedSchema", "mode", "withdraw"}}
//	                                 elicitation/create for the session (mode
//	                                 "form" by default; withdraw as above), then
//	                                 "elicit: accept <content>", "elicit:
//	                                 decline", "elicit: cancel" or "elicit
//	                                 error: <code> <message>"
//	{"readFile": {"path", "line", "limit"}}
//	                                 fs/read_text_file, then "read: <content>"
//	                                 or "read error: <code> <message>"
//	{"writeFile": {"path", "content"}}
//	                                 fs/write_text_file, then "write: ok" or
//	                                 "write error: <code> <message>"
//	{"request": {"method", "params"}}
//	                                 any request, then "request <m>: ok <json>"
//	                                 or "request <m>: error <code> <message>"
//	{"sleepMs": N}                   sleep (a cancel interrupts it): the turn
//	                                 sends nothing meanwhile, the silent step
//	                                 the client's no-output watchdog is tested with
//	{"stderr": "t"}                  t + "\n" to stderr
//	{"envSha256": "NAME"}            "env NAME sha256: <hex>" (the SHA-256 of
//	                                 the variable's value, never the value) or
//	                                 "env NAME: unset"
//	{"terminal": {"name", "command", "args", "cwd", "env", "outputByteLimit", "toolCallId"}}
//	                                 terminal/create (env: [{"name","value"}]);
//	                                 name (default "t") names it for the steps
//	                                 below; with toolCallId a tool_call (kind
//	                                 execute) showing the terminal follows;
//	                                 then "terminal NAME: created" or
//	                                 "terminal NAME error: <code> <message>"
//	{"terminalOutput": "NAME"}       terminal/output, "terminal NAME output: <json>"
//	{"terminalWait": "NAME"}         terminal/wait_for_exit, "terminal NAME exit:
//	                                 <json>" (and the tool call completed or failed)
//	{"terminalKill": "NAME"}         terminal/kill, "terminal NAME: killed"
//	{"terminalRelease": "NAME"}      terminal/release, "terminal NAME: released"
//	{"mcpCall": {"server", "tool", "args", "env"}}
//	                                 start the stdio mcpServers entry named
//	                                 server (once per session; env overrides
//	                                 its variables, on a connection of its
//	                                 own) with the Go MCP SDK's client, call
//	                                 tool, then "mcp <tool>: <text>", "mcp
//	                                 <tool> error: <text>" (a tool error) or
//	                                 "mcp <tool> failed: <error>"
//	{"crash": CODE}                  flush stdout, "crashing with CODE" to stderr, exit
//	{"waitForCancel": true}          block until session/cancel (forever with ignoreCancel)
//	{"stop": "reason"}               end the turn with that stop reason
//	{"error": {"code", "message", "data"}}
//	                                 answer session/prompt with that error
//
// A session/cancel stops the steps at the next step boundary and the turn
// answers stopReason "cancelled"; pending requests keep waiting for the
// client's answer. A $/cancel_request from the client for a session/load
// whose load steps run stops them and answers it -32800 (every one is
// noted on stderr as "cancel_request <id>").
//
// # State
//
// With a state directory every session/update sent during prompt turns
// (and set_mode) is appended to <state>/<sessionId>.jsonl, preceded per
// prompt by one user_message_chunk per prompt content block (the block as
// the client sent it). <state>/<sessionId>.meta.json keeps cwd, title and
// the turn counter. session/load runs the load steps (not recorded), replays
// the file as session/update notifications, and answers; this works in a
// later process too, and the turn counter continues.
package main
