-- Shared sessions (the sharing contract's phase D): members and roles,
-- the shared log, the one-turn-at-a-time lease and its queue, who is
-- viewing, devices, key envelopes and pairing. The server is untrusted
-- for content: ciphertexts, signed statements, public keys, envelopes and
-- pairing messages are opaque BYTEA it stores and relays and never reads
-- (SQLite takes the type name and stores a blob). Times are BIGINT
-- nanoseconds, as in 0001.

-- A session of the sessions table its owner has shared. head is the seq
-- of the last entry (0: none), roster_head that of the last roster
-- statement, queue_next the last queue ticket given.
CREATE TABLE shared_sessions (
	session_id  TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
	head        BIGINT NOT NULL,
	roster_head BIGINT NOT NULL,
	queue_next  BIGINT NOT NULL,
	created_ns  BIGINT NOT NULL
);

-- The owner is a member too, with the role owner.
CREATE TABLE members (
	session_id TEXT NOT NULL REFERENCES shared_sessions (session_id) ON DELETE CASCADE,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	role       TEXT NOT NULL,
	added_ns   BIGINT NOT NULL,
	PRIMARY KEY (session_id, user_id)
);
CREATE INDEX members_user ON members (user_id);

-- The owner's signed membership statements, in order.
CREATE TABLE roster_log (
	session_id TEXT NOT NULL REFERENCES shared_sessions (session_id) ON DELETE CASCADE,
	seq        BIGINT NOT NULL,
	actor_id   TEXT NOT NULL,
	statement  BYTEA NOT NULL,
	created_ns BIGINT NOT NULL,
	PRIMARY KEY (session_id, seq)
);

-- The shared log: the event table keyed (session, seq). actor_id is the
-- account whose token appended the entry.
CREATE TABLE entries (
	session_id    TEXT NOT NULL REFERENCES shared_sessions (session_id) ON DELETE CASCADE,
	seq           BIGINT NOT NULL,
	epoch         BIGINT NOT NULL,
	kind          TEXT NOT NULL,
	run_id        TEXT NOT NULL,
	author_device TEXT NOT NULL,
	actor_id      TEXT NOT NULL,
	size          BIGINT NOT NULL,
	created_ns    BIGINT NOT NULL,
	ciphertext    BYTEA NOT NULL,
	PRIMARY KEY (session_id, seq)
);

-- At most one lease per session: the run that may append now.
CREATE TABLE leases (
	session_id TEXT PRIMARY KEY REFERENCES shared_sessions (session_id) ON DELETE CASCADE,
	run_id     TEXT NOT NULL,
	user_id    TEXT NOT NULL,
	device_id  TEXT NOT NULL,
	granted_ns BIGINT NOT NULL,
	expires_ns BIGINT NOT NULL
);

-- Runs waiting for the lease, in ticket order.
CREATE TABLE run_queue (
	session_id   TEXT NOT NULL REFERENCES shared_sessions (session_id) ON DELETE CASCADE,
	run_id       TEXT NOT NULL,
	ticket       BIGINT NOT NULL,
	user_id      TEXT NOT NULL,
	device_id    TEXT NOT NULL,
	requested_ns BIGINT NOT NULL,
	PRIMARY KEY (session_id, run_id)
);
CREATE INDEX run_queue_order ON run_queue (session_id, ticket);

-- Open live streams (who is viewing), refreshed while open; a row of a
-- server that died ages out.
CREATE TABLE presence (
	conn_id    TEXT PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES shared_sessions (session_id) ON DELETE CASCADE,
	user_id    TEXT NOT NULL,
	device_id  TEXT NOT NULL,
	seen_ns    BIGINT NOT NULL
);
CREATE INDEX presence_session ON presence (session_id, seen_ns);

-- An account's devices: the public key and the device log of signed
-- device statements, both opaque.
CREATE TABLE devices (
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	id         TEXT NOT NULL,
	public_key BYTEA NOT NULL,
	created_ns BIGINT NOT NULL,
	updated_ns BIGINT NOT NULL,
	PRIMARY KEY (user_id, id)
);

CREATE TABLE device_log (
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	seq        BIGINT NOT NULL,
	device_id  TEXT NOT NULL,
	statement  BYTEA NOT NULL,
	created_ns BIGINT NOT NULL,
	PRIMARY KEY (user_id, seq)
);

-- A session's content key of one epoch, wrapped for one device.
CREATE TABLE key_envelopes (
	session_id TEXT NOT NULL REFERENCES shared_sessions (session_id) ON DELETE CASCADE,
	epoch      BIGINT NOT NULL,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	device_id  TEXT NOT NULL,
	envelope   BYTEA NOT NULL,
	created_ns BIGINT NOT NULL,
	PRIMARY KEY (session_id, epoch, user_id, device_id)
);
CREATE INDEX key_envelopes_device ON key_envelopes (user_id, device_id);

-- Pairing a second device of one account: a mailbox found by the hash of
-- a short code, with a few tries and a short life.
CREATE TABLE pairings (
	id         TEXT PRIMARY KEY,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	code_hash  TEXT NOT NULL,
	tries      BIGINT NOT NULL,
	head       BIGINT NOT NULL,
	created_ns BIGINT NOT NULL,
	expires_ns BIGINT NOT NULL
);
CREATE INDEX pairings_user ON pairings (user_id);

CREATE TABLE pairing_messages (
	pairing_id TEXT NOT NULL REFERENCES pairings (id) ON DELETE CASCADE,
	seq        BIGINT NOT NULL,
	device_id  TEXT NOT NULL,
	body       BYTEA NOT NULL,
	created_ns BIGINT NOT NULL,
	PRIMARY KEY (pairing_id, seq)
);
