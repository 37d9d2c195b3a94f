package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"
	"unsafe"

	"mnote/thread"
)

// A live Indexer writes while records stream every autoFlushEvery, or
// sooner after autoFlushRecords records, so that a flood is indexed on
// another core while it arrives rather than all at the end of the turn.
const (
	autoFlushEvery   = 500 * time.Millisecond
	autoFlushRecords = 8192
)

// Indexer maps one session's transcript records to index rows. The same
// code runs live (the session's goroutine calls Observe after each Append)
// and in rebuilds, so the two cannot disagree. It is not safe for
// concurrent use.
//
// A live Indexer starts a background write at most every 500 ms while
// observing (checked on Observe; the write runs on its own goroutine so
// the stream never waits for SQLite) and writes synchronously whenever
// Flush is called; the caller flushes at turn end. An Indexer made by NewIndexer must see the session from its
// first record (seq 1): it then replaces whatever the index held for the
// session. To go on appending to an existing transcript, use
// ResumeIndexer, which reads the file first.
type Indexer struct {
	ix      *Index
	red     *reducer
	path    string
	live    bool
	ap      applied // reused by ObserveApplied
	started bool
	reset   bool  // the first flush replaces the session's rows
	num     int64 // sessions.num, 0 until known
	status  string
	size    int64 // transcript_bytes: file size when read
	last    time.Time
	err     error
	flushes int // transactions written, for tests

	pending       int        // records observed since the last write started
	inflight      chan error // a background write, nil when none runs
	inflightBatch *batch
	failed        *batch // a batch whose write failed, to write again
}

// NewIndexer returns a live Indexer for a session.
func (ix *Index) NewIndexer(sessionID string) *Indexer {
	return &Indexer{ix: ix, red: newReducer(sessionID, true), live: true, last: time.Now()}
}

// NewSharedIndexer returns a live Indexer for a new session that reads
// th, the session's own thread, instead of keeping a copy of it: the
// session applies every change itself and reports it with ObserveApplied
// (half the memory and CPU of a private copy).
func (ix *Index) NewSharedIndexer(sessionID string, th *thread.Thread) *Indexer {
	x := ix.NewIndexer(sessionID)
	x.red.th, x.red.shared = th, true
	return x
}

// Thread is the thread the Indexer follows: for an Indexer from
// ResumeIndexer, the session's thread rebuilt from its transcript.
func (x *Indexer) Thread() *thread.Thread { return x.red.th }

// Share hands the Indexer's thread to the live session (see
// NewSharedIndexer): from now on the session mutates it and reports with
// ObserveApplied.
func (x *Indexer) Share() { x.red.shared = true }

// ObserveApplied is Observe for a shared thread. For the records that
// correspond to a thread call — an "in" session/update (Apply), an app
// prompt (AddUserPrompt), an app permission_asked (PermissionRequested) —
// the session passes the thread's length before the call and the change
// it returned; ok false means the call changed nothing (an unknown update
// kind). For other records it is the same as Observe.
func (x *Indexer) ObserveApplied(rec Record, hint *thread.Update, before int, ch thread.Change, ok bool) {
	if !ok {
		x.observe(rec, hint, nil)
		return
	}
	// Reused: a new one per update would escape to the heap.
	x.ap = applied{before: before, ch: ch}
	x.observe(rec, hint, &x.ap)
	x.ap = applied{}
}

// SetPath records the transcript file in the session's row. Without it
// the row keeps the path it had.
func (x *Indexer) SetPath(path string) { x.path = path }

// Observe feeds one record, in transcript order. hint is the decoded
// update of an "in" session/update record when the caller has it (nil
// makes the Indexer decode params.update itself). For the index to know
// how much of the file it covers, set rec.End to Writer.Size() after the
// Append. A failed automatic flush is logged and retried on the next one.
func (x *Indexer) Observe(rec Record, hint *thread.Update) {
	x.observe(rec, hint, nil)
}

