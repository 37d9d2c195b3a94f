-- mnote index, version 2: the prompt-cache figures of each turn, as the
-- agent reports them (Reasonix, in its _reasonix.io/session/status_update
-- notification): tokens served from the provider's prompt cache, tokens
-- that missed it, and the hit ratio (0 to 1).
ALTER TABLE turns ADD COLUMN cache_hit_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN cache_miss_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN cache_hit_ratio REAL NOT NULL DEFAULT 0;

-- Reasonix sessions indexed before this version are read again from their
-- transcripts at the next start (Reconcile reindexes a session whose
-- recorded size differs from its file's).
UPDATE sessions SET transcript_bytes = -1, indexed_bytes = -1 WHERE runtime LIKE '%reasonix%';
