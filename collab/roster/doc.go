// Package roster is who may read and write a shared session, as every
// client verifies it for itself: the control plane relays the statements
// below but cannot make one, change one, drop one or reorder them without
// every client refusing the result.
//
// # Two kinds of signed chains
//
// Each is a hash chain: statement N carries the SHA-256 of statement N-1
// (its whole encoding, signature included), so dropping, reordering,
// inserting or forking a statement breaks it (ErrBrokenChain). Statements
// are canonical binary encodings (package collab/internal/wire) signed with
// Ed25519 by a device (package keys); the blobs are what the server stores.
//
//   - An account's device list (VerifyDevices → DeviceList): the first
//     statement adds the account's first device and is signed by that
//     device itself — trust on first use, which the Pins store and the
//     safety number (keys.SafetyNumber) make visible. Every later statement
//     is signed by a device already listed: adding a device is what the
//     paired machine signs after the 12 digits matched (keys.PairInitiator),
//     removing one is a statement of any remaining device. A removed device
//     never signs again; every shared session of the account then needs a
//     new epoch (NeedsNewEpoch). The joining machine, which learnt the
//     initiator's DevicePublic from the pairing, checks that the verified
//     list holds both of them before it trusts the rest of the list.
//   - A session roster (Verify → Roster): created by the owner and
//     then extended only by the owner's devices (per the owner's verified
//     device list): add a member with a role, change a member's role,
//     remove a member, start a new epoch. Verification rebuilds the members,
//     their roles and the current epoch. A statement signed by anyone but
//     one of the owner's devices is refused (ErrNotOwnerDevice), so a
//     control plane that adds a member on its own gets nowhere. Which
//     account owns a session is not in the chain's power to prove: the
//     client learns it with the invitation and passes that account's list.
//     Roster.KeyWrapper says whether an envelope's sender may hand out
//     epoch keys (an owner device); Roster.Author finds the member, role
//     and device key of an entry's author device, for keys.Open. The
//     statements that start an epoch (create, new_epoch) carry a
//     commitment to its key (keys.EpochKey.Commitment), and only they do:
//     a member checks the key it unwrapped against Roster.KeyCommitment, so
//     an owner device that gives members different keys for one epoch is
//     caught rather than silently splitting the session.
//
// # Revocation
//
// Removing a member sets Roster.NeedsNewEpoch until the owner signs a
// new_epoch statement; the new epoch key is wrapped only for
// Roster.Recipients, the active devices of the remaining members, so
// the removed member can read nothing sealed from then on. The same holds
// for a device removed from a member's list (NeedsNewEpoch(before, after)).
//
// # Rollback and forks
//
// A chain verifies on its own; that it is the same chain the client saw
// before is the client's to check: it keeps a Checkpoint (length and head
// hash) after each verification and calls Extends on the next one, which
// refuses a shorter chain (ErrRollback) or a different history (ErrFork).
//
// # Pinning
//
// Pins remembers, per account, where its verified device list stood when
// the person last accepted it (the chain's Checkpoint, trust on first use)
// and the fingerprint of its devices. A list that continues the pinned
// chain passes without asking: the account's own devices signed the
// change, as a cross-signed device passes in Matrix. A list that does not
// continue it — a chain the server started for the account itself, or an
// older state — is a *KeyChangedError, and Blocked keeps returning it
// until the person accepts the new list (Accept, ideally after comparing
// safety numbers): the caller must not seal anything for that account's
// devices meanwhile.
package roster
