// Package keys is the client-side cryptography of shared sessions: the keys
// a machine holds, how a session's content is sealed so that the control
// plane can store and relay it without reading or forging it, and how two
// people (or one person's two machines) check that no one sits between them.
// It is pure Go over the standard library (crypto/hpke, crypto/ecdh,
// crypto/ed25519, crypto/hkdf, crypto/sha256/512, crypto/aes+cipher); no
// primitive is written here, only their composition.
//
// # The keys, who holds them, what the server sees
//
//   - Device (private): one per machine, created once and kept in a file of
//     mode 0600 (SaveDevice / LoadDevice; a wider mode or corrupt content is
//     refused). It holds an X25519 key, the HPKE recipient key of that
//     machine, and an Ed25519 key, with which the machine signs the entries
//     it writes, the envelopes it wraps and the roster statements it makes.
//     It never leaves the machine.
//   - DevicePublic: the public half, with the account it belongs to, a
//     display name and its creation time. Its encoding (Marshal /
//     ParseDevicePublic) is canonical and versioned. Its DeviceID is derived
//     from both public keys (base32 of the first 20 bytes of a SHA-256), so
//     the id is self-certifying: a server that swaps either key under an id
//     produces a DevicePublic that ParseDevicePublic refuses (ErrDeviceID).
//     Which account a device belongs to is not self-certifying: that is what
//     the account's signed device list (package collab/roster) says.
//     The server stores and relays DevicePublic; that is all it sees.
//   - EpochKey: 32 random bytes per (session, epoch), shared by the devices
//     of the session's members. A new epoch starts whenever a member or a
//     device leaves, so what is sealed afterwards is out of its reach. The
//     server only sees it wrapped: WrapEpochKey seals it to one device with
//     HPKE (mode base, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
//     ChaCha20Poly1305 — constant time without AES hardware), the HPKE info
//     and aad binding the session id, the epoch, the recipient device id and
//     the wrapping device id; the wrapping device also signs the envelope,
//     because HPKE base mode says nothing of who wrapped: without the
//     signature the server could hand members a key of its own choosing and
//     read what they seal under it. The caller checks that the wrapper may
//     rotate keys (an owner device, from the verified roster).
//   - Sealed entries (Seal / Open): AES-256-GCM (random 96-bit nonces) under
//     a key derived with HKDF-SHA256 from the epoch key, the session id and
//     the epoch; the associated data is the canonical encoding of the
//     Header (session, epoch, sequence, author device, kind). The header
//     travels in clear inside the blob (the server needs it to route and
//     order anyway) and the author device signs header and ciphertext with
//     Ed25519: members share the epoch key, so without the signature one
//     member could write in another's name. The plaintext is padded (Padmé:
//     the length is rounded so that at most about 12% is added and only
//     O(log log n) bits of the size are left) with a minimum of 256 bytes,
//     so the server learns the size class, not the exact size. Random
//     96-bit nonces bound one epoch to 2^32 entries, far more than a session
//     writes before its key is rotated.
//   - Key bundles (SealBundle / OpenBundle): the epoch keys a new machine of
//     the same account needs, sealed with HPKE to that machine and signed
//     by the machine that sends them.
//   - Safety numbers (SafetyNumber): 60 digits in 12 groups of 5 that two
//     people compare out of band to know that the devices each sees for the
//     other are the real ones (as Signal's: iterated SHA-512 over each
//     side's keys, the two halves in a fixed order so both see the same).
//     A device's Fingerprint is 16 hex digits in 4 groups.
//   - Pairing (PairInitiator / PairJoiner): a machine joins its account by
//     an ephemeral X25519 exchange with a commitment first (as Matrix's SAS
//     verification), ending in a 12-digit short authentication string the
//     person compares on both screens, then a MAC, under a key from the
//     same exchange, over each side's DevicePublic.
//
// Every failure is one of the exported sentinel errors, tested with
// errors.Is; the words people read are the caller's (the message catalogue),
// chosen by the sentinel.
package keys
