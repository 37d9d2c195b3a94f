-- mnote index, version 5: a session forked from another (a prompt edited
-- and resent) names it and the turn, as its transcript's session record
-- does; the original's forks are the sessions that name it.
ALTER TABLE sessions ADD COLUMN forked_from TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN forked_turn INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sessions_by_fork ON sessions (forked_from) WHERE forked_from <> '';
