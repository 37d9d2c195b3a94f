package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// KindSharedEntry is an app record holding one entry of a shared
// session's log (SharedEntryRecord), as this machine opened it. A
// machine's transcript of a shared session is filled from the log by
// sequence number: each seq is recorded once, in order, none skipped.
const KindSharedEntry = "shared_entry"

// SharedEntryRecord is one entry of a shared session's log. Entry is the
// opened plaintext (a collab/projection.Entry as JSON); an entry that
// could not be opened has Unreadable (why) instead, so that it shows as
// such rather than missing.
type SharedEntryRecord struct {
	Seq          int64           `json:"seq"`
	Epoch        int64           `json:"epoch"`
	Kind         string          `json:"kind"`
	RunID        string          `json:"runId,omitempty"`
	Actor        string          `json:"actor"`
	AuthorDevice string          `json:"authorDevice,omitempty"`
	TimeMs       int64           `json:"timeMs"`
	Entry        json.RawMessage `json:"entry,omitempty"`
	Unreadable   string          `json:"unreadable,omitempty"`
}

// ErrSharedGap: shared entries given with a gap after what the transcript
// holds (one would be lost).
var ErrSharedGap = errors.New("shared log entries out of order")

// KindSharedRun is an app record naming the shared run one of this
// machine's turns was sent as (SharedRunRecord). The window shows such a
// run from the turn's own entries in the transcript (tool input and
// output, diffs, thoughts: what stays on this machine), not from its
// projection.
const KindSharedRun = "shared_run"

// SharedRunRecord links a turn of the transcript's thread to the run of
// the shared log it was sent as.
type SharedRunRecord struct {
	RunID string `json:"runId"`
	Turn  int    `json:"turn"`
}

// ReadSharedEntries returns the shared entries a transcript holds, in the
// order recorded (by seq); none for a missing file.
func ReadSharedEntries(path string) ([]SharedEntryRecord, error) {
	out, _, err := ReadShared(path)
	return out, err
}

// ReadShared returns the shared entries a transcript holds (as
// ReadSharedEntries; an entry opened again after it was recorded as one
// that could not be opened is given opened, in its place) and the turns of
// this machine it links to their shared run, by run id (KindSharedRun).
func ReadShared(path string) ([]SharedEntryRecord, map[string]int, error) {
	var out []SharedEntryRecord
	var runs map[string]int
	at := map[int64]int{} // an entry's place in out, by seq
	_, err := ReadTranscript(path, func(r Record) error {
		if r.Dir != DirApp {
			return nil
		}
		switch r.Kind {
		case KindSharedRun:
			var l SharedRunRecord
			if json.Unmarshal(r.Data, &l) == nil && l.RunID != "" && l.Turn > 0 {
				if runs == nil {
					runs = map[string]int{}
				}
				runs[l.RunID] = l.Turn
			}
			return nil
		case KindSharedEntry:
		default:
			return nil
		}
		var e SharedEntryRecord
		if err := json.Unmarshal(r.Data, &e); err != nil {
			return nil // a damaged line: the entry is fetched again
		}
		if len(out) > 0 && e.Seq <= out[len(out)-1].Seq {
			// Opened again (AppendReopened): it takes the place of the
			// one recorded as not opened.
			if i, ok := at[e.Seq]; ok && out[i].Unreadable != "" && e.Unreadable == "" {
				out[i] = e
			}
			return nil
		}
		at[e.Seq] = len(out)
		out = append(out, e)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("shared entries of %s: %w", path, err)
	}
	return out, runs, nil
}

// AppendSharedRun records that the transcript's turn was sent as the
// shared run runID.
func AppendSharedRun(w *Writer, runID string, turn int) error {
	_, err := w.AppendJSON(DirApp, KindSharedRun, SharedRunRecord{RunID: runID, Turn: turn})
	return err
}

// SharedHead is the seq of the last shared entry a transcript holds (0:
// none).
func SharedHead(path string) (int64, error) {
	es, err := ReadSharedEntries(path)
	if err != nil || len(es) == 0 {
		return 0, err
	}
	return es[len(es)-1].Seq, nil
}

// AppendSharedEntries records the entries of recs after head (the
// transcript's SharedHead) on w, in order, and returns the new head.
// Entries at or before head are skipped, so syncing again records
// nothing twice; an entry past head+1 is ErrSharedGap.
func AppendSharedEntries(w *Writer, head int64, recs []SharedEntryRecord) (int64, error) {
	for _, r := range recs {
		if r.Seq <= head {
			continue
		}
		if r.Seq != head+1 {
			return head, fmt.Errorf("%w: entry %d after %d", ErrSharedGap, r.Seq, head)
		}
		if _, err := w.AppendJSON(DirApp, KindSharedEntry, r); err != nil {
			return head, err
		}
		head = r.Seq
	}
	return head, nil
}

// AppendReopened records entries of the log opened after they were
// recorded as ones that could not be opened (their epoch's key came
// later: a member added before their first device). ReadShared gives
// each in the place of the one recorded before; an entry still not opened
// is not recorded again.
func AppendReopened(w *Writer, recs []SharedEntryRecord) error {
	for _, r := range recs {
		if r.Unreadable != "" {
			continue
		}
		if _, err := w.AppendJSON(DirApp, KindSharedEntry, r); err != nil {
			return err
		}
	}
	return nil
}
