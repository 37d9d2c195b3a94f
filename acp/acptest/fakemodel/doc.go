// Package fakemodel is a scripted, OpenAI-compatible chat model server for
// tests: published ACP agents (Qwen Code, OpenCode, Reasonix) run against it
// with no network but loopback, and the test checks what they asked.
//
// It serves, on a loopback address only:
//
//   - POST /v1/chat/completions and /chat/completions, streamed (SSE "data:"
//     chunks ending with "data: [DONE]") or not;
//   - GET /v1/models and /models.
//
// What it answers is decided per request from the conversation so far (see
// Script): for a request that offers tools, the turn goes a thought and a
// call of the agent's read tool for Script.File, then a thought and a call
// of its edit (or write) tool appending Script.Append to that file, then a
// thought and the final answer. Tool names and argument names are taken
// from the request's "tools" (read_file/read, edit/edit_file, write_file,
// with file_path/filePath/path, old_string/oldString, ...), so one script
// works for every agent. A request without tools (a session title, a
// follow-up suggestion) gets Script.SideAnswer.
//
// Every response carries the standard usage (prompt_tokens,
// completion_tokens, total_tokens, completion_tokens_details.reasoning_tokens)
// and DeepSeek's prompt_cache_hit_tokens / prompt_cache_miss_tokens
// (prompt_tokens is their sum). The cache figures follow a simulated
// prefix cache kept the way DeepSeek documents its own: the longest prefix
// of this request's prompt that any earlier request to the same server
// sent, counted in whole units of 64 tokens (CacheUnit). The prompt is the
// system message(s), the tool definitions, then the other messages
// (promptText), and tokens are split by Tokens: a run of ASCII letters and
// digits is one token, every other character one token. Request.CacheDiverged
// says where a prompt rewrote an earlier one instead of extending it.
//
// Every request is logged (Server.Requests, and Options.LogFile as JSON
// lines), including those answered 401 (Script.APIKey set and not sent, or
// Server.SetUnauthorized) and those that stall (a prompt containing
// Script.StallMarker streams a thought and then waits until the client goes
// away, for cancel tests).
//
// cmd/mnote-fakemodel runs it as a program, optionally as the parent of an
// agent process (so both can share a private network namespace).
package fakemodel
