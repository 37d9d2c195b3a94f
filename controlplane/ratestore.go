package controlplane

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"time"
)

// pgRates keeps the rate limits' token buckets in PostgreSQL's
// rate_buckets table, so every server on the database takes from the
// same bucket. Each take is one statement (an upsert that refills the
// bucket for the time passed and takes a token only when one is there),
// so concurrent servers cannot both take the last token.
type pgRates struct{ s *sqlStore }

// sharedRates is the store's shared buckets: PostgreSQL only (a SQLite
// store has one server, whose buckets in memory are exact and free).
func (s *sqlStore) sharedRates() rateTaker {
	if s.kind != "postgres" {
		return nil
	}
	return pgRates{s}
}

const takeToken = `INSERT INTO rate_buckets (key, tokens, updated_ns) VALUES ($1, $2::float8 - 1, $3)
ON CONFLICT (key) DO UPDATE SET
	tokens = LEAST($2::float8, rate_buckets.tokens + GREATEST(0, excluded.updated_ns - rate_buckets.updated_ns) * $4::float8) - 1,
	updated_ns = GREATEST(rate_buckets.updated_ns, excluded.updated_ns)
WHERE LEAST($2::float8, rate_buckets.tokens + GREATEST(0, excluded.updated_ns - rate_buckets.updated_ns) * $4::float8) >= 1
RETURNING tokens`

func (p pgRates) take(ctx context.Context, key string, perSecond float64, burst int, now time.Time) (bool, time.Duration, error) {
	perNs := perSecond / 1e9
	var left float64
	err := p.s.w.QueryRowContext(ctx, takeToken, key, float64(burst), nanos(now), perNs).Scan(&left)
	if err == nil {
		return true, 0, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, 0, p.s.err("take a rate token", err)
	}
	// Empty: how long until one token is there.
	var (
		tokens  float64
		updated int64
	)
	err = p.s.r.QueryRowContext(ctx, "SELECT tokens, updated_ns FROM rate_buckets WHERE key = $1", key).Scan(&tokens, &updated)
	if err != nil {
		return false, 0, p.s.err("read a rate bucket", err)
	}
	have := math.Min(float64(burst), tokens+math.Max(0, float64(nanos(now)-updated))*perNs)
	return false, time.Duration(math.Ceil((1 - have) / perNs)), nil
}

func (p pgRates) sweep(ctx context.Context, prefix string, idleSince time.Time) error {
	_, err := p.s.w.ExecContext(ctx, "DELETE FROM rate_buckets WHERE key LIKE $1 AND updated_ns < $2", prefix+"%", nanos(idleSince))
	if err != nil {
		return p.s.err("sweep rate buckets", err)
	}
	return nil
}
