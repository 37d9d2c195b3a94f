-- The token buckets of the rate limits (per token, and per client
-- address for failed authentications), shared by the servers on one
-- PostgreSQL so that N servers allow the rate once, not N times. A
-- SQLite store has one server, which keeps its buckets in memory and
-- leaves this table empty. tokens is the bucket's content at updated_ns.
CREATE TABLE rate_buckets (
	key        TEXT PRIMARY KEY,
	tokens     DOUBLE PRECISION NOT NULL,
	updated_ns BIGINT NOT NULL
);
CREATE INDEX rate_buckets_updated ON rate_buckets (updated_ns);
