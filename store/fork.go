package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// This file makes a fork's transcript (a prompt edited and resent: app's
// sessions.fork) and finds a session's forks in the index.

// ForkStats says what ForkTranscript copied.
type ForkStats struct {
	Records int // records copied (the new session record not counted)
	Turns   int // turns copied
}

// errForkPoint stops the copy at the fork point.
var errForkPoint = errors.New("fork point")

// ForkTranscript creates the transcript dst of a new session: first
// (its session record, naming the original in ForkedFrom), then the
// conversation records of the transcript src before turn `before`, with
// their times. What belonged to the original's agent sessions is left out:
// the JSON-RPC lines mnote sent and the agent's responses (initialize,
// session/new, session/prompt…), the runtime bindings and their statuses,
// and the original's session record and titles; the agent's updates,
// requests and notifications, the prompts, the turns' starts and ends,
// permissions, file writes, terminals and errors are kept. So replaying
// dst gives the original's thread up to that point, in a session of its
// own that no agent session serves yet. dst must not exist; it is removed
// again when the copy fails.
func ForkTranscript(src, dst string, first SessionRecord, before int) (ForkStats, error) {
	var st ForkStats
	if before < 1 {
		return st, fmt.Errorf("store: fork %s: turn %d: turns start at 1", src, before)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return st, fmt.Errorf("store: fork transcript: %w", err)
	}
	fail := func(err error) (ForkStats, error) {
		f.Close()
		os.Remove(dst)
		return ForkStats{}, err
	}
	head, err := json.Marshal(first)
	if err != nil {
		return fail(fmt.Errorf("store: fork %s: %w", src, err))
	}
	var buf []byte
	seq := int64(1)
	buf = appendRecord(buf, seq, first.CreatedMs, DirApp, KindSession, head)
	_, rerr := ReadTranscript(src, func(rec Record) error {
		if rec.Dir == DirApp && (rec.Kind == KindTurnStarted || rec.Kind == KindPrompt) {
			var t TurnStartedRecord
			if err := json.Unmarshal(rec.Data, &t); err == nil && t.Turn >= before {
				return errForkPoint
			}
			if rec.Kind == KindTurnStarted {
				st.Turns++
			}
		}
		if !forkKeeps(rec) {
			return nil
		}
		seq++
		st.Records++
		data := rec.Data
		if bytes.IndexByte(data, '\n') >= 0 {
			var c bytes.Buffer
			if err := json.Compact(&c, data); err != nil {
				return err
			}
			data = c.Bytes()
		}
		buf = appendRecord(buf, seq, rec.TsMs, rec.Dir, rec.Kind, data)
		if len(buf) >= writeBufSize {
			if _, err := f.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		return nil
	})
	if rerr != nil && !errors.Is(rerr, errForkPoint) {
		return fail(fmt.Errorf("store: fork %s: %w", src, rerr))
	}
	if first.Title != "" {
		// The fork's own title, after the copied records: a title the
		// original's agent sent (a copied session_info_update) does not
		// replace it, nor do the new agent's.
		data, err := json.Marshal(TitleRecord{Title: first.Title})
		if err != nil {
			return fail(fmt.Errorf("store: fork %s: %w", src, err))
		}
		seq++
		buf = appendRecord(buf, seq, first.CreatedMs, DirApp, KindTitle, data)
	}
	if _, err := f.Write(buf); err != nil {
		return fail(fmt.Errorf("store: fork %s: %w", src, err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("store: fork %s: %w", src, err))
	}
	if err := f.Close(); err != nil {
		os.Remove(dst)
		return ForkStats{}, fmt.Errorf("store: fork %s: %w", src, err)
	}
	return st, nil
}

// forkKeeps says whether a record of the original goes into a fork.
func forkKeeps(rec Record) bool {
	switch rec.Dir {
	case DirOut:
		return false
	case DirIn:
		return rec.Kind != KindResponse
	}
	switch rec.Kind {
	case KindSession, KindTitle, KindRuntimeBound, KindRuntimeStatus:
		return false
	}
	return true
}

// ForkCount is how many sessions were forked from id, those in the
// trash counted (a fork's number is never given twice while it is there).
func (ix *Index) ForkCount(ctx context.Context, id string) (int, error) {
	var n int
	if err := ix.r.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE forked_from = ?`, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: forks of %s: %w", id, err)
	}
	return n, nil
}

// Titles returns the titles of the sessions ids (those in the trash
// included; an id without a row is left out).
func (ix *Index) Titles(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := ix.r.QueryContext(ctx, `SELECT id, title FROM sessions WHERE id IN (?`+strings.Repeat(",?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: session titles: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, title string
		if err := rows.Scan(&id, &title); err != nil {
			return nil, fmt.Errorf("store: session titles: %w", err)
		}
		out[id] = title
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: session titles: %w", err)
	}
	return out, nil
}

// ForkRow is one fork of a session.
type ForkRow struct {
	ID        string
	Title     string
	Turn      int // the turn of the original it was forked at
	CreatedMs int64
}

// Forks returns the sessions forked from id, oldest first (those in the
// trash left out).
func (ix *Index) Forks(ctx context.Context, id string) ([]ForkRow, error) {
	rows, err := ix.r.QueryContext(ctx, `SELECT id, title, forked_turn, created_ms FROM sessions
WHERE forked_from = ? AND status <> '`+StatusDeleted+`' ORDER BY created_ms, id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: forks of %s: %w", id, err)
	}
	defer rows.Close()
	var out []ForkRow
	for rows.Next() {
		var r ForkRow
		if err := rows.Scan(&r.ID, &r.Title, &r.Turn, &r.CreatedMs); err != nil {
			return nil, fmt.Errorf("store: forks of %s: %w", id, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: forks of %s: %w", id, err)
	}
	return out, nil
}
