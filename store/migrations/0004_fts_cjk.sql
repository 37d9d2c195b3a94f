-- mnote index, version 4: messages_fts with the "mnote" tokenizer
-- (store/ftstoken): unicode61 for words, Chinese, Japanese and Korean runs
-- cut into bigrams, so that any CJK substring of one or more characters is
-- found (unicode61 made a whole CJK clause one token: 缓存 found nothing).
--
-- The rows are copied from the old table's stored text (no transcript is
-- read again) by copyFTS in Go, in batches, with progress; this file makes
-- the new table, and migrate swaps it in once the copy is done.
CREATE VIRTUAL TABLE messages_fts_v4 USING fts5 (
    text,
    session_id UNINDEXED,
    turn UNINDEXED,
    role UNINDEXED,
    entry UNINDEXED,
    tokenize = 'mnote remove_diacritics 2'
);
