// Package client is the client side of shared sessions: what one machine
// does with the control plane (package controlplane/api), its own device
// key (package collab/keys) and the signed rosters and device lists
// (package collab/roster) so that several accounts, and one account's
// several machines, share a product session that the server cannot read.
//
// # The contract's words
//
//   - A product session (here: session) is owned by an account and has
//     members, each with a role: owner, editor (runs turns), commenter
//     (adds comments), viewer (reads). Only the owner's devices sign
//     membership changes (Share, SetMember, RemoveMember); every client
//     verifies the chain before it trusts a member, a role or a key.
//   - A run (turn) has an actor, the account that sent the prompt, and
//     runs on a runtime binding that belongs to the actor: the actor's own
//     agent on the actor's own machine. Bindings never travel; only the
//     run's projection does (StartRun, Run.Add, Projector).
//   - The projection (package collab/projection) is what members see of
//     a run: the prompt as typed with the names of the notes it mentions,
//     answers, tool calls as title, kind and status, plans, comments.
//     Tool input and output, thoughts (unless the actor chooses) and the
//     contents of the actor's notes stay on the actor's machine.
//
// # Which context a member's agent gets
//
// A member's own agent rebuilds the conversation from the projection:
//
//   - when the member's agent already holds the session (this machine has
//     a runtime binding for it whose agent can load sessions), the
//     session is continued with session/load, and only the turns run
//     elsewhere (by other members, or on this account's other machines)
//     since this machine's last own turn are given as context;
//   - otherwise (the first turn on this machine, or an agent that cannot
//     load) a new agent session is started and Earlier — the earlier
//     turns of the projection, prompts with their actor and answers, no
//     tool input or output — is given as context in its first prompt.
//
// ContextFor says which.
//
// # Keys and devices
//
// This machine's keys.Device is kept in Dir (0600) and made on first use.
// The account's first device starts its device list (Register); a later
// machine joins by pairing (Pair on a machine already listed, Join on the
// new one): both show the same 12-digit code, the person confirms it on
// both, the listed device signs the new one into the list and sends it a
// bundle of every epoch key it holds. Other accounts' device lists are
// pinned on first use (roster.Pins): a device the account's own devices
// signed in passes; a list that does not continue the pinned one blocks
// wrapping keys for, and running turns with, that account until
// AcceptKeys.
//
// Each epoch of a session has a content key, wrapped by an owner device
// for every device of every member; removing a member or a device starts a
// new epoch wrapped only for the devices that remain (a member's removed
// device: at the owner's next turn, when its client sees the device gone
// from the member's list).
//
// # The shared log and the local transcript
//
// Fetch and Follow return the log's entries opened (Opened): the author's
// device must be one of a member's verified devices, its account the
// entry's actor, the sealed header the log's session, epoch, seq and kind.
// An entry that cannot be opened is returned with Unreadable set — shown
// as such, never dropped. The machine's JSONL transcript stays the source
// of truth: the caller records the opened entries there by seq
// (store.AppendSharedEntries), so syncing again records nothing twice.
//
// A run needs the control plane (the lease, the log): StartRun waits for
// the lease (its queue position is reported), appends the prompt, and the
// Run appends the projection as it comes (answers coalesced to about ten
// appends a second) and heartbeats the lease; a control-plane failure
// fails the run (Run.Err) and never leaves a silent local-only turn.
package client
