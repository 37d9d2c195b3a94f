-- The control plane's schema. The same text runs on SQLite and on
-- PostgreSQL, so it keeps to what both understand: TEXT, BIGINT, and
-- times as BIGINT nanoseconds since the Unix epoch (UTC).

CREATE TABLE users (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	created_ns BIGINT NOT NULL
);

-- Tokens are stored as the hex SHA-256 of the token, never the token.
CREATE TABLE tokens (
	id         TEXT PRIMARY KEY,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	hash       TEXT NOT NULL UNIQUE,
	created_ns BIGINT NOT NULL,
	revoked_ns BIGINT
);
CREATE INDEX tokens_user ON tokens (user_id);

-- Session ids are global: an id belongs to the first user who stored it.
CREATE TABLE sessions (
	id           TEXT PRIMARY KEY,
	user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	version      BIGINT NOT NULL,
	runtime      TEXT NOT NULL,
	workspace_id TEXT NOT NULL,
	title        TEXT NOT NULL,
	status       TEXT NOT NULL,
	created_ns   BIGINT NOT NULL,
	updated_ns   BIGINT NOT NULL,
	turns        BIGINT NOT NULL,
	messages     BIGINT NOT NULL,
	tool_calls   BIGINT NOT NULL,
	copied_from  TEXT NOT NULL
);
CREATE INDEX sessions_user_updated ON sessions (user_id, updated_ns DESC, id DESC);

-- snapshot is the JSON the client sent, byte for byte. token is the
-- share's URL secret; id is its public name.
CREATE TABLE shares (
	id         TEXT PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	snapshot   TEXT NOT NULL,
	created_ns BIGINT NOT NULL,
	expires_ns BIGINT
);
CREATE INDEX shares_user ON shares (user_id, created_ns DESC);
CREATE INDEX shares_session ON shares (session_id);
CREATE INDEX shares_expires ON shares (expires_ns);
