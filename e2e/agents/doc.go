// Package agents holds mnote's offline end-to-end tests against published
// ACP agents: Qwen Code, OpenCode and Reasonix, installed pinned by
// scripts/agents.sh into .cache/agents/.
//
// Each test starts the agent through mnote's own client (the `mnote
// prompt` binary, so transcripts land under MNOTE_HOME), with the agent's
// model endpoint pointed at the scripted fake model server
// (cmd/mnote-fakemodel) on loopback. Where `unshare -rn` works (root in CI)
// the agent and the fake server run together in a private network
// namespace that has only loopback, so the test proves the agent reached
// nothing else. A test runs a full turn (a thought, a read, an edit behind a
// permission request, an answer), checks the Markdown file on disk and the
// transcript, continues the session from a fresh mnote process
// (session/load, no duplicated entries) with a second turn, and cancels a
// third turn mid-way.
//
// The tests skip when the agents are not installed, unless
// MNOTE_E2E_AGENTS=1 (then a missing agent fails); MNOTE_E2E_AGENTS=0 skips
// them always. MNOTE_AGENTS_BIN names another folder holding the agents'
// commands (qwen, opencode, reasonix).
//
// Where no network namespace can be made, a test fails under
// MNOTE_E2E_AGENTS=1 or MNOTE_REQUIRE_ALL=1 (`make test` sets both) rather
// than run the agent on the host's loopback, from where it could reach the
// network; otherwise it runs there and says so in the log.
// MNOTE_E2E_NO_NETNS=1 asks for the host's loopback (even where a
// namespace could be made) and allows it under make test.
package agents
