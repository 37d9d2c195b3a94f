-- mnote index, version 1. Everything except permission_rules and
-- sync_outbox is derived from the transcripts and can be rebuilt.

CREATE TABLE sessions (
    id               TEXT PRIMARY KEY,
    -- num makes the rowids of the session's messages_fts rows:
    -- num << 32 | message ordinal, so they can be deleted by range.
    num              INTEGER NOT NULL UNIQUE,
    title            TEXT NOT NULL DEFAULT '',
    workspace        TEXT NOT NULL DEFAULT '',
    runtime          TEXT NOT NULL DEFAULT '',
    created_ms       INTEGER NOT NULL DEFAULT 0,
    updated_ms       INTEGER NOT NULL DEFAULT 0,
    status           TEXT NOT NULL DEFAULT '',
    turns            INTEGER NOT NULL DEFAULT 0,
    messages         INTEGER NOT NULL DEFAULT 0,
    tool_calls       INTEGER NOT NULL DEFAULT 0,
    updates          INTEGER NOT NULL DEFAULT 0,
    last_stop_reason TEXT NOT NULL DEFAULT '',
    transcript_path  TEXT NOT NULL DEFAULT '',
    transcript_bytes INTEGER NOT NULL DEFAULT 0,
    indexed_bytes    INTEGER NOT NULL DEFAULT 0,
    indexed_seq      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_by_updated ON sessions (updated_ms DESC);
CREATE INDEX sessions_by_workspace ON sessions (workspace, updated_ms DESC);

CREATE TABLE bindings (
    session_id       TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    binding          INTEGER NOT NULL,
    runtime          TEXT NOT NULL DEFAULT '',
    agent_session_id TEXT NOT NULL DEFAULT '',
    how              TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL DEFAULT '',
    created_ms       INTEGER NOT NULL DEFAULT 0,
    updated_ms       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, binding)
) WITHOUT ROWID;

CREATE TABLE turns (
    session_id    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn          INTEGER NOT NULL,
    started_ms    INTEGER NOT NULL DEFAULT 0,
    ended_ms      INTEGER NOT NULL DEFAULT 0,
    stop_reason   TEXT NOT NULL DEFAULT '',
    error         TEXT NOT NULL DEFAULT '',
    usage_json    TEXT NOT NULL DEFAULT '',
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, turn)
) WITHOUT ROWID;

-- Remembered "always" answers to permission requests. Not derived.
CREATE TABLE permission_rules (
    agent       TEXT NOT NULL,
    workspace   TEXT NOT NULL,
    tool_kind   TEXT NOT NULL,
    option_kind TEXT NOT NULL,
    decision    TEXT NOT NULL,
    created_ms  INTEGER NOT NULL,
    PRIMARY KEY (agent, workspace, tool_kind)
) WITHOUT ROWID;

-- Metadata waiting to be synced to the control plane. Not derived; no
-- foreign key, a deletion must still be synced after the session is gone.
CREATE TABLE sync_outbox (
    id         INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    op         TEXT NOT NULL,
    payload    TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT ''
);

-- One row per user or assistant message (short answers of one turn
-- share a row). The 3-character prefix index makes search-as-you-type
-- (the last word, 3+ characters, is a prefix) fast on big indexes.
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    text,
    session_id UNINDEXED,
    turn UNINDEXED,
    role UNINDEXED,
    entry UNINDEXED,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '3'
);

-- A bigger buffer of pending terms (default 1 MB) writes fewer, larger
-- segments during rebuilds. (Rebuild keeps these settings.)
INSERT INTO messages_fts (messages_fts, rank) VALUES ('hashsize', 8388608);
