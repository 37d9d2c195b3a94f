-- mnote index, version 3: messages_fts without its 3-character prefix
-- index. Measured on 1,000,000 messages (store BenchmarkSearch1M), search
-- was as fast without it (p50 5.8 ms either way, p95 37.8 vs 41.9 ms),
-- while it cost 13% of the time to index them and 7% of the time
-- `mnote prompt` takes for a 200,000-update turn: the last word typed is
-- still searched as a prefix, from the terms themselves.
--
-- FTS5 cannot drop a prefix index in place: the rows are copied into a
-- new table (from the old one's stored text, not the transcripts), which
-- takes the old one's name.
CREATE VIRTUAL TABLE messages_fts_v3 USING fts5 (
    text,
    session_id UNINDEXED,
    turn UNINDEXED,
    role UNINDEXED,
    entry UNINDEXED,
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO messages_fts_v3 (rowid, text, session_id, turn, role, entry)
    SELECT rowid, text, session_id, turn, role, entry FROM messages_fts;
DROP TABLE messages_fts;
ALTER TABLE messages_fts_v3 RENAME TO messages_fts;
