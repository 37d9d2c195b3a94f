package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"mnote/store/ftstoken"
)

// afterMigration are the steps of a migration done in Go, in its
// transaction, after its SQL file.
var afterMigration = map[int]func(ctx context.Context, tx *sql.Tx) error{
	4: copyFTSv4,
}

// Progress is told how far a long step of opening the index has come (a
// migration that re-tokenizes every message): done of total rows.
type Progress func(step string, done, total int64)

type progressKey struct{}

// WithProgress returns a context whose OpenIndex reports long steps to p.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

func progressFrom(ctx context.Context) Progress {
	p, _ := ctx.Value(progressKey{}).(Progress)
	return p
}

// ftsCopyBatch is how many rows copyFTSv4 copies between progress reports.
const ftsCopyBatch = 20000

// copyFTSv4 fills messages_fts_v4 (0004_fts_cjk.sql) from messages_fts's
// stored text, a batch of rowids at a time, then puts it in its place.
func copyFTSv4(ctx context.Context, tx *sql.Tx) error {
	if err := ftstoken.Err(); err != nil {
		return err
	}
	var total int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM messages_fts`).Scan(&total); err != nil {
		return fmt.Errorf("count messages_fts: %w", err)
	}
	// A big buffer of pending terms while copying, as in rebuilds.
	if _, err := tx.ExecContext(ctx, `INSERT INTO messages_fts_v4 (messages_fts_v4, rank) VALUES ('hashsize', ?)`, rebuildHashSize); err != nil {
		return fmt.Errorf("messages_fts_v4 hashsize: %w", err)
	}
	report := progressFrom(ctx)
	const step = "search index: Chinese, Japanese and Korean words"
	if total > 0 {
		slog.Info("store: re-tokenizing the search index", "messages", total)
	}
	// Rowids are sparse (a session's number << 32 | ordinal): batches go
	// by the last rowid copied.
	var done int64
	last := int64(-1 << 63)
	for done < total {
		res, err := tx.ExecContext(ctx, `INSERT INTO messages_fts_v4 (rowid, text, session_id, turn, role, entry)
			SELECT rowid, text, session_id, turn, role, entry FROM messages_fts WHERE rowid > ? ORDER BY rowid LIMIT ?`, last, ftsCopyBatch)
		if err != nil {
			return fmt.Errorf("copy messages_fts rows after %d: %w", last, err)
		}
		n, _ := res.RowsAffected()
		if n == 0 {
			break
		}
		done += n
		if err := tx.QueryRowContext(ctx, `SELECT max(rowid) FROM messages_fts_v4`).Scan(&last); err != nil {
			return fmt.Errorf("copy messages_fts: %w", err)
		}
		if report != nil {
			report(step, done, total)
		}
	}
	for _, q := range []string{
		`DROP TABLE messages_fts`,
		`ALTER TABLE messages_fts_v4 RENAME TO messages_fts`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
