// Package projection is what the members of a shared session see of a
// run: the part of a session's thread that leaves the actor's machine
// (sealed for the members' devices). Everything else stays with the
// actor.
//
// An entry of the projection is one of:
//
//   - prompt: the text the actor typed, and the names of the notes it
//     mentions. A mentioned note's contents, a quoted selection, pasted
//     images and the earlier turns mnote may add for the actor's own agent
//     are never part of it: a prompt is projected from what the person
//     typed (Prompt), not from the content blocks the agent was given.
//   - answer: the agent's message text.
//   - thought: only when the actor chooses to share thoughts.
//   - tool: a tool call's title, kind and status; its input, output,
//     locations and diffs stay with the actor (owner_only in the
//     contract) unless the actor shares a redacted summary.
//   - plan: the plan's items.
//   - comment: a member's comment (commenters and up).
//
// Earlier renders projected entries as the compact transcript an agent
// gets as context in its first prompt: a member's own agent rebuilds the
// conversation from the projection, never from another member's private
// tool input or output. Forks use the same transcript.
package projection