func (x *Indexer) observe(rec Record, hint *thread.Update, ap *applied) {
	if !x.started {
		x.started = true
		x.reset = rec.Seq <= 1
		if !x.reset && x.num == 0 {
			slog.Warn("store: indexer started mid-transcript; its counts start at zero", "session", x.red.info.ID, "seq", rec.Seq)
		}
	}
	if x.red.shared {
		x.red.observeApplied(rec, hint, ap)
	} else {
		x.red.observe(rec, hint)
	}
	if !x.live {
		return
	}
	x.pending++
	if x.pending >= autoFlushRecords || x.pending&255 == 0 && time.Since(x.last) >= autoFlushEvery {
		x.flushBackground()
	}
}

// flushBackground writes what is pending on another goroutine, so a
// session streaming updates never waits for SQLite. At most one such
// write runs per Indexer; while it does, records keep accumulating for
// the next one.
func (x *Indexer) flushBackground() {
	x.last, x.pending = time.Now(), 0
	if x.inflight != nil {
		select {
		case err := <-x.inflight:
			x.finished(err)
		default:
			return
		}
	}
	b := x.snapshot()
	done := make(chan error, 1)
	x.inflight, x.inflightBatch = done, b
	go func() { done <- x.write(context.Background(), b) }()
}

// finished takes the result of a background write.
func (x *Indexer) finished(err error) {
	b := x.inflightBatch
	x.inflight, x.inflightBatch = nil, nil
	x.err = err
	if err != nil {
		slog.Warn("store: index flush failed; will retry", "session", x.red.info.ID, "err", err)
		x.failed = b // written again, first, with the next batch
		return
	}
	x.flushes++
}

// wait waits for a background write to end.
func (x *Indexer) wait() {
	if x.inflight != nil {
		x.finished(<-x.inflight)
	}
}

// write writes b (after the batch that failed before it, if any) in one
// transaction.
func (x *Indexer) write(ctx context.Context, b *batch) error {
	return x.ix.writeTx(ctx, func(tx *sql.Tx) error {
		if b.prev != nil {
			if err := x.ix.writeBatch(ctx, tx, b.prev); err != nil {
				return err
			}
		}
		return x.ix.writeBatch(ctx, tx, b)
	})
}

// Info returns what the Indexer knows about the session.
func (x *Indexer) Info() SessionInfo {
	info := x.red.sessionInfo()
	if x.status != "" {
		info.Status = x.status
	}
	return info
}

// Flush writes everything pending in one transaction.
func (x *Indexer) Flush() error {
	return x.flush(context.Background())
}

func (x *Indexer) flush(ctx context.Context) error {
	x.last, x.pending = time.Now(), 0
	x.wait()
	if !x.started {
		return nil
	}
	b := x.snapshot()
	err := x.write(ctx, b)
	x.err = err
	if err != nil {
		x.failed = b
		return err
	}
	x.flushes++
	return nil
}

// snapshot takes what is pending as a batch that no longer shares mutable
// state with the reducer (the rows' texts are only ever appended to, so
// their current length is a stable view), and marks it written: a batch
// that then fails is kept and written again before the next one.
func (x *Indexer) snapshot() *batch {
	b := x.batch()
	orig := b.rows
	rows := make([]*ftsRow, len(b.rows))
	for i, r := range orig {
		c := *r
		c.text = r.text[:len(r.text):len(r.text)]
		rows[i] = &c
	}
	b.rows = rows
	b.prev, x.failed = x.failed, nil
	x.committed(orig)
	return b
}

// batch is what one flush of one session writes.
type batch struct {
	x        *Indexer
	info     SessionInfo
	path     string
	size     int64 // transcript_bytes
	end      int64 // indexed_bytes
	reset    bool
	bindings []Binding
	turns    []Turn
	rows     []*ftsRow
	prev     *batch // a failed earlier batch, written first
}

func (x *Indexer) batch() *batch {
	r := x.red
	b := &batch{x: x, info: x.Info(), path: x.path, end: r.end, reset: x.reset}
	b.size = max(x.size, r.end)
	for _, n := range slices.Sorted(maps.Keys(r.dirtyBinds)) {
		b.bindings = append(b.bindings, *r.bindings[n])
	}
	for _, n := range slices.Sorted(maps.Keys(r.dirtyTurns)) {
		b.turns = append(b.turns, *r.turns[n])
	}
	b.rows = r.closed
	if r.open != nil && r.open.dirty && len(r.open.text) > 0 && (len(b.rows) == 0 || b.rows[len(b.rows)-1] != r.open) {
		b.rows = append(b.rows[:len(b.rows):len(b.rows)], r.open)
	}
	return b
}

