package controlplane

import (
	"context"
	"database/sql"
)

// rowsQuerier runs a query that returns rows: the pool or a transaction.
type rowsQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryAll runs query on q and reads every row with scan, in order. The
// list is empty, never nil, when there is no row (a JSON [] to clients).
func queryAll[T any](ctx context.Context, q rowsQuerier, query string, scan func(*sql.Rows) (T, error), args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
