package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Rebuild empties the derived tables (everything but permission_rules and
// sync_outbox) and indexes every transcript in dir again. Files are parsed
// in parallel (GOMAXPROCS workers) and written by one writer, several
// sessions per transaction. progress, if set, is called after each file.
// A transcript that cannot be read is logged and skipped, and reported in
// the returned error after all the others are indexed.
func (ix *Index) Rebuild(ctx context.Context, dir string, progress func(done, total int)) error {
	files, err := listTranscripts(dir)
	if err != nil {
		return err
	}
	start := time.Now()
	defer ix.bigCache(ctx)()
	if err := ix.writeTx(ctx, ix.clearDerived); err != nil {
		return err
	}
	err = ix.indexFiles(ctx, files, false, progress)
	slog.Info("store: index rebuilt", "dir", dir, "transcripts", len(files), "took", time.Since(start), "err", err)
	return err
}

func (ix *Index) clearDerived(tx *sql.Tx) error {
	var ddl string
	if err := tx.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'messages_fts'`).Scan(&ddl); err != nil {
		return fmt.Errorf("read messages_fts schema: %w", err)
	}
	type kv struct{ k, v any }
	var config []kv
	rows, err := tx.Query(`SELECT k, v FROM messages_fts_config WHERE k <> 'version'`)
	if err != nil {
		return fmt.Errorf("read messages_fts config: %w", err)
	}
	for rows.Next() {
		var c kv
		if err := rows.Scan(&c.k, &c.v); err != nil {
			rows.Close()
			return fmt.Errorf("read messages_fts config: %w", err)
		}
		config = append(config, c)
	}
	rows.Close()
	// Dropping the FTS table is much faster than deleting its rows.
	for _, q := range []string{"DELETE FROM turns", "DELETE FROM bindings", "DELETE FROM sessions", "DROP TABLE messages_fts", ddl} {
		if _, err := tx.Exec(q); err != nil {
			return fmt.Errorf("clear index: %w", err)
		}
	}
	for _, c := range config {
		if _, err := tx.Exec(`INSERT INTO messages_fts (messages_fts, rank) VALUES (?, ?)`, c.k, c.v); err != nil {
			return fmt.Errorf("restore messages_fts config %v: %w", c.k, err)
		}
	}
	return nil
}

// Reconcile brings the index in line with the transcripts in dir, at
// start: a transcript with no row, or whose size differs from what its row
// covers, is reindexed; rows whose transcript is gone are removed; a
// session indexed "running" whose transcript no Writer holds (mnote was
// killed mid-turn) is reindexed, and so marked "interrupted". It returns
// how many sessions it reindexed or removed.
func (ix *Index) Reconcile(ctx context.Context, dir string) (int, error) {
	files, err := listTranscripts(dir)
	if err != nil {
		return 0, err
	}
	type rowInfo struct {
		path        string
		size, bytes int64
		status      string
	}
	rows := make(map[string]rowInfo)
	q, err := ix.r.QueryContext(ctx, `SELECT id, transcript_path, transcript_bytes, indexed_bytes, status FROM sessions`)
	if err != nil {
		return 0, fmt.Errorf("store: index %s: %w", ix.path, err)
	}
	for q.Next() {
		var id string
		var ri rowInfo
		if err := q.Scan(&id, &ri.path, &ri.size, &ri.bytes, &ri.status); err != nil {
			q.Close()
			return 0, fmt.Errorf("store: index %s: %w", ix.path, err)
		}
		rows[id] = ri
	}
	if err := q.Close(); err != nil {
		return 0, fmt.Errorf("store: index %s: %w", ix.path, err)
	}
	var stale []string
	moved := make(map[string]string) // id → its transcript's new path
	inDir := make(map[string]bool, len(files))
	for _, path := range files {
		id := sessionIDFromPath(path)
		inDir[id] = true
		ri, ok := rows[id]
		if !ok {
			stale = append(stale, path)
			continue
		}
		fi, err := os.Stat(path)
		if err != nil {
			continue // gone meanwhile
		}
		switch {
		case ri.path != "" && ri.path != path && fi.Size() == ri.bytes && !inTrash(ri.path):
			// The data folder moved (or was restored from a copy): the
			// rows stand, only the path changes (a transcript back from
			// the trash is read again: its status changes). Reading every
			// transcript again would take seconds per million updates.
			moved[id] = path
		case ri.path != "" && ri.path != path, fi.Size() != ri.bytes && fi.Size() != ri.size:
			stale = append(stale, path)
		case ri.status == StatusRunning && writerGone(path):
			stale = append(stale, path) // its writer died mid-turn
		}
	}
	if len(moved) > 0 {
		err := ix.writeTx(ctx, func(tx *sql.Tx) error {
			for id, path := range moved {
				if _, err := tx.ExecContext(ctx, `UPDATE sessions SET transcript_path = ? WHERE id = ?`, path, id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	n := 0
	for id, ri := range rows {
		if inDir[id] {
			continue
		}
		path := ri.path
		if path == "" {
			path = filepath.Join(dir, id+transcriptExt)
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			if err := ix.Remove(ctx, id); err != nil {
				return n, err
			}
			n++
		}
	}
	if len(stale) > 0 {
		slog.Info("store: reindexing changed transcripts", "count", len(stale))
	}
	err = ix.indexFiles(ctx, stale, true, nil)
	return n + len(stale), err
}

// ReindexFile replaces a session's rows with what its transcript says. A
// transcript in a folder named "trash" is indexed with status "deleted".
func (ix *Index) ReindexFile(ctx context.Context, path string) error {
	x, err := ix.readFile(path, threadNone, false)
	if err != nil {
		return err
	}
	x.reset = true
	return x.flush(ctx)
}

// ResumeIndexer reads a session's transcript, replaces its rows, and
// returns a live Indexer positioned after the last record, for a session
// that goes on appending (open the Writer first: it repairs a torn tail).
func (ix *Index) ResumeIndexer(ctx context.Context, path string) (*Indexer, error) {
	return ix.resume(ctx, path, threadWhole)
}

// ResumeStreamIndexer is ResumeIndexer for a client that only streams
// what comes next (mnote prompt --session): the thread forgets done
// entries as it reads them (thread.SetForgetDone), so a long session costs
// a few entries of memory, not all of them.
func (ix *Index) ResumeStreamIndexer(ctx context.Context, path string) (*Indexer, error) {
	return ix.resume(ctx, path, threadStream)
}

func (ix *Index) resume(ctx context.Context, path string, keep threadUse) (*Indexer, error) {
	// When the index already covers the whole file (the usual case: the
	// session was indexed when it was written), its rows stand; only what
	// comes next is written. Rewriting them would cost a second per
	// hundred thousand updates for nothing, and the read need not keep
	// their text.
	var num, indexed int64
	covered := false
	if fi, err := os.Stat(path); err == nil {
		err = ix.r.QueryRowContext(ctx, `SELECT num, indexed_bytes FROM sessions WHERE id = ?`, sessionIDFromPath(path)).Scan(&num, &indexed)
		covered = err == nil && num != 0 && indexed == fi.Size()
	}
	x, err := ix.readFile(path, keep, covered)
	if err == nil && covered && indexed != x.red.end {
		// The file changed while it was read: read it again, rows and all.
		covered = false
		x, err = ix.readFile(path, keep, false)
	}
	if err != nil {
		return nil, err
	}
	x.live = true
	if covered {
		x.num = num
		rows := x.red.closed
		if x.red.open != nil {
			rows = append(rows, x.red.open)
		}
		x.committed(rows)
		return x, nil
	}
	x.reset = true
	if err := x.flush(ctx); err != nil {
		return nil, err
	}
	return x, nil
}

// Remove deletes a session's rows. Removing a session the index does not
// have is not an error.
func (ix *Index) Remove(ctx context.Context, id string) error {
	return ix.writeTx(ctx, func(tx *sql.Tx) error {
		var num int64
		err := tx.QueryRowContext(ctx, sqlSessionNum, id).Scan(&num)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("remove %s: %w", id, err)
		}
		lo, hi := ftsRange(num)
		if err := ix.exec(ctx, tx, sqlDelFTSRange, lo, hi); err != nil {
			return fmt.Errorf("remove %s: %w", id, err)
		}
		// bindings and turns go by ON DELETE CASCADE.
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
			return fmt.Errorf("remove %s: %w", id, err)
		}
		return nil
	})
}

// threadUse is what readFile's caller does with the thread it rebuilds.
type threadUse int

const (
	threadNone   threadUse = iota // nothing: the index rows are all it writes
	threadStream                  // a live continuation that only streams
	threadWhole                   // a live continuation that shows it whole
)

// readFile runs a transcript through a non-live Indexer and keeps the
// reducer's thread for the given use. Unless it is threadWhole, the
// thread forgets the entries that are done as it reads (the index rows do
// not need them). indexed says the index has the file's rows already: the
// rows are then only counted, not kept.
func (ix *Index) readFile(path string, keep threadUse, indexed bool) (*Indexer, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("store: index transcript: %w", err)
	}
	x := &Indexer{ix: ix, red: newReducer(sessionIDFromPath(path), true), path: path, size: fi.Size(),
		last: time.Now(), started: true, reset: true}
	if keep != threadWhole {
		x.red.th.SetForgetDone()
	}
	st, err := ReadTranscript(path, func(rec Record) error {
		x.Observe(rec, nil)
		if indexed && len(x.red.closed) > 0 {
			x.committed(x.red.closed)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	x.red.end = st.Bytes
	x.red.closeMessageAtEOF()
	switch {
	case inTrash(path):
		x.status = StatusDeleted
	case keep == threadNone && x.red.turnOpen && writerGone(path):
		// Rows only (a rebuild, a reconcile): a turn left open by no
		// writer at all will never end.
		x.status = StatusInterrupted
	}
	if keep == threadNone {
		x.red.th = nil // the rows are all that is left to write
	}
	return x, nil
}

// closeMessageAtEOF writes the message that was streaming when the
// transcript ended, keeping it open for a live continuation.
func (r *reducer) closeMessageAtEOF() {
	if r.open != nil && r.open.dirty && len(r.open.text) > 0 {
		r.closed = append(r.closed, r.open)
		r.open.dirty = false // written once with the batch; more text makes it dirty again
	}
}

// Flushing a whole rebuild transaction at a time: these bound its size.
const (
	rebuildTxRows     = 50_000
	rebuildTxSessions = 500
)

// indexFiles parses files in parallel and writes them, several sessions
// per transaction. reset replaces each session's previous rows.
func (ix *Index) indexFiles(ctx context.Context, files []string, reset bool, progress func(done, total int)) error {
	if len(files) == 0 {
		if progress != nil {
			progress(0, 0)
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		x    *Indexer
		path string
		err  error
	}
	workers := min(runtime.GOMAXPROCS(0), len(files))
	jobs := make(chan string)
	results := make(chan result, workers)
	var wg sync.WaitGroup
	go func() {
		defer close(jobs)
		for _, f := range files {
			select {
			case jobs <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range workers {
		wg.Go(func() {
			for path := range jobs {
				x, err := ix.readFile(path, threadNone, false)
				select {
				case results <- result{x, path, err}:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	var pending []*Indexer
	rows := 0
	write := func() error {
		for _, x := range pending {
			x.reset = reset
		}
		err := ix.flushAll(ctx, pending)
		pending, rows = pending[:0], 0
		return err
	}
	var failed []string
	done := 0
	for res := range results {
		done++
		if res.err != nil {
			slog.Warn("store: cannot index transcript", "file", res.path, "err", res.err)
			failed = append(failed, res.path)
		} else {
			pending = append(pending, res.x)
			rows += len(res.x.red.closed) + len(res.x.red.turns)
			if rows >= rebuildTxRows || len(pending) >= rebuildTxSessions {
				if err := write(); err != nil {
					return err
				}
			}
		}
		if progress != nil {
			progress(done, len(files))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := write(); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("store: %d transcripts could not be indexed: %s", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// flushAll flushes several Indexers in one transaction.
func (ix *Index) flushAll(ctx context.Context, xs []*Indexer) error {
	if len(xs) == 0 {
		return nil
	}
	batches := make([]*batch, len(xs))
	err := ix.writeTx(ctx, func(tx *sql.Tx) error {
		for i, x := range xs {
			batches[i] = x.batch()
			if err := ix.writeBatch(ctx, tx, batches[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, x := range xs {
		x.committed(batches[i].rows)
	}
	return nil
}

// listTranscripts returns the .jsonl files of dir, sorted.
func listTranscripts(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("store: list transcripts: %w", err)
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), transcriptExt) {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	return files, nil
}

// inTrash reports whether a transcript is in a folder named "trash".
func inTrash(path string) bool { return filepath.Base(filepath.Dir(path)) == "trash" }
