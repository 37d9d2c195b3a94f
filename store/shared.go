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

// ReadSharedEntries returns the shared entries a transcript holds, in the
// order recorded (by seq); none for a missing file.
func ReadSharedEntries(path string) ([]SharedEntryRecord, error) {
	var out []SharedEntryRecord
	_, err := ReadTranscript(path, func(r Record) error {
		if r.Dir != DirApp || r.Kind != KindSharedEntry {
			return nil
		}
		var e SharedEntryRecord
		if err := json.Unmarshal(r.Data, &e); err != nil {
			return nil // a damaged line: the entry is fetched again
		}
		if len(out) > 0 && e.Seq <= out[len(out)-1].Seq {
			return nil
		}
		out = append(out, e)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("shared entries of %s: %w", path, err)
	}
	return out, nil
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
