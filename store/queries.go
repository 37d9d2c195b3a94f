package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SessionRow is a session as the index has it.
type SessionRow struct {
	ID              string
	Title           string
	Workspace       string
	Runtime         string
	CreatedMs       int64
	UpdatedMs       int64
	Status          string
	Turns           int
	Messages        int
	ToolCalls       int
	Updates         int
	LastStopReason  string
	TranscriptPath  string
	TranscriptBytes int64
	IndexedBytes    int64
	IndexedSeq      int64
	// ForkedFrom and ForkedTurn: the session and turn this one was forked
	// from ("" and 0 when it was not).
	ForkedFrom string
	ForkedTurn int
}

// ListOptions select sessions for ListSessions.
type ListOptions struct {
	Limit          int    // 0 means 100
	Offset         int    //
	Workspace      string // "" means all
	IncludeDeleted bool   // include sessions indexed from the trash
}

const sessionCols = `id, title, workspace, runtime, created_ms, updated_ms, status, turns, messages, tool_calls,
	updates, last_stop_reason, transcript_path, transcript_bytes, indexed_bytes, indexed_seq, forked_from, forked_turn`

func scanSession(sc interface{ Scan(...any) error }) (SessionRow, error) {
	var s SessionRow
	err := sc.Scan(&s.ID, &s.Title, &s.Workspace, &s.Runtime, &s.CreatedMs, &s.UpdatedMs, &s.Status, &s.Turns,
		&s.Messages, &s.ToolCalls, &s.Updates, &s.LastStopReason, &s.TranscriptPath, &s.TranscriptBytes,
		&s.IndexedBytes, &s.IndexedSeq, &s.ForkedFrom, &s.ForkedTurn)
	return s, err
}

// ListSessions returns sessions, most recently updated first (of two
// updated in the same millisecond, the one created last).
func (ix *Index) ListSessions(ctx context.Context, opt ListOptions) ([]SessionRow, error) {
	if opt.Limit <= 0 {
		opt.Limit = 100
	}
	var where []string
	var args []any
	if opt.Workspace != "" {
		where = append(where, "workspace = ?")
		args = append(args, opt.Workspace)
	}
	if !opt.IncludeDeleted {
		where = append(where, "status <> '"+StatusDeleted+"'")
	}
	q := "SELECT " + sessionCols + " FROM sessions"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY updated_ms DESC, created_ms DESC, id DESC LIMIT ? OFFSET ?"
	args = append(args, opt.Limit, opt.Offset)
	rows, err := ix.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions in %s: %w", ix.path, err)
	}
	defer rows.Close()
	var out []SessionRow
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list sessions in %s: %w", ix.path, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list sessions in %s: %w", ix.path, err)
	}
	return out, nil
}

