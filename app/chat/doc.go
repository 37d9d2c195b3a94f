// Package chat is the product session: one conversation the user sees, with
// its own id, its thread, its transcript, and one or more runtime bindings
// (an agent process plus the agent's session id). It joins acp (the agent),
// thread (the model) and store (the transcript and index) and is what the
// window, `mnote serve` and `mnote prompt` all drive.
//
// Every line the agent sends is appended raw to the transcript before it is
// applied to the thread, so what is on disk is always at least what was
// shown. A transcript write that fails stops the turn with an error naming
// the file: a session never carries on in memory only. The one exception
// to "raw": the env and header values of the mcpServers mnote sends (the
// notes tools' token, the user's servers' keys) are recorded [redacted].
package chat
