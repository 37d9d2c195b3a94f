// Package collab holds what several accounts, and one account's several
// machines, need to share a product session: the words of the sharing
// contract are kept in its subpackages.
//
//   - A product session is owned by an account and has members with a
//     role (owner, editor, commenter, viewer).
//   - A run (turn) has an actor, the account that sent the prompt, and
//     runs on a runtime binding that belongs to the actor: the actor's
//     own agent on the actor's own machine. Bindings are never shared or
//     copied.
//   - What members see is the projection (package projection): prompts,
//     answers, plans, tool calls as title, kind and status, comments.
//     Tool input and output stay with the actor unless the actor shares a
//     redacted summary; thoughts only if the actor chooses; the contents
//     of the actor's notes never.
//   - The control plane relays the projection sealed (package keys) and
//     the owner's signed membership statements (package roster); it is
//     trusted for liveness and roles, never for content.
package collab