// committed clears what b wrote.
func (x *Indexer) committed(rows []*ftsRow) {
	r := x.red
	x.reset = false
	clear(r.dirtyBinds)
	clear(r.dirtyTurns)
	for _, row := range rows {
		row.written, row.dirty = true, false
	}
	r.closed = nil
}

const (
	sqlSessionNum = `SELECT num FROM sessions WHERE id = ?`
	sqlNextNum    = `SELECT IFNULL(MAX(num), 0) + 1 FROM sessions`
	sqlUpsertSess = `INSERT INTO sessions (id, num, title, workspace, runtime, created_ms, updated_ms, status,
	turns, messages, tool_calls, updates, last_stop_reason, transcript_path, transcript_bytes, indexed_bytes, indexed_seq,
	forked_from, forked_turn)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET title = excluded.title, workspace = excluded.workspace, runtime = excluded.runtime,
	created_ms = excluded.created_ms, updated_ms = excluded.updated_ms, status = excluded.status, turns = excluded.turns,
	messages = excluded.messages, tool_calls = excluded.tool_calls, updates = excluded.updates,
	last_stop_reason = excluded.last_stop_reason,
	transcript_path = CASE WHEN excluded.transcript_path <> '' THEN excluded.transcript_path ELSE sessions.transcript_path END,
	transcript_bytes = excluded.transcript_bytes, indexed_bytes = excluded.indexed_bytes, indexed_seq = excluded.indexed_seq,
	forked_from = excluded.forked_from, forked_turn = excluded.forked_turn`
	sqlUpsertBinding = `INSERT INTO bindings (session_id, binding, runtime, agent_session_id, how, status, created_ms, updated_ms)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (session_id, binding) DO UPDATE SET runtime = excluded.runtime, agent_session_id = excluded.agent_session_id,
	how = excluded.how, status = excluded.status, created_ms = excluded.created_ms, updated_ms = excluded.updated_ms`
	sqlUpsertTurn = `INSERT INTO turns (session_id, turn, started_ms, ended_ms, stop_reason, error, usage_json, input_tokens, output_tokens,
	cache_hit_tokens, cache_miss_tokens, cache_hit_ratio)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (session_id, turn) DO UPDATE SET started_ms = excluded.started_ms, ended_ms = excluded.ended_ms,
	stop_reason = excluded.stop_reason, error = excluded.error, usage_json = excluded.usage_json,
	input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
	cache_hit_tokens = excluded.cache_hit_tokens, cache_miss_tokens = excluded.cache_miss_tokens,
	cache_hit_ratio = excluded.cache_hit_ratio`
	sqlDelFTSRange = `DELETE FROM messages_fts WHERE rowid BETWEEN ? AND ?`
	sqlDelFTSRow   = `DELETE FROM messages_fts WHERE rowid = ?`
	sqlInsFTS      = `INSERT INTO messages_fts (rowid, text, session_id, turn, role, entry) VALUES (?, ?, ?, ?, ?, ?)`
	sqlDelTurns    = `DELETE FROM turns WHERE session_id = ?`
	sqlDelBindings = `DELETE FROM bindings WHERE session_id = ?`
)

// writeStmts are prepared on the writer connection when the index opens.
// (Preparing one later, while a transaction holds that only connection,
// would wait forever.)
var writeStmts = []string{sqlSessionNum, sqlNextNum, sqlUpsertSess, sqlUpsertBinding, sqlUpsertTurn,
	sqlDelFTSRange, sqlDelFTSRow, sqlInsFTS, sqlDelTurns, sqlDelBindings}

// prepareWrites prepares writeStmts.
func (ix *Index) prepareWrites(ctx context.Context) error {
	ix.stmts = make(map[string]*sql.Stmt, len(writeStmts))
	for _, q := range writeStmts {
		s, err := ix.w.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		ix.stmts[q] = s
	}
	return nil
}

// stmt returns one of writeStmts for use in tx.
func (ix *Index) stmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	s := ix.stmts[query]
	if s == nil {
		return nil, fmt.Errorf("statement not prepared: %s", query)
	}
	return tx.StmtContext(ctx, s), nil
}

