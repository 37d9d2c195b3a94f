-- Share tokens are stored as their hash (the hex SHA-256, HashToken), like
-- user tokens, never in clear. The column is renamed here; the Go step of
-- this migration (migrationSteps in open.go) hashes the tokens stored in
-- clear before, in the same transaction.
ALTER TABLE shares RENAME COLUMN token TO token_hash;
