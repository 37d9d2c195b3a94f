package store

import (
	"fmt"
	"os"

	"mnote/thread"
)

// loadBatch is how many decoded records LoadThread hands over at a time.
const loadBatch = 512

// LoadThread rebuilds a session's thread from its transcript, without any
// agent: "in" session/update records are applied (unknown kinds skipped),
// app prompt records become user messages, permission_asked and
// permission_decided records mark tool calls, turn_ended ends turns,
// replay records bracket a session/load replay, and agent notifications
// that carry session state (Reasonix's status with its prompt-cache
// figures) restore it. The thread is built by the
// same reducer as the index, so search hits' entry ids point into it.
//
// Reading and decoding run on one goroutine, applying to the thread on
// the caller's, so a long transcript loads on two cores. Record data is
// validated by decoding it (records the thread does not use are not
// checked), so ReadStats.Corrupt counts only lines that are not records.
func LoadThread(path string) (*thread.Thread, *SessionInfo, ReadStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, ReadStats{}, fmt.Errorf("store: load thread: %w", err)
	}
	defer f.Close()

	batches := make(chan []step, 4)
	free := make(chan []step, 4)
	var st ReadStats
	var rerr error
	go func() {
		defer close(batches)
		buf := make([]step, 0, loadBatch)
		st, rerr = readRecords(f, path, true, func(rec Record) error {
			buf = buf[:len(buf)+1]
			decodeStep(rec, nil, &buf[len(buf)-1])
			if len(buf) == cap(buf) {
				batches <- buf
				select {
				case buf = <-free:
				default:
					buf = make([]step, 0, loadBatch)
				}
			}
			return nil
		})
		if len(buf) > 0 {
			batches <- buf
		}
	}()

	r := newReducer(sessionIDFromPath(path), false)
	for b := range batches {
		for i := range b {
			r.apply(&b[i])
		}
		clear(b)
		select {
		case free <- b[:0]:
		default:
		}
	}
	if rerr != nil {
		return nil, nil, st, rerr
	}
	info := r.sessionInfo()
	return r.th, &info, st, nil
}