// exec runs a prepared statement in tx.
func (ix *Index) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	s, err := ix.stmt(ctx, tx, query)
	if err != nil {
		return err
	}
	_, err = s.ExecContext(ctx, args...)
	return err
}

func ftsRange(num int64) (lo, hi int64) { return num << 32, num<<32 | 0xffffffff }

// writeBatch writes one session's batch in tx.
func (ix *Index) writeBatch(ctx context.Context, tx *sql.Tx, b *batch) error {
	x, info := b.x, b.info
	reset := b.reset
	if x.num == 0 {
		err := tx.QueryRowContext(ctx, sqlSessionNum, info.ID).Scan(&x.num)
		if errors.Is(err, sql.ErrNoRows) {
			// A new session has no old rows to reset. (Skipping the
			// delete also matters for speed: a query on messages_fts
			// makes FTS5 flush its pending terms mid-transaction.)
			reset = false
			err = tx.QueryRowContext(ctx, sqlNextNum).Scan(&x.num)
		}
		if err != nil {
			return fmt.Errorf("session %s: %w", info.ID, err)
		}
	}
	if reset {
		lo, hi := ftsRange(x.num)
		for _, q := range []struct {
			sql  string
			args []any
		}{{sqlDelFTSRange, []any{lo, hi}}, {sqlDelTurns, []any{info.ID}}, {sqlDelBindings, []any{info.ID}}} {
			if err := ix.exec(ctx, tx, q.sql, q.args...); err != nil {
				return fmt.Errorf("session %s: reset: %w", info.ID, err)
			}
		}
	}
	if err := ix.exec(ctx, tx, sqlUpsertSess, info.ID, x.num, info.Title, info.Workspace, info.Runtime,
		info.CreatedMs, info.UpdatedMs, info.Status, info.Turns, info.Messages, info.ToolCalls, info.Updates,
		info.LastStopReason, b.path, b.size, b.end, info.LastSeq, info.ForkedFrom.SessionID, info.ForkedFrom.Turn); err != nil {
		return fmt.Errorf("session %s: %w", info.ID, err)
	}
	for _, bd := range b.bindings {
		if err := ix.exec(ctx, tx, sqlUpsertBinding, info.ID, bd.Binding, bd.Runtime, bd.AgentSessionID, bd.How,
			bd.Status, bd.CreatedMs, bd.UpdatedMs); err != nil {
			return fmt.Errorf("session %s: binding %d: %w", info.ID, bd.Binding, err)
		}
	}
	for _, t := range b.turns {
		if err := ix.exec(ctx, tx, sqlUpsertTurn, info.ID, t.Turn, t.StartedMs, t.EndedMs, t.StopReason, t.Error,
			string(t.Usage), t.InputTokens, t.OutputTokens, t.CacheHitTokens, t.CacheMissTokens, t.CacheHitRatio); err != nil {
			return fmt.Errorf("session %s: turn %d: %w", info.ID, t.Turn, err)
		}
	}
	if len(b.rows) == 0 {
		return nil
	}
	ins, err := ix.stmt(ctx, tx, sqlInsFTS)
	if err != nil {
		return err
	}
	for _, row := range b.rows {
		rowid := x.num<<32 | int64(row.ordinal)
		if row.written {
			if err := ix.exec(ctx, tx, sqlDelFTSRow, rowid); err != nil {
				return fmt.Errorf("session %s: message %s: %w", info.ID, row.entry, err)
			}
		}
		if _, err := ins.ExecContext(ctx, rowid, indexedText(row.text), info.ID, row.turn, row.role, row.entry); err != nil {
			return fmt.Errorf("session %s: message %s: %w", info.ID, row.entry, err)
		}
	}
	return nil
}

// MaxIndexedMessage is how much of one message the full-text index keeps:
// tokenizing a 20 MiB answer costs more than a second, and a search hit
// needs no more than the start of it. The transcript keeps it all.
const MaxIndexedMessage = 1 << 20

// indexedText returns the text to index of a row's text b. It shares b's
// bytes: a row's text is only ever appended to (see snapshot), so the
// bytes of b never change, and the driver copies them when it binds them.
func indexedText(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) < MaxIndexedMessage {
		return unsafe.String(&b[0], len(b))
	}
	// Cut, and drop a character the cut split.
	return strings.ToValidUTF8(string(b[:MaxIndexedMessage]), "")
}
