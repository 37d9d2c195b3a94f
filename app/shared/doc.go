// Package shared is the window's side of shared sessions: the app's
// methods for members, devices and comments (API.md "Shared sessions"),
// the live stream of a shared session open in the window, and the turn
// a member runs on their own agent under the session's lease. It drives
// the engine in package collab/client and keeps no state of its own
// besides what that keeps (Dir) and the local transcript.
//
// # The contract's words
//
//   - A session shared with members has an owner and members with roles:
//     owner, editor (runs turns), commenter (adds comments), viewer
//     (reads). Only the owner adds, changes and revokes members; the
//     methods say so (ReasonNotOwner) and the control plane refuses it too.
//   - A run (turn) has an actor, the account that sent the prompt; it
//     runs on this machine's own agent (the caller's runtime binding)
//     while this machine holds the session's lease. A second prompt
//     waits in the queue, and everyone sees the queue (events "lease").
//   - What members see of a run is its projection: prompts, answers, tool
//     calls as title, kind and status, plans, comments. The agent's tool
//     input and output never leave this machine (client.Projector). Its
//     thoughts and a summary of each tool call do when the actor chooses
//     so for the turn (Share, sent with the prompt).
//   - This machine's own turns are linked to their runs in the transcript
//     (State.Runs, events "run"): the window shows them from the thread,
//     in full, and other members' turns as their projection.
//
// # Which context this machine's agent gets
//
// client.ContextFor: when the agent already holds the session (it was
// loaded or resumed), the turns run elsewhere since this machine's last
// prompt; otherwise every earlier turn of the projection, given after the
// typed prompt.
//
// # The live stream and the transcript
//
// While a shared session is open in the window (State, a turn), the
// session's live stream is followed: every entry is recorded in the
// session's transcript by sequence number (store.AppendSharedEntries,
// nothing twice) and sent to the page as a "shared:event" of type
// "entry" carrying its actor; the lease and its queue, and presence, as
// events of their own; a member who is revoked gets type "revoked".
//
// # Invariant 9
//
// A turn in a shared session needs the control plane: Check refuses a
// prompt before anything reaches the agent when the control plane cannot
// be reached or the role does not allow running, so the page keeps the
// prompt; a run whose appends fail later is cancelled and fails visibly.
package shared
