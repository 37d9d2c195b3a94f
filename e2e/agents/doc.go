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
// commands (qwen, opencode, reasonix); MNOTE_E2E_NO_NETNS=1 runs them on the
// host's loopback even where a network namespace could be made.
package agents