// GetSession returns one session, or an error wrapping ErrNotFound.
func (ix *Index) GetSession(ctx context.Context, id string) (SessionRow, error) {
	s, err := scanSession(ix.r.QueryRowContext(ctx, "SELECT "+sessionCols+" FROM sessions WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return SessionRow{}, fmt.Errorf("store: session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return SessionRow{}, fmt.Errorf("store: session %s in %s: %w", id, ix.path, err)
	}
	return s, nil
}

// Bindings returns a session's runtime bindings in order.
func (ix *Index) Bindings(ctx context.Context, id string) ([]Binding, error) {
	rows, err := ix.r.QueryContext(ctx, `SELECT binding, runtime, agent_session_id, how, status, created_ms, updated_ms
		FROM bindings WHERE session_id = ? ORDER BY binding`, id)
	if err != nil {
		return nil, fmt.Errorf("store: bindings of %s in %s: %w", id, ix.path, err)
	}
	defer rows.Close()
	var out []Binding
	for rows.Next() {
		var b Binding
		if err := rows.Scan(&b.Binding, &b.Runtime, &b.AgentSessionID, &b.How, &b.Status, &b.CreatedMs, &b.UpdatedMs); err != nil {
			return nil, fmt.Errorf("store: bindings of %s in %s: %w", id, ix.path, err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: bindings of %s in %s: %w", id, ix.path, err)
	}
	return out, nil
}

// Turns returns a session's turns in order.
func (ix *Index) Turns(ctx context.Context, id string) ([]Turn, error) {
	rows, err := ix.r.QueryContext(ctx, `SELECT turn, started_ms, ended_ms, stop_reason, error, usage_json, input_tokens, output_tokens,
		cache_hit_tokens, cache_miss_tokens, cache_hit_ratio
		FROM turns WHERE session_id = ? ORDER BY turn`, id)
	if err != nil {
		return nil, fmt.Errorf("store: turns of %s in %s: %w", id, ix.path, err)
	}
	defer rows.Close()
	var out []Turn
	for rows.Next() {
		var t Turn
		var usage string
		if err := rows.Scan(&t.Turn, &t.StartedMs, &t.EndedMs, &t.StopReason, &t.Error, &usage, &t.InputTokens, &t.OutputTokens,
			&t.CacheHitTokens, &t.CacheMissTokens, &t.CacheHitRatio); err != nil {
			return nil, fmt.Errorf("store: turns of %s in %s: %w", id, ix.path, err)
		}
		if usage != "" {
			t.Usage = []byte(usage)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: turns of %s in %s: %w", id, ix.path, err)
	}
	return out, nil
}

// Rename sets a session's title in the index. It writes nothing to the
// transcript: the caller appends a "title" record (and observes it, if an
// Indexer is live) so a rebuild keeps the name.
func (ix *Index) Rename(ctx context.Context, id, title string) error {
	return ix.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ? WHERE id = ?`, title, id)
		if err != nil {
			return fmt.Errorf("rename %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("rename %s: %w", id, ErrNotFound)
		}
		return nil
	})
}

// Rule is a remembered answer to permission requests: for this agent, in
// this workspace, tool calls of this kind get this option kind.
type Rule struct {
	Agent      string // runtime name
	Workspace  string
	ToolKind   string // read, edit, execute, ...
	OptionKind string // allow_always, reject_always
	Decision   string // allow, reject
	CreatedMs  int64
}

// RememberRule stores (or replaces) a rule. Decision defaults from
// OptionKind, CreatedMs from the clock.
func (ix *Index) RememberRule(ctx context.Context, r Rule) error {
	if r.Agent == "" || r.ToolKind == "" || r.OptionKind == "" {
		return fmt.Errorf("store: remember rule: agent, tool kind and option kind are required")
	}
	if r.Decision == "" {
		r.Decision = "allow"
		if strings.HasPrefix(r.OptionKind, "reject") {
			r.Decision = "reject"
		}
	}
	if r.CreatedMs == 0 {
		r.CreatedMs = time.Now().UnixMilli()
	}
	return ix.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO permission_rules (agent, workspace, tool_kind, option_kind, decision, created_ms)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (agent, workspace, tool_kind) DO UPDATE SET option_kind = excluded.option_kind,
				decision = excluded.decision, created_ms = excluded.created_ms`,
			r.Agent, r.Workspace, r.ToolKind, r.OptionKind, r.Decision, r.CreatedMs)
		if err != nil {
			return fmt.Errorf("remember rule: %w", err)
		}
		return nil
	})
}

// LookupRule returns the rule for an agent, workspace and tool kind; ok is
// false when there is none.
func (ix *Index) LookupRule(ctx context.Context, agent, workspace, toolKind string) (r Rule, ok bool, err error) {
	err = ix.r.QueryRowContext(ctx, `SELECT agent, workspace, tool_kind, option_kind, decision, created_ms
		FROM permission_rules WHERE agent = ? AND workspace = ? AND tool_kind = ?`, agent, workspace, toolKind).
		Scan(&r.Agent, &r.Workspace, &r.ToolKind, &r.OptionKind, &r.Decision, &r.CreatedMs)
	if errors.Is(err, sql.ErrNoRows) {
		return Rule{}, false, nil
	}
	if err != nil {
		return Rule{}, false, fmt.Errorf("store: lookup rule in %s: %w", ix.path, err)
	}
	return r, true, nil
}

// ListRules returns every rule.
func (ix *Index) ListRules(ctx context.Context) ([]Rule, error) {
	rows, err := ix.r.QueryContext(ctx, `SELECT agent, workspace, tool_kind, option_kind, decision, created_ms
		FROM permission_rules ORDER BY agent, workspace, tool_kind`)
	if err != nil {
		return nil, fmt.Errorf("store: list rules in %s: %w", ix.path, err)
	}
	defer rows.Close()
	var out []Rule
	for rows.Next() {
		var r Rule
		if err := rows.Scan(&r.Agent, &r.Workspace, &r.ToolKind, &r.OptionKind, &r.Decision, &r.CreatedMs); err != nil {
			return nil, fmt.Errorf("store: list rules in %s: %w", ix.path, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list rules in %s: %w", ix.path, err)
	}
	return out, nil
}

// ForgetRule deletes a rule; forgetting a missing rule is not an error.
func (ix *Index) ForgetRule(ctx context.Context, agent, workspace, toolKind string) error {
	return ix.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM permission_rules WHERE agent = ? AND workspace = ? AND tool_kind = ?`,
			agent, workspace, toolKind); err != nil {
			return fmt.Errorf("forget rule: %w", err)
		}
		return nil
	})
}

// OutboxItem is a sync_outbox row.
type OutboxItem struct {
	ID        int64
	SessionID string
	Op        string
	Payload   string // JSON
	CreatedMs int64
	Attempts  int
	LastError string
}

// EnqueueSync adds an item to the sync outbox.
func (ix *Index) EnqueueSync(ctx context.Context, sessionID, op, payload string) (int64, error) {
	var id int64
	err := ix.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO sync_outbox (session_id, op, payload, created_ms) VALUES (?, ?, ?, ?)`,
			sessionID, op, payload, time.Now().UnixMilli())
		if err != nil {
			return fmt.Errorf("enqueue sync: %w", err)
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, err
}

// PendingSync returns the oldest outbox items.
func (ix *Index) PendingSync(ctx context.Context, limit int) ([]OutboxItem, error) {
	rows, err := ix.r.QueryContext(ctx, `SELECT id, session_id, op, payload, created_ms, attempts, last_error
		FROM sync_outbox ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: sync outbox in %s: %w", ix.path, err)
	}
	defer rows.Close()
	var out []OutboxItem
	for rows.Next() {
		var it OutboxItem
		if err := rows.Scan(&it.ID, &it.SessionID, &it.Op, &it.Payload, &it.CreatedMs, &it.Attempts, &it.LastError); err != nil {
			return nil, fmt.Errorf("store: sync outbox in %s: %w", ix.path, err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: sync outbox in %s: %w", ix.path, err)
	}
	return out, nil
}

// AckSync removes a synced item; with a non-nil failure it records the
// attempt instead.
func (ix *Index) AckSync(ctx context.Context, id int64, failure error) error {
	return ix.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		if failure == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM sync_outbox WHERE id = ?`, id)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE sync_outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?`,
				failure.Error(), id)
		}
		if err != nil {
			return fmt.Errorf("ack sync %d: %w", id, err)
		}
		return nil
	})
}
